/**
 * A producto-svc for tests of bodega-svc's own stock rules: every product id exists and none was
 * deleted, as those tests assume (they name products by id, with no producto-svc to create them).
 * bodega-svc asks it, as it asks the real one, about an id it has not seen (docs/decisions.md,
 * "Stock has one home"). Tests of how bodega-svc learns products use a real producto-svc.
 */
import { Server, ServerCredentials, status, type sendUnaryData } from '@grpc/grpc-js';
import { ProductoServiceService } from '@inventario/proto';

export interface CatalogoAbierto {
  address: string;
  /** How many GetProducto calls it answered. */
  preguntas(): number;
  close(): Promise<void>;
}

export async function startCatalogoAbierto(): Promise<CatalogoAbierto> {
  const server = new Server();
  let preguntas = 0;
  // Methods not given here answer UNIMPLEMENTED.
  server.addService(ProductoServiceService, {
    getProducto: (_call: unknown, callback: sendUnaryData<object>) => {
      preguntas++;
      callback(null, {});
    },
    getProductoEliminado: (_call: unknown, callback: sendUnaryData<object>) =>
      callback({ code: status.NOT_FOUND, details: 'no fue eliminado' }),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    address: `127.0.0.1:${port}`,
    preguntas: () => preguntas,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
