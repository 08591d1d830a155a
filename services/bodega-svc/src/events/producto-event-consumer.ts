import {
  startReconciliationConsumer,
  type JetStreamConsumerMetrics,
  type Logger,
  type NatsConnection,
  type ReconciliationConsumer,
} from '@inventario/platform';

/** What bodega-svc's consumers of producto-svc's events share: app.ts builds it once for both. */
export interface ProductoEventConsumerDeps {
  nc: NatsConnection;
  stream: string;
  prefix: string;
  namespace: string;
  logger: Logger;
  metrics: JetStreamConsumerMetrics;
}

/** What one consumer says of its event: which, its durable, how producto-svc confirms it, what it does. */
export type ProductoEventSpec = Pick<
  Parameters<typeof startReconciliationConsumer>[0],
  'eventType' | 'durableName' | 'confirmsDeleted' | 'reconcile' | 'pendingEffect'
>;

/** One of producto-svc's events through platform's reconciliation consumer (its trust rule and ack policy). */
export function startProductoEventConsumer(
  deps: ProductoEventConsumerDeps,
  spec: ProductoEventSpec,
): Promise<ReconciliationConsumer> {
  const { nc, stream, prefix, namespace, logger, metrics } = deps;
  return startReconciliationConsumer({ nc, stream, prefix, namespace, logger, metrics, ...spec });
}
