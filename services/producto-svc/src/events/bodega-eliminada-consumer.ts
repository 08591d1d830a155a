import {
  RECONCILIATION_ACK_WAIT_MS,
  RECONCILIATION_MAX_DELIVER,
  startReconciliationConsumer,
  type JetStreamConsumerMetrics,
  type Logger,
  type NatsConnection,
  type ReconciliationConsumer,
} from '@inventario/platform';
import type { BodegaLookup } from '../grpc/bodega-lookup';
import type { ProductoStore } from '../store/producto-store';

/**
 * Reconciliation (contract §7.6): when bodega-svc deletes a warehouse, its
 * id is recorded (writes naming it are refused from then on) and any product
 * still pointing at it is unassigned. This closes the race between the BFF's
 * "holds products?" / "does it exist?" checks and the delete.
 *
 * Acted on only when the event is bodega-svc's and bodega-svc confirms the
 * warehouse is gone (GetBodega NOT_FOUND); the trust rule and the ack policy
 * (no delivery limit, nak with backoff) are platform's reconciliation consumer.
 */

/** Durable name: one consumer shared by every replica (work queue semantics). */
export const BODEGA_ELIMINADA_CONSUMER = 'producto-svc-bodega-eliminada';
/** No delivery limit: JetStream redelivers a nak'd message until it is acked. */
export const MAX_DELIVER = RECONCILIATION_MAX_DELIVER;
/** Longer than unassigning one warehouse's products can wait on row locks (innodb_lock_wait_timeout). */
export const ACK_WAIT_MS = RECONCILIATION_ACK_WAIT_MS;

export interface BodegaEliminadaConsumerOptions {
  nc: NatsConnection;
  stream: string;
  prefix: string;
  /** EVENT_TYPE_NAMESPACE: the expected eventType is `<namespace>.Inventario.BodegaEliminada`. */
  namespace: string;
  store: Pick<ProductoStore, 'unassignBodega' | 'recordBodegaEliminada'>;
  /** bodega-svc, which must confirm the warehouse is gone before anything is unassigned. */
  bodegas: Pick<BodegaLookup, 'exists'>;
  logger: Logger;
  /** Consumer gauges (sampled while it runs) and redeliveries, labelled with BODEGA_ELIMINADA_CONSUMER. */
  metrics: JetStreamConsumerMetrics;
}

export type BodegaEliminadaConsumer = ReconciliationConsumer;

export function startBodegaEliminadaConsumer(options: BodegaEliminadaConsumerOptions): Promise<BodegaEliminadaConsumer> {
  const { nc, stream, prefix, namespace, store, bodegas, logger, metrics } = options;
  return startReconciliationConsumer({
    nc,
    stream,
    prefix,
    namespace,
    eventType: 'BodegaEliminada',
    durableName: BODEGA_ELIMINADA_CONSUMER,
    stillExists: (bodegaId) => bodegas.exists(bodegaId),
    async reconcile(bodegaId, trace) {
      // Recorded first: from then on writes naming the warehouse are refused,
      // and the unassignment below also clears those already under way.
      await store.recordBodegaEliminada(bodegaId);
      // The unassignments' events continue this trace: the consume span's
      // context, or with tracing off the message's own traceparent (and tracestate).
      const report = await store.unassignBodega(bodegaId, { ...trace.headers, usuario: 'system' });
      return { bodegaId, unassigned: report.total };
    },
    pendingEffect: 'its products keep pointing at the deleted warehouse',
    logger,
    metrics,
  });
}
