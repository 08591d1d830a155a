import { UnavailableError, type CallContext } from '@inventario/platform';
import { everyWithLimit } from './every-with-limit';
import type { ProductoLookup } from './grpc/producto-lookup';
import type { ExistenciaStore } from './store/existencia-store';

/**
 * Products a safe delete may find deleted but not yet written out: past this many levels the
 * warehouse is refused as before, unasked, so one delete costs at most this many questions to
 * producto-svc and write-outs (docs/decisions.md, "A safe delete does the write-out it waits for").
 */
export const ELIMINADOS_POR_BORRADO = 100;

/**
 * Questions to producto-svc in flight at once for one delete: 100 products cost about 13 round trips
 * end to end, not 100, and one delete adds at most this many calls to producto-svc's load
 * (docs/decisions.md, "A safe delete asks its questions together").
 */
export const PREGUNTAS_A_LA_VEZ = 8;

/**
 * Kept of the caller's deadline once the questions end, for the delete's second attempt and the
 * answer, plus RETIRO_MS per product for its write-out (a few short transactions: 9 to 23 ms each
 * measured, quiet machine to loaded): a producto-svc slow to answer turns into the refusal, never
 * into the caller's DEADLINE_EXCEEDED.
 */
export const RESERVA_MS = 500;
export const RETIRO_MS = 30;

/** Less than this left for the questions (past the reserve): refused as before, nobody asked. */
export const PREGUNTAS_MINIMO_MS = 250;

export interface EliminadosEnBodega {
  /**
   * Writes out of every warehouse, as the ProductoEliminado consumer does (docs/contract.md §7.6),
   * each product `bodegaId` holds once producto-svc confirms it deleted them all. True when it did,
   * so the delete is worth trying again; false, with nothing written, when the warehouse holds
   * more than ELIMINADOS_POR_BORRADO levels or a product producto-svc has, or producto-svc cannot
   * say (never guessed), or `caller`'s deadline leaves no time to ask.
   */
  retirar(bodegaId: number, caller?: Pick<CallContext, 'deadline'>): Promise<boolean>;
}

function sinRespuesta(err: unknown): false {
  if (err instanceof UnavailableError) return false;
  throw err;
}

export function createEliminadosEnBodega({
  store,
  productos,
}: {
  store: Pick<ExistenciaStore, 'productosEnBodega' | 'retirarProductoEliminado'>;
  productos: Pick<ProductoLookup, 'wasDeleted'>;
}): EliminadosEnBodega {
  return {
    async retirar(bodegaId, caller = {}) {
      const ids = await store.productosEnBodega(bodegaId, ELIMINADOS_POR_BORRADO + 1);
      if (ids.length === 0 || ids.length > ELIMINADOS_POR_BORRADO) return false;
      // Every question ends by `hasta`: one unanswered by then is no answer, and the rest of the pass fits after it.
      const hasta = (caller.deadline ?? Infinity) - RESERVA_MS - ids.length * RETIRO_MS;
      if (hasta - Date.now() < PREGUNTAS_MINIMO_MS) return false;
      // One live product, or no answer, keeps the refusal: nothing more is asked, the rest are left to the consumer.
      const todosEliminados = await everyWithLimit(ids, PREGUNTAS_A_LA_VEZ, (id) =>
        productos.wasDeleted(id, hasta).catch(sinRespuesta),
      );
      if (!todosEliminados) return false;
      // Each in its own transactions, before the delete's and outside it: the consumer's lock order, nothing held.
      for (const id of ids) await store.retirarProductoEliminado(id);
      return true;
    },
  };
}
