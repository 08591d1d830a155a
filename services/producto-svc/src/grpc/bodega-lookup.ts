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

/**
 * How long a "yes, it exists" is reused (docs/decisions.md, "Where a write's time went (issue 23)").
 * A yes answered a moment ago is worth what a yes answered now is: either way the warehouse may be
 * deleted before the product's write commits, and what closes that race is not this question but
 * the store's locking read of bodegas_eliminadas and the BodegaEliminada reconciliation. So only
 * positive answers are kept, briefly, and a write naming a warehouse that never existed is asked
 * (and refused) every time.
 */
export const BODEGA_VIVA_TTL_MS = 5000;
/** Bounded whatever ids clients name: only existing warehouses enter, the oldest leave first. */
const BODEGAS_VIVAS_MAX = 10_000;

/** `serviceToken`: this service's own API token (SERVICE_TOKEN); the answers are cached for every caller. */
export function createBodegaLookup(address: string, serviceToken?: string, now: () => number = Date.now): BodegaLookup {
  const md = metadataDeServicio(serviceToken);
  const lookup = createRecordLookup({
    address,
    client: BodegaServiceClient,
    confirm: (client, id, options, done) => client.getBodegaEliminada({ id }, md(), options, (err) => done(err)),
    confirmLive: (client, id, options, done) => client.getBodega({ id }, md(), options, (err) => done(err)),
    owner: 'bodega-svc',
    record: 'warehouse',
  });
  const vivas = new Map<number, number>();
  return {
    wasDeleted: (id) => lookup.wasDeleted(id),
    async isLive(id) {
      const hasta = vivas.get(id);
      if (hasta !== undefined && hasta > now()) return true;
      const viva = await lookup.isLive(id);
      vivas.delete(id);
      if (viva) {
        if (vivas.size >= BODEGAS_VIVAS_MAX) vivas.delete(vivas.keys().next().value!);
        vivas.set(id, now() + BODEGA_VIVA_TTL_MS);
      }
      return viva;
    },
    close: () => lookup.close(),
  };
}
