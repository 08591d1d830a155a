import {
  startReconciliationConsumer,
  type JetStreamConsumerMetrics,
  type Logger,
  type NatsConnection,
  type ReconciliationConsumer,
} from '@inventario/platform';
import type { ProductoLookup } from '../grpc/producto-lookup';

/**
 * Reconciliation (contract §7.6, §10.1 "History is never lost"): when
 * producto-svc deletes a product, bodega-svc records its id as deleted (stock
 * writes naming it are refused from then on) and writes its stock out of
 * every warehouse (reason PRODUCTO_ELIMINADO); the ledger lines stay. So no
 * order of a product delete and a stock write leaves stock for a product
 * that no longer exists.
 *
 * Acted on only when the event is producto-svc's and producto-svc confirms
 * the product is gone (GetProducto NOT_FOUND); the trust rule and the ack
 * policy (no delivery limit, nak with backoff) are platform's reconciliation
 * consumer.
 */

/** Durable name: one consumer shared by every replica (work queue semantics). */
export const PRODUCTO_ELIMINADO_CONSUMER = 'bodega-svc-producto-eliminado';

/** The store's part in it: idempotent, so a replayed event changes nothing. */
export interface ProductoEliminadoStore {
  /** Records `productoId` as deleted and writes its stock out everywhere, in one transaction. */
  retirarProductoEliminado(productoId: number): Promise<void>;
}

export interface ProductoEliminadoConsumerOptions {
  nc: NatsConnection;
  stream: string;
  prefix: string;
  /** EVENT_TYPE_NAMESPACE: the expected eventType is `<namespace>.Inventario.ProductoEliminado`. */
  namespace: string;
  store: ProductoEliminadoStore;
  /** producto-svc, which must confirm the product is gone before its stock is written out. */
  productos: Pick<ProductoLookup, 'exists'>;
  logger: Logger;
  /** Consumer gauges (sampled while it runs) and redeliveries, labelled with PRODUCTO_ELIMINADO_CONSUMER. */
  metrics: JetStreamConsumerMetrics;
}

export type ProductoEliminadoConsumer = ReconciliationConsumer;

export function startProductoEliminadoConsumer(options: ProductoEliminadoConsumerOptions): Promise<ProductoEliminadoConsumer> {
  const { nc, stream, prefix, namespace, store, productos, logger, metrics } = options;
  return startReconciliationConsumer({
    nc,
    stream,
    prefix,
    namespace,
    eventType: 'ProductoEliminado',
    durableName: PRODUCTO_ELIMINADO_CONSUMER,
    stillExists: (productoId) => productos.exists(productoId),
    async reconcile(productoId) {
      await store.retirarProductoEliminado(productoId);
      return { productoId };
    },
    pendingEffect: 'the deleted product keeps its stock and stock writes naming it are not refused',
    logger,
    metrics,
  });
}
