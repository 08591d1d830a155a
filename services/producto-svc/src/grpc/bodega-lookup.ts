import { createRecordLookup, metadataDeServicio, type RecordLookup } from '@inventario/platform';
import { BodegaServiceClient } from '@inventario/proto';

/**
 * producto-svc's questions to bodega-svc, the owner of warehouses. BodegaEliminada is acted on
 * only once bodega-svc confirms it deleted the warehouse (GetBodegaEliminada), so a forged event
 * can neither unassign a live warehouse's products nor mark the next warehouse deleted before it
 * exists. A write naming a bodegaId asks whether it exists (GetBodega): the product's fields are
 * this service's to judge (docs/decisions.md, "The thin gateway").
 */
export type BodegaLookup = RecordLookup;

/** `serviceToken`: this service's own API token (SERVICE_TOKEN); the answers are cached for every caller. */
export function createBodegaLookup(address: string, serviceToken?: string): BodegaLookup {
  const md = metadataDeServicio(serviceToken);
  return createRecordLookup({
    address,
    client: BodegaServiceClient,
    confirm: (client, id, options, done) => client.getBodegaEliminada({ id }, md(), options, (err) => done(err)),
    confirmLive: (client, id, options, done) => client.getBodega({ id }, md(), options, (err) => done(err)),
    owner: 'bodega-svc',
    record: 'warehouse',
  });
}
