import { Metadata } from '@grpc/grpc-js';
import { createRecordLookup, type RecordLookup } from '@inventario/platform';
import { BodegaServiceClient } from '@inventario/proto';

/**
 * producto-svc's questions to bodega-svc, the owner of warehouses. BodegaEliminada is acted on
 * only once bodega-svc confirms it deleted the warehouse (GetBodegaEliminada), so a forged event
 * can neither unassign a live warehouse's products nor mark the next warehouse deleted before it
 * exists. A write naming a bodegaId asks whether it exists (GetBodega): the product's fields are
 * this service's to judge (docs/decisions.md, "The thin gateway").
 */
export type BodegaLookup = RecordLookup;

export function createBodegaLookup(address: string): BodegaLookup {
  return createRecordLookup({
    address,
    client: BodegaServiceClient,
    confirm: (client, id, options, done) =>
      client.getBodegaEliminada({ id }, new Metadata(), options, (err) => done(err)),
    confirmLive: (client, id, options, done) => client.getBodega({ id }, new Metadata(), options, (err) => done(err)),
    owner: 'bodega-svc',
    record: 'warehouse',
  });
}
