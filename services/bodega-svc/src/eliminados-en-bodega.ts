import { UnavailableError } from '@inventario/platform';
import type { ProductoLookup } from './grpc/producto-lookup';
import type { ExistenciaStore } from './store/existencia-store';

/**
 * Products a safe delete may find deleted but not yet written out: past this many levels the
 * warehouse is refused as before, unasked, so one delete costs at most this many questions to
 * producto-svc and write-outs (docs/decisions.md, "A safe delete does the write-out it waits for").
 */
export const ELIMINADOS_POR_BORRADO = 100;

export interface EliminadosEnBodega {
  /**
   * Writes out of every warehouse, as the ProductoEliminado consumer does (docs/contract.md §7.6),
   * each product `bodegaId` holds once producto-svc confirms it deleted them all. True when it did,
   * so the delete is worth trying again; false, with nothing written, when the warehouse holds
   * more than ELIMINADOS_POR_BORRADO levels or a product producto-svc has, or producto-svc cannot
   * say (never guessed).
   */
  retirar(bodegaId: number): Promise<boolean>;
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
    async retirar(bodegaId) {
      const ids = await store.productosEnBodega(bodegaId, ELIMINADOS_POR_BORRADO + 1);
      if (ids.length === 0 || ids.length > ELIMINADOS_POR_BORRADO) return false;
      for (const id of ids) {
        // One live product, or no answer, keeps the refusal: the rest are left to the consumer.
        if (!(await productos.wasDeleted(id).catch(sinRespuesta))) return false;
      }
      // Each in its own transactions, before the delete's and outside it: the consumer's lock order, nothing held.
      for (const id of ids) await store.retirarProductoEliminado(id);
      return true;
    },
  };
}
