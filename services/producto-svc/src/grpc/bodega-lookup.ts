import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { UnavailableError } from '@inventario/platform';
import { BodegaServiceClient, type GetBodegaResponse } from '@inventario/proto';

/**
 * What producto-svc asks bodega-svc: whether a warehouse still exists. The
 * reconciliation acts on a BodegaEliminada only once bodega-svc confirms the
 * warehouse is gone, so an event published by anyone else (forged, or
 * misrouted) cannot unassign the products of a live warehouse.
 */
export interface BodegaLookup {
  /** True while bodega-svc has warehouse `id`, false once it answers NOT_FOUND; UnavailableError when it cannot tell. */
  exists(id: number): Promise<boolean>;
  /** Closes the channel. */
  close(): void;
}

/** Each question waits at most this long: the consumer naks and asks again later. */
const DEADLINE_MS = 5000;

/** A lookup over a channel to `address` (BODEGA_SVC_ADDR: host:port or dns:///host:port). */
export function createBodegaLookup(address: string): BodegaLookup {
  const client = new BodegaServiceClient(address, credentials.createInsecure(), {
    // Same reasons as the BFF's channel: come back quickly after bodega-svc restarts, every replica in rotation.
    'grpc.max_reconnect_backoff_ms': 5000,
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  });
  return {
    exists: (id) =>
      new Promise<boolean>((resolve, reject) => {
        client.getBodega({ id }, new Metadata(), { deadline: Date.now() + DEADLINE_MS }, (err: ServiceError | null, res?: GetBodegaResponse) => {
          if (!err) resolve(res?.bodega !== undefined);
          else if (err.code === status.NOT_FOUND) resolve(false);
          else reject(new UnavailableError(`bodega-svc could not say whether warehouse ${id} exists: ${status[err.code] ?? err.code}`, { cause: err }));
        });
      }),
    close: () => client.close(),
  };
}
