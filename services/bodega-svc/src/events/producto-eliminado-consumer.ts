import type { ReconciliationConsumer } from '@inventario/platform';
import type { ProductoLookup } from '../grpc/producto-lookup';
import { startProductoEventConsumer, type ProductoEventConsumerDeps } from './producto-event-consumer';

/**
 * Reconciliation (docs/contract.md §7.6, §10.1): a deleted product's stock is
 * written out, ledger kept, so no order of delete and stock write leaves
 * stock for a product that no longer exists. Trust rule and ack policy are
 * platform's reconciliation consumer.
 */

/** Shared by every replica (work queue semantics). */
export const PRODUCTO_ELIMINADO_CONSUMER = 'bodega-svc-producto-eliminado';

/** Idempotent, so a replayed event changes nothing. */
export interface ProductoEliminadoStore {
  /** One transaction; from then on stock writes naming the product are refused. */
  retirarProductoEliminado(productoId: number): Promise<void>;
}

export interface ProductoEliminadoConsumerOptions extends ProductoEventConsumerDeps {
  store: ProductoEliminadoStore;
  productos: Pick<ProductoLookup, 'wasDeleted'>;
}

export type ProductoEliminadoConsumer = ReconciliationConsumer;

export function startProductoEliminadoConsumer(
  options: ProductoEliminadoConsumerOptions,
): Promise<ProductoEliminadoConsumer> {
  const { store, productos } = options;
  return startProductoEventConsumer(options, {
    eventType: 'ProductoEliminado',
    durableName: PRODUCTO_ELIMINADO_CONSUMER,
    confirmsDeleted: (productoId) => productos.wasDeleted(productoId),
    async reconcile(productoId) {
      await store.retirarProductoEliminado(productoId);
      return { productoId };
    },
    pendingEffect: 'the deleted product keeps its stock and stock writes naming it are not refused',
  });
}
