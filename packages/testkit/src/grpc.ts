/**
 * `@inventario/testkit/grpc`: gRPC clients and stand-ins of our services for
 * tests in any workspace (an entry point of its own, so tests that call no
 * gRPC service do not load the generated code).
 */
export { startCatalogoAbierto, type CatalogoAbierto } from './catalogo-abierto';
export { startFakeLibro, type FakeLibro } from './fake-libro';
export { createHealthClient, type HealthClient } from './health-client';
export {
  createProductoClient,
  productoApi,
  rejectionOf,
  type CallerOptions,
  type ProductoApi,
} from './producto-client';
export { stockClients, answerOf, tally, type Answer, type StockClients } from './stock-clients';
export { asUser, type Rpc, type StockRpc } from './stock-rpc';
export {
  startBodegaSvcProcess,
  startProductoSvcProcess,
  type BodegaSvcRpc,
  type BodegaSvcUnderTest,
  type GrpcServiceProcessOptions,
  type GrpcServiceUnderTest,
  type ProductoSvcUnderTest,
} from './grpc-service-process';
