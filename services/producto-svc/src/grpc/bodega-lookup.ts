import { Metadata } from '@grpc/grpc-js';
import { createRecordLookup, type RecordLookup } from '@inventario/platform';
import { BodegaServiceClient } from '@inventario/proto';

/**
 * What producto-svc asks bodega-svc: whether a warehouse still exists. The
 * reconciliation acts on a BodegaEliminada only once bodega-svc confirms the
 * warehouse is gone (GetBodega NOT_FOUND), so an event published by anyone
 * else (forged, or misrouted) cannot unassign the products of a live warehouse.
 */
export type BodegaLookup = RecordLookup;

/** A lookup over a channel to `address` (BODEGA_SVC_ADDR: host:port or dns:///host:port). */
export function createBodegaLookup(address: string): BodegaLookup {
  return createRecordLookup({
    address,
    client: BodegaServiceClient,
    get: (client, id, options, done) => client.getBodega({ id }, new Metadata(), options, (err) => done(err)),
    owner: 'bodega-svc',
    record: 'warehouse',
  });
}
