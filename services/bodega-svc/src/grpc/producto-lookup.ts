import { createRecordLookup, metadataDeServicio, type RecordLookup } from '@inventario/platform';
import { ProductoServiceClient } from '@inventario/proto';

/**
 * bodega-svc's questions to producto-svc, the owner of products. ProductoEliminado is acted on only
 * once producto-svc confirms it deleted the product (GetProductoEliminado), so a forged event can
 * neither wipe a live product's stock nor mark the next product deleted before it exists. A stock
 * write naming a product this service has not seen yet asks whether it exists (GetProducto) and
 * records the answer (docs/decisions.md, "Stock has one home").
 */
export type ProductoLookup = RecordLookup;

/** `serviceToken`: this service's own API token (SERVICE_TOKEN); the answers are cached for every caller. */
export function createProductoLookup(address: string, serviceToken?: string): ProductoLookup {
  const md = metadataDeServicio(serviceToken);
  return createRecordLookup({
    address,
    client: ProductoServiceClient,
    confirm: (client, id, options, done) => client.getProductoEliminado({ id }, md(), options, (err) => done(err)),
    confirmLive: (client, id, options, done) => client.getProducto({ id }, md(), options, (err) => done(err)),
    owner: 'producto-svc',
    record: 'product',
  });
}
