/**
 * Stand-ins for producto-svc and bodega-svc for fault tests: a real grpc-js
 * server on an ephemeral port, with grpc.health.v1 and whichever methods a
 * test implements (the others answer UNIMPLEMENTED), recording the
 * metadata of every call.
 */
import { Server, ServerCredentials, type Metadata, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import * as proto from '@inventario/proto';
import { BodegaServiceService, ExistenciaServiceService, ProductoServiceService } from '@inventario/proto';

/** A response's generated type, `<Method>Response` (ListProductos: ListProductosResponse). */
type MessageType = { fromPartial(value: unknown): unknown };
const responseTypeOf = (method: string): MessageType | undefined =>
  (proto as unknown as Record<string, MessageType | undefined>)[
    `${method[0]!.toUpperCase()}${method.slice(1)}Response`
  ];

export interface FakeDownstream {
  port: number;
  /** Metadata of every call, in arrival order. */
  calls: { method: string; metadata: Metadata }[];
  /** Sets the grpc.health.v1 status of both services. */
  setServing(serving: boolean): void;
  close(): Promise<void>;
}

type Handler = (
  call: { request: unknown; metadata: Metadata },
  callback: (err: unknown, res?: unknown) => void,
) => void;

export async function startFakeDownstream(handlers: {
  producto?: Record<string, Handler>;
  bodega?: Record<string, Handler>;
  /** bodega-svc's ExistenciaService, served beside BodegaService. */
  existencia?: Record<string, Handler>;
}): Promise<FakeDownstream> {
  const server = new Server();
  const calls: FakeDownstream['calls'] = [];
  const recording = (methods: Record<string, Handler> = {}): UntypedServiceImplementation =>
    Object.fromEntries(
      Object.entries(methods).map(([method, handler]) => [
        method,
        ((call: { request: unknown; metadata: Metadata }, callback: (err: unknown, res?: unknown) => void) => {
          calls.push({ method, metadata: call.metadata });
          // A test writes the fields it cares about; the encoder needs every one (proto3 defaults for the rest).
          const type = responseTypeOf(method);
          handler(call, (err, res) =>
            callback(err, res === undefined || res === null || !type ? res : type.fromPartial(res)),
          );
        }) as UntypedServiceImplementation[string],
      ]),
    );
  server.addService(ProductoServiceService, recording(handlers.producto));
  server.addService(BodegaServiceService, recording(handlers.bodega));
  server.addService(ExistenciaServiceService, recording(handlers.existencia));
  const names = ['', 'inventario.v1.ProductoService', 'inventario.v1.BodegaService'];
  const health = new HealthImplementation(Object.fromEntries(names.map((n) => [n, 'SERVING'])));
  health.addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  return {
    port,
    calls,
    setServing: (serving) => names.forEach((n) => health.setStatus(n, serving ? 'SERVING' : 'NOT_SERVING')),
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())).then(() => server.forceShutdown()),
  };
}
