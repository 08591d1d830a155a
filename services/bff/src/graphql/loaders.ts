import DataLoader from 'dataloader';
import type { Bodega, Caller, InventarioApi, Producto } from '../inventario/model';
import type { ExecutionGuard } from './execution-limits';
import type { Page } from './pagination';

/** One warehouse's page of products: `Bodega.productos(first, after)`. */
export interface ProductosDeBodegaKey extends Page {
  bodegaId: number;
}

/**
 * Per-request batching of the additive relation fields (ARCHITECTURE §3, no
 * N+1): every `Producto.bodega` of one execution level becomes one
 * `bodegasPorIds` call, every `Bodega.productos` one `productosDeBodegas`
 * call (one per distinct `first`/`after`, when the fields of one level ask
 * for different pages). Created per request because the cache must not
 * outlive the caller's request (nor leak one user's reads to another).
 */
export interface Loaders {
  /** The warehouse with this id, or null when it does not exist. */
  bodegaPorId: DataLoader<number, Bodega | null>;
  /** A page of the products a warehouse holds, in id order (empty for an unknown warehouse). */
  productosDeBodega: DataLoader<ProductosDeBodegaKey, Producto[], string>;
  /** Forgets every cached read: called after a write so later fields see it. */
  clearAll(): void;
}

const pageKey = (page: Page) => `${page.first ?? ''}/${page.afterId ?? ''}`;
const productosKey = (key: ProductosDeBodegaKey) => `${key.bodegaId}:${pageKey(key)}`;

/**
 * One batch is one InventarioApi call per distinct page, whatever its size:
 * InventarioApi splits an id list into the chunks the services' filters
 * accept. Products are read no further than the request's node cap allows
 * (`guard`): more could only be refused.
 */
export function createLoaders(inventario: InventarioApi, caller: Caller, guard: ExecutionGuard): Loaders {
  const bodegaPorId = new DataLoader<number, Bodega | null>(async (ids) => {
    const bodegas = await inventario.bodegasPorIds(caller, ids);
    const byId = new Map(bodegas.map((bodega) => [bodega.id, bodega]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  const productosDeBodega = new DataLoader<ProductosDeBodegaKey, Producto[], string>(
    async (keys) => {
      const pages = new Map<string, ProductosDeBodegaKey[]>();
      for (const key of keys) {
        const page = pages.get(pageKey(key));
        if (page) page.push(key);
        else pages.set(pageKey(key), [key]);
      }
      const byKey = new Map<string, Producto[]>();
      await Promise.all(
        [...pages.values()].map(async (page) => {
          const { first, afterId } = page[0]!;
          guard.check();
          const productos = await inventario.productosDeBodegas(
            caller,
            page.map((key) => key.bodegaId),
            { perBodega: first, afterId, maxTotal: guard.remainingNodes() + 1 },
          );
          const byBodega = new Map<number, Producto[]>(page.map((key) => [key.bodegaId, []]));
          for (const producto of productos) {
            if (producto.bodegaId !== null) byBodega.get(producto.bodegaId)?.push(producto);
          }
          for (const key of page) byKey.set(productosKey(key), byBodega.get(key.bodegaId) ?? []);
        }),
      );
      return keys.map((key) => byKey.get(productosKey(key)) ?? []);
    },
    { cacheKeyFn: productosKey },
  );

  return {
    bodegaPorId,
    productosDeBodega,
    clearAll() {
      bodegaPorId.clearAll();
      productosDeBodega.clearAll();
    },
  };
}
