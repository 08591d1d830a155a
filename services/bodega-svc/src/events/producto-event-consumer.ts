import { startReconciliationConsumer, type ReconciliationConsumer } from '@inventario/platform';

type ReconciliationOptions = Parameters<typeof startReconciliationConsumer>[0];

/** What bodega-svc's consumers of producto-svc's events share: app.ts builds it once for both. */
export type ProductoEventConsumerDeps = Pick<
  ReconciliationOptions,
  'nc' | 'stream' | 'prefix' | 'namespace' | 'logger' | 'metrics'
>;

/** One of producto-svc's events through platform's reconciliation consumer (its trust rule and ack policy). */
export function startProductoEventConsumer(
  deps: ProductoEventConsumerDeps,
  spec: Omit<ReconciliationOptions, keyof ProductoEventConsumerDeps>,
): Promise<ReconciliationConsumer> {
  const { nc, stream, prefix, namespace, logger, metrics } = deps;
  return startReconciliationConsumer({ nc, stream, prefix, namespace, logger, metrics, ...spec });
}
