import { Metadata } from '@grpc/grpc-js';
import { createRecordLookup, type RecordLookup } from '@inventario/platform';
import { ProductoServiceClient } from '@inventario/proto';

/**
 * bodega-svc's questions to producto-svc, the owner of products. ProductoEliminado is acted on only
 * once producto-svc confirms it deleted the product (GetProductoEliminado), so a forged event can
 * neither wipe a live product's stock nor mark the next product deleted before it exists. A stock
 * write naming a product this service has not seen yet asks whether it exists (GetProducto) and
 * records the answer (docs/decisions.md, "Stock has one home").
 */
export type ProductoLookup = RecordLookup;

export function createProductoLookup(address: string): ProductoLookup {
  return createRecordLookup({
    address,
    client: ProductoServiceClient,
    confirm: (client, id, options, done) =>
      client.getProductoEliminado({ id }, new Metadata(), options, (err) => done(err)),
    confirmLive: (client, id, options, done) => client.getProducto({ id }, new Metadata(), options, (err) => done(err)),
    owner: 'producto-svc',
    record: 'product',
  });
}
