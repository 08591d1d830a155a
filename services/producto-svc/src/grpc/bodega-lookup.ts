import { Metadata } from '@grpc/grpc-js';
import { createRecordLookup, type RecordLookup } from '@inventario/platform';
import { BodegaServiceClient } from '@inventario/proto';

/** BodegaEliminada is acted on only once bodega-svc confirms, so a forged event cannot unassign a live warehouse's products. */
export type BodegaLookup = RecordLookup;

export function createBodegaLookup(address: string): BodegaLookup {
  return createRecordLookup({
    address,
    client: BodegaServiceClient,
    get: (client, id, options, done) => client.getBodega({ id }, new Metadata(), options, (err) => done(err)),
    owner: 'bodega-svc',
    record: 'warehouse',
  });
}
