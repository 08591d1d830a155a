import DataLoader from 'dataloader';
import type { Bodega, Existencia, Producto } from '@inventario/contract';
import type { Caller, InventarioApi } from '../inventario/model';
import type { ExecutionGuard } from './execution-limits';
import type { Page } from './pagination';

/** One parent's page of a relation list: `Bodega.productos(first, after)` and the like. */
export interface PageOfKey extends Page {
  /** The parent's id (the warehouse's, the product's). */
  parentId: number;
  /** Products read without `descripcion` (fields that do not select it). */
  sinDescripcion?: boolean;
}

/**
 * Per-request batching of the additive relation fields (docs/contract.md
 * §4.3, §10.3: no N+1): every `Producto.bodega` (and `Existencia.bodega`,
 * `Movimiento.bodega`) of one execution level becomes one `bodegasPorIds` call,
 * every `Existencia.producto` and `Movimiento.producto` one `productosPorIds`
 * call, every `Bodega.productos` one `productosDeBodegas` call, every
 * `Bodega.existencias` one `existenciasDeBodegas` call and every
 * `Producto.existencias` one `existenciasDeProductos` call (a list one per
 * distinct `first`/`after`, when the fields of one level ask for different
 * pages). Created per request because the cache must not outlive the caller's
 * request (nor leak one user's reads to another).
 */
export interface Loaders {
  /** The warehouse with this id, or null when it does not exist. */
  bodegaPorId: DataLoader<number, Bodega | null>;
  /** The product with this id, or null when it does not exist. */
  productoPorId: DataLoader<number, Producto | null>;
  /** A page of the products a warehouse holds, in id order (empty for an unknown warehouse). */
  productosDeBodega: DataLoader<PageOfKey, Producto[], string>;
  /** A page of a warehouse's levels, in product id order (`after`: a product id). */
  existenciasDeBodega: DataLoader<PageOfKey, Existencia[], string>;
  /** A page of a product's levels, in warehouse id order (`after`: a warehouse id). */
  existenciasDeProducto: DataLoader<PageOfKey, Existencia[], string>;
  /** Forgets every cached read: called after a write so later fields see it. */
  clearAll(): void;
}

const pageKey = (page: Page & { sinDescripcion?: boolean }) =>
  `${page.first ?? ''}/${page.afterId ?? ''}/${page.sinDescripcion ? 's' : ''}`;
const pageOfKey = (key: PageOfKey) => `${key.parentId}:${pageKey(key)}`;

/** A batch read of one page of each parent: its items of every parent, in any order. */
type ReadPages<V> = (
  parentIds: number[],
  page: { perParent?: number; afterId?: number; maxTotal: number; sinDescripcion?: boolean; signal: AbortSignal },
) => Promise<V[]>;

/**
 * A loader of a relation list: the keys of one batch are grouped by page
 * (`first`/`after`), and each group is one `read` of every parent in it,
 * whose items are then dealt out by `parentOf`. Items are read no further
 * than the request's node cap allows (`guard`): more could only be refused.
 */
function pageOfLoader<V>(
  guard: ExecutionGuard,
  read: ReadPages<V>,
  parentOf: (item: V) => number | null,
): DataLoader<PageOfKey, V[], string> {
  return new DataLoader<PageOfKey, V[], string>(
    async (keys) => {
      const pages = new Map<string, PageOfKey[]>();
      for (const key of keys) {
        const page = pages.get(pageKey(key));
        if (page) page.push(key);
        else pages.set(pageKey(key), [key]);
      }
      const byKey = new Map<string, V[]>();
      await Promise.all(
        [...pages.values()].map(async (page) => {
          const { first, afterId, sinDescripcion } = page[0]!;
          const parentIds = page.map((key) => key.parentId);
          const items = await guard.readList(first === undefined ? undefined : first * parentIds.length, (maxTotal) =>
            read(parentIds, { perParent: first, afterId, maxTotal, sinDescripcion, signal: guard.signal }),
          );
          const byParent = new Map<number, V[]>(page.map((key) => [key.parentId, []]));
          for (const item of items) {
            const parentId = parentOf(item);
            if (parentId !== null) byParent.get(parentId)?.push(item);
          }
          // Counted once, as the batch: each warehouse's own list is not counted again.
          guard.markCounted(byParent.values());
          for (const key of page) byKey.set(pageOfKey(key), byParent.get(key.parentId) ?? []);
        }),
      );
      return keys.map((key) => byKey.get(pageOfKey(key)) ?? []);
    },
    { cacheKeyFn: pageOfKey },
  );
}

/** A loader of records by id: one `read` per batch, null for an id it did not return. */
function byIdLoader<V extends { id: number }>(
  read: (ids: readonly number[]) => Promise<V[]>,
): DataLoader<number, V | null> {
  return new DataLoader<number, V | null>(async (ids) => {
    const byId = new Map((await read(ids)).map((record) => [record.id, record]));
    return ids.map((id) => byId.get(id) ?? null);
  });
}

/** Made on first use and kept: most requests use none of their loaders, and five cost a cached read (issue 23). */
function once<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

/**
 * One batch is one InventarioApi call per distinct page, whatever its size:
 * InventarioApi splits an id list into the chunks the services' filters
 * accept.
 */
export function createLoaders(inventario: InventarioApi, caller: Caller, guard: ExecutionGuard): Loaders {
  const made: { clearAll(): void }[] = [];
  const kept = <T extends { clearAll(): void }>(make: () => T) =>
    once(() => {
      const loader = make();
      made.push(loader);
      return loader;
    });
  const bodegaPorId = kept(() => byIdLoader((ids) => inventario.bodegasPorIds(caller, ids)));
  const productoPorId = kept(() => byIdLoader((ids) => inventario.productosPorIds(caller, ids)));
  const productosDeBodega = kept(() =>
    pageOfLoader(
      guard,
      (bodegaIds, { perParent, ...page }) =>
        inventario.productosDeBodegas(caller, bodegaIds, { perBodega: perParent, ...page }),
      (producto) => producto.bodegaId,
    ),
  );
  const existenciasDeBodega = kept(() =>
    pageOfLoader(
      guard,
      (bodegaIds, page) => inventario.existenciasDeBodegas(caller, bodegaIds, page),
      (existencia) => existencia.bodegaId,
    ),
  );
  const existenciasDeProducto = kept(() =>
    pageOfLoader(
      guard,
      (productoIds, page) => inventario.existenciasDeProductos(caller, productoIds, page),
      (existencia) => existencia.productoId,
    ),
  );

  return {
    get bodegaPorId() {
      return bodegaPorId();
    },
    get productoPorId() {
      return productoPorId();
    },
    get productosDeBodega() {
      return productosDeBodega();
    },
    get existenciasDeBodega() {
      return existenciasDeBodega();
    },
    get existenciasDeProducto() {
      return existenciasDeProducto();
    },
    clearAll() {
      for (const loader of made) loader.clearAll();
    },
  };
}
