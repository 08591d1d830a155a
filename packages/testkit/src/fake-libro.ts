/**
 * A stand-in for bodega-svc: its BodegaService's GetBodega (every warehouse exists but those in
 * `bodegasInexistentes`), and its ExistenciaService where producto-svc records a create's units and a
 * PUT's count (docs/contract.md §10.6): producto-svc's own tests run without bodega-svc, and the
 * ledger's side of these calls is bodega-svc's tests' (existencia-una-respuesta*.test.ts) and the
 * BFF's (una-respuesta*.test.ts, across both real services). It answers as bodega-svc does when
 * the call succeeds, and records each call so a test can see what producto-svc asked. In testkit, beside
 * catalogo-abierto.ts (the stand-in the other way round), since other workspaces start producto-svc too.
 */
import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import {
  BodegaServiceService,
  ExistenciaServiceService,
  type ContarProductoRequest,
  type GetBodegaRequest,
  type RegistrarStockInicialRequest,
} from '@inventario/proto';

export interface FakeLibro {
  address: string;
  calls: {
    method: 'registrarStockInicial' | 'contarProducto';
    request: RegistrarStockInicialRequest | ContarProductoRequest;
  }[];
  /** GetBodega answers NOT_FOUND for these ids. */
  bodegasInexistentes: Set<number>;
  close(): Promise<void>;
}

export async function startFakeLibro(): Promise<FakeLibro> {
  const server = new Server();
  const calls: FakeLibro['calls'] = [];
  const bodegasInexistentes = new Set<number>();
  const unimplemented = (_call: unknown, callback: sendUnaryData<unknown>) =>
    callback({ code: status.UNIMPLEMENTED, details: 'not in this fake' });
  const methods = Object.fromEntries(Object.keys(ExistenciaServiceService).map((name) => [name, unimplemented]));
  server.addService(ExistenciaServiceService, {
    ...methods,
    registrarStockInicial(
      call: ServerUnaryCall<RegistrarStockInicialRequest, unknown>,
      callback: sendUnaryData<unknown>,
    ) {
      calls.push({ method: 'registrarStockInicial', request: call.request });
      callback(null, {});
    },
    contarProducto(call: ServerUnaryCall<ContarProductoRequest, unknown>, callback: sendUnaryData<unknown>) {
      calls.push({ method: 'contarProducto', request: call.request });
      callback(null, { total: call.request.cantidad });
    },
  });
  server.addService(BodegaServiceService, {
    ...Object.fromEntries(Object.keys(BodegaServiceService).map((name) => [name, unimplemented])),
    getBodega(call: ServerUnaryCall<GetBodegaRequest, unknown>, callback: sendUnaryData<unknown>) {
      const { id } = call.request;
      if (bodegasInexistentes.has(id)) callback({ code: status.NOT_FOUND, details: `No existe la bodega ${id}` });
      else callback(null, { bodega: { id, nombre: `B${id}`, capacidad: 1000, version: 1 } });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    calls,
    bodegasInexistentes,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
