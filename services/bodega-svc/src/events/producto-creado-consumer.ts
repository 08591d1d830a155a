import type { ReconciliationConsumer } from '@inventario/platform';
import type { ProductoLookup } from '../grpc/producto-lookup';
import { startProductoEventConsumer, type ProductoEventConsumerDeps } from './producto-event-consumer';

/**
 * bodega-svc's projection of the products it may take stock of (docs/decisions.md, "Stock has one
 * home"): each ProductoCreado that producto-svc confirms (it has the product now) is recorded, so
 * the first stock write of a product asks producto-svc nothing. A write that comes before its
 * event asks producto-svc itself; the projection never decides that a product is gone (the
 * ProductoEliminado consumer does). Trust rule and ack policy are platform's reconciliation consumer.
 */

/** Shared by every replica (work queue semantics). */
export const PRODUCTO_CREADO_CONSUMER = 'bodega-svc-producto-creado';

export interface ProductoCreadoStore {
  /** Idempotent: a replayed event changes nothing. */
  registrarProductoConocido(productoId: number): Promise<void>;
  /** Already recorded (by the product's initial stock, or a command that asked producto-svc itself). */
  esProductoConocido(productoId: number): Promise<boolean>;
}

export interface ProductoCreadoConsumerOptions extends ProductoEventConsumerDeps {
  store: ProductoCreadoStore;
  productos: Pick<ProductoLookup, 'isLive'>;
}

export function startProductoCreadoConsumer(options: ProductoCreadoConsumerOptions): Promise<ReconciliationConsumer> {
  const { store, productos } = options;
  return startProductoEventConsumer(options, {
    eventType: 'ProductoCreado',
    durableName: PRODUCTO_CREADO_CONSUMER,
    // For a creation: whether producto-svc has the product now. One already recorded here was confirmed
    // when it was recorded (a product created with units is, by its initial stock, before this event
    // arrives), and recording it again changes nothing: no call to producto-svc (issue 23).
    confirmsDeleted: async (productoId) => (await store.esProductoConocido(productoId)) || productos.isLive(productoId),
    async reconcile(productoId) {
      await store.registrarProductoConocido(productoId);
      return { productoId };
    },
    pendingEffect: 'the first stock write of the product asks producto-svc whether it exists',
  });
}
