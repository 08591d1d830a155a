import type { ReconciliationConsumer } from '@inventario/platform';
import type { ProductoLookup } from '../grpc/producto-lookup';
import type { StockInicialObserver } from '../stock-inicial-metrics';
import type { ExistenciaStore } from '../store/existencia-store';
import { startProductoEventConsumer, type ProductoEventConsumerDeps } from './producto-event-consumer';

/**
 * bodega-svc's projection of the products it may take stock of (docs/decisions.md, "Stock has one
 * home"): each ProductoCreado that producto-svc confirms (it has the product now) is recorded, so
 * the first stock write of a product asks producto-svc nothing. A write that comes before its
 * event asks producto-svc itself; the projection never decides that a product is gone (the
 * ProductoEliminado consumer does). Trust rule and ack policy are platform's reconciliation consumer.
 *
 * One created with units also has its initial stock recorded from the event (docs/decisions.md, "The initial
 * stock, recorded from ProductoCreado"), should the create's own RegistrarStockInicial have been lost: once per
 * product whichever comes first (stock_inicial's row), and only as the product's first units.
 */

/** Shared by every replica (work queue semantics). */
export const PRODUCTO_CREADO_CONSUMER = 'bodega-svc-producto-creado';

export interface ProductoCreadoStore extends Pick<ExistenciaStore, 'registrarStockInicial' | 'leerStockInicial'> {
  /** Idempotent: a replayed event changes nothing. */
  registrarProductoConocido(productoId: number): Promise<void>;
  /** Already recorded (by the product's initial stock, or a command that asked producto-svc itself). */
  esProductoConocido(productoId: number): Promise<boolean>;
}

export interface ProductoCreadoConsumerOptions extends ProductoEventConsumerDeps {
  store: ProductoCreadoStore;
  productos: Pick<ProductoLookup, 'isLive'>;
  /** Told of each initial stock this consumer records (the create's call had not): step (4)'s metrics. */
  stockInicial: StockInicialObserver;
}

export function startProductoCreadoConsumer(options: ProductoCreadoConsumerOptions): Promise<ReconciliationConsumer> {
  const { store, productos, stockInicial: observer } = options;
  return startProductoEventConsumer(options, {
    eventType: 'ProductoCreado',
    durableName: PRODUCTO_CREADO_CONSUMER,
    // For a creation: whether producto-svc has the product now. One already recorded here was confirmed
    // when it was recorded (a stock command that asked producto-svc), and recording it again changes
    // nothing: no call to producto-svc (issue 23).
    confirmsDeleted: async (productoId) => (await store.esProductoConocido(productoId)) || productos.isLive(productoId),
    async reconcile(productoId, trace, data) {
      const cantidad = data.cantidadEnStock ?? 0;
      if (cantidad <= 0) {
        await store.registrarProductoConocido(productoId);
        return { productoId };
      }
      // The common case in one plain read: the create's own call recorded it (a committed row is final). Only a
      // shortcut: with no row yet, the recording's transaction decides (its row makes the second of the call and
      // the event wait, then find it), so it stays once whichever comes first.
      const previo = await store.leerStockInicial(productoId);
      if (previo) return { productoId, stockInicial: previo.conUnidades ? 'ya registrado' : 'nada que registrar' };
      // The lines are the event's author's, as the create's own call writes them (its caller's usuario); the
      // event carries no principal, so theirs is none.
      const registrado = await store.registrarStockInicial(
        { productoId, bodegaId: data.bodegaId ?? null, cantidad, origen: 'STOCK_INICIAL' },
        { ...trace.headers, usuario: data.usuario ?? 'system' },
        { soloSiNuevo: true },
      );
      // A total only when this recorded them (soloSiNuevo: always its first units); none when the create's call had.
      const stockInicial = !registrado
        ? 'nada que registrar'
        : registrado.total === undefined
          ? 'ya registrado'
          : 'registrado';
      // Committed: a redelivery finds the row (no second count).
      if (stockInicial === 'registrado') observer.registradoDesdeEvento(segundosDesde(data.writtenAt));
      return { productoId, stockInicial };
    },
    pendingEffect:
      'the first stock write of the product asks producto-svc whether it exists, and units created with it ' +
      'and not recorded by the create are missing from the ledger',
  });
}

/** Seconds from `at` to now (never negative: two hosts' clocks); undefined without an instant. */
function segundosDesde(at: Date | undefined): number | undefined {
  return at === undefined ? undefined : Math.max(0, (Date.now() - at.getTime()) / 1000);
}
