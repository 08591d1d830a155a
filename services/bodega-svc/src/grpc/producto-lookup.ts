import { Metadata } from '@grpc/grpc-js';
import { createRecordLookup, type RecordLookup } from '@inventario/platform';
import { ProductoServiceClient } from '@inventario/proto';

/**
 * What bodega-svc asks producto-svc: whether a product still exists. The
 * reconciliation writes a product's stock out on ProductoEliminado only once
 * producto-svc confirms the product is gone (GetProducto NOT_FOUND), so an
 * event published by anyone else (forged, or misrouted) cannot wipe the stock
 * of a live product.
 */
export type ProductoLookup = RecordLookup;

/** A lookup over a channel to `address` (PRODUCTO_SVC_ADDR: host:port or dns:///host:port). */
export function createProductoLookup(address: string): ProductoLookup {
  return createRecordLookup({
    address,
    client: ProductoServiceClient,
    get: (client, id, options, done) => client.getProducto({ id }, new Metadata(), options, (err) => done(err)),
    owner: 'producto-svc',
    record: 'product',
  });
}
