import DataLoader from 'dataloader';
import type { Bodega, Caller, InventarioApi, Producto } from '../inventario/model';

/**
 * Per-request batching of the additive relation fields (ARCHITECTURE §3, no
 * N+1): every `Producto.bodega` of one execution level becomes one
 * `bodegasPorIds` call, every `Bodega.productos` one `productosDeBodegas`
 * call. Created per request because the cache must not outlive the caller's
 * request (nor leak one user's reads to another).
 */
export interface Loaders {
  /** The warehouse with this id, or null when it does not exist. */
  bodegaPorId: DataLoader<number, Bodega | null>;
  /** The products a warehouse holds (empty for an unknown warehouse). */
  productosDeBodega: DataLoader<number, Producto[]>;
  /** Forgets every cached read: called after a write so later fields see it. */
  clearAll(): void;
}

/**
 * One batch is one InventarioApi call, whatever its size: InventarioApi
 * splits an id list into the chunks the services' filters accept.
 */
export function createLoaders(inventario: InventarioApi, caller: Caller): Loaders {
  const bodegaPorId = new DataLoader<number, Bodega | null>(async (ids) => {
    const bodegas = await inventario.bodegasPorIds(caller, ids);
    const byId = new Map(bodegas.map((bodega) => [bodega.id, bodega]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  const productosDeBodega = new DataLoader<number, Producto[]>(async (bodegaIds) => {
    const productos = await inventario.productosDeBodegas(caller, bodegaIds);
    const byBodega = new Map<number, Producto[]>(bodegaIds.map((id) => [id, []]));
    for (const producto of productos) {
      if (producto.bodegaId !== null) byBodega.get(producto.bodegaId)?.push(producto);
    }
    return bodegaIds.map((id) => byBodega.get(id) ?? []);
  });

  return {
    bodegaPorId,
    productosDeBodega,
    clearAll() {
      bodegaPorId.clearAll();
      productosDeBodega.clearAll();
    },
  };
}
