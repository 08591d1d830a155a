import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { BodegaServiceClient, ProductoServiceClient } from '@inventario/proto';
import { fijarCredencial, type Logger } from '@inventario/platform';

/**
 * The names an email shows beside an id that its event does not name (a stock alert's product and
 * warehouse, a product's warehouse), asked of the record's owner when the email is prepared: a
 * few milliseconds after the event, so practically the name at the time. A name is presentation,
 * never a condition of the email: a record that is gone, an owner that does not answer within
 * LOOKUP_DEADLINE_MS, or any other failure gives `undefined`, and the email names the record by
 * its id and is sent all the same (exactly once, as ever: the lookup comes before the send and
 * claims nothing).
 */
export interface NameLookup {
  producto(id: number): Promise<string | undefined>;
  bodega(id: number): Promise<string | undefined>;
  close(): void;
}

export const LOOKUP_DEADLINE_MS = 2000;

type Get = (id: number, options: { deadline: Date }, done: (err: ServiceError | null, nombre?: string) => void) => void;

export function createNameLookup(
  {
    productoSvcAddr,
    bodegaSvcAddr,
    serviceToken,
  }: { productoSvcAddr: string; bodegaSvcAddr: string; serviceToken?: string | undefined },
  logger: Logger,
): NameLookup {
  const productos = new ProductoServiceClient(productoSvcAddr, credentials.createInsecure());
  const bodegas = new BodegaServiceClient(bodegaSvcAddr, credentials.createInsecure());
  const metadata = () => {
    // Its own token when it has one (services with REQUIRE_PRINCIPAL=true know who asks, docs/contract.md §12.9).
    const md = fijarCredencial(new Metadata(), undefined, serviceToken);
    md.set('x-inventario-usuario', 'notifier');
    return md;
  };
  const lookup = (record: 'producto' | 'bodega', get: Get) => (id: number) =>
    new Promise<string | undefined>((resolve) => {
      get(id, { deadline: new Date(Date.now() + LOOKUP_DEADLINE_MS) }, (err, nombre) => {
        if (err && err.code !== status.NOT_FOUND)
          logger.warn({ record, id, code: err.code, err: err.details }, 'name lookup failed; the email shows the id');
        resolve(err ? undefined : nombre);
      });
    });
  return {
    producto: lookup('producto', (id, options, done) =>
      productos.getProducto({ id }, metadata(), options, (err, res) => done(err, res?.producto?.nombre)),
    ),
    bodega: lookup('bodega', (id, options, done) =>
      bodegas.getBodega({ id }, metadata(), options, (err, res) => done(err, res?.bodega?.nombre)),
    ),
    close() {
      productos.close();
      bodegas.close();
    },
  };
}
