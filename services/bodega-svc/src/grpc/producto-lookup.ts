import { Metadata } from '@grpc/grpc-js';
import { createRecordLookup, type RecordLookup } from '@inventario/platform';
import { ProductoServiceClient } from '@inventario/proto';

/** ProductoEliminado is acted on only once producto-svc confirms, so a forged event cannot wipe a live product's stock. */
export type ProductoLookup = RecordLookup;

export function createProductoLookup(address: string): ProductoLookup {
  return createRecordLookup({
    address,
    client: ProductoServiceClient,
    get: (client, id, options, done) => client.getProducto({ id }, new Metadata(), options, (err) => done(err)),
    owner: 'producto-svc',
    record: 'product',
  });
}
