import type { ReconciliationConsumer } from '@inventario/platform';
import type { ProductoLookup } from '../grpc/producto-lookup';
import { startProductoEventConsumer, type ProductoEventConsumerDeps } from './producto-event-consumer';

/**
 * bodega-svc's projection of the products it may take stock of (docs/decisions.md, "Stock has one
 * home"): each ProductoCreado without units that producto-svc confirms (it has the product now) is
 * recorded (one with units is recorded by its initial stock), so
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
    // when it was recorded (a stock command that asked producto-svc), and recording it again changes
    // nothing: no call to producto-svc (issue 23).
    confirmsDeleted: async (productoId) => (await store.esProductoConocido(productoId)) || productos.isLive(productoId),
    async reconcile(productoId) {
      await store.registrarProductoConocido(productoId);
      return { productoId };
    },
    // A product created with units is recorded by its initial stock (RegistrarStockInicial, which producto-svc calls
    // before it answers the create): its event usually arrives before that recording commits, and confirming it
    // then cost a GetProducto and a write per create (issue 23). Should the recording fail, the product's first
    // stock write asks producto-svc, as for any product not recorded yet.
    recordedElsewhere: (data) => (data.cantidadEnStock ?? 0) > 0,
    pendingEffect: 'the first stock write of the product asks producto-svc whether it exists',
  });
}
