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
 * Reconciliation (docs/contract.md §7.6): a deleted warehouse's products are
 * unassigned, closing the race between the BFF's checks and the delete. Trust
 * rule and ack policy are platform's reconciliation consumer.
 */

/** Shared by every replica (work queue semantics). */
export const BODEGA_ELIMINADA_CONSUMER = 'producto-svc-bodega-eliminada';
export const MAX_DELIVER = RECONCILIATION_MAX_DELIVER;
/** Longer than unassigning one warehouse's products can wait on row locks (innodb_lock_wait_timeout). */
export const ACK_WAIT_MS = RECONCILIATION_ACK_WAIT_MS;

export interface BodegaEliminadaConsumerOptions {
  nc: NatsConnection;
  stream: string;
  prefix: string;
  namespace: string;
  store: Pick<ProductoStore, 'unassignBodega' | 'recordBodegaEliminada'>;
  bodegas: Pick<BodegaLookup, 'wasDeleted'>;
  logger: Logger;
  metrics: JetStreamConsumerMetrics;
}

export type BodegaEliminadaConsumer = ReconciliationConsumer;

export function startBodegaEliminadaConsumer(
  options: BodegaEliminadaConsumerOptions,
): Promise<BodegaEliminadaConsumer> {
  const { nc, stream, prefix, namespace, store, bodegas, logger, metrics } = options;
  return startReconciliationConsumer({
    nc,
    stream,
    prefix,
    namespace,
    eventType: 'BodegaEliminada',
    durableName: BODEGA_ELIMINADA_CONSUMER,
    confirmsDeleted: (bodegaId) => bodegas.wasDeleted(bodegaId),
    async reconcile(bodegaId, trace) {
      // First, so writes naming it are refused and the unassignment also clears those under way.
      await store.recordBodegaEliminada(bodegaId);
      const report = await store.unassignBodega(bodegaId, { ...trace.headers, usuario: 'system' });
      return { bodegaId, unassigned: report.total };
    },
    pendingEffect: 'its products keep pointing at the deleted warehouse',
    logger,
    metrics,
  });
}
