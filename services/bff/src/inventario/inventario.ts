import { InvalidArgumentError } from '@inventario/platform';
import type { BodegaClient } from '../downstream/bodega-client';
import type { ExistenciaClient } from '../downstream/existencia-client';
import type { ProductoClient } from '../downstream/producto-client';
import { ServicioNoDisponibleError } from './errors';
import { createExistencias } from './existencias';
import { createExistenciasPorLote } from './existencias-por-lote';
import type { Bodega, BodegaPatch, Producto, ProductoPatch } from '@inventario/contract';
import { conditional } from './if-match';
import type { Caller, InventarioApi, ListPage, ProductoFilter, ProductosDeBodegasPage, ProductosJson } from './model';
import { chunks, collect, counted, PAGE_SIZE, pagesOf, readInChunks, STREAM_PAGE_SIZE } from './paging';
import { safeDelete } from './safe-delete';
import { createStockDeBodega, type StockDeBodega } from './stock-de-bodega';

export interface InventarioDeps {
  productos: ProductoClient;
  bodegas: BodegaClient;
  /** bodega-svc's stock levels and ledger. */
  existencias: ExistenciaClient;
  /**
   * Called with `version_mismatch` when the BFF itself refuses a write on its
   * If-Match (the early check of a warehouse delete, `*` on a missing
   * record); the services' refusals are counted where their answer arrives.
   */
  onSafeWriteOutcome?: (outcome: 'version_mismatch') => void;
}

/** The campo of a violation about the request as a whole (e.g. an update with nothing to change). */
export const CUERPO = 'cuerpo';

function requireSomething(patch: object, updatable: readonly string[]): void {
  const present = Object.entries(patch).some(([key, value]) => updatable.includes(key) && value !== undefined);
  if (!present) {
    throw InvalidArgumentError.field(
      CUERPO,
      `no contiene ningún campo actualizable (admitidos: ${updatable.join(', ')})`,
    );
  }
}

const PRODUCTO_UPDATABLE = ['nombre', 'descripcion', 'precio', 'cantidadEnStock', 'bodegaId'] as const;
const BODEGA_UPDATABLE = ['nombre', 'ubicacion', 'capacidad'] as const;

/** What the use cases below read: the clients, the safe delete's stock side and the write-outcome hook. */
interface UseCaseDeps extends InventarioDeps {
  stock: StockDeBodega;
}

/**
 * The BFF's use cases over producto-svc and bodega-svc, shared by REST and
 * GraphQL. The services own the rules (a product's `bodegaId` is producto-svc's
 * to check with bodega-svc); what still spans both services here is the
 * warehouse safe delete (docs/contract.md §2.7).
 */
export function createInventario({
  productos,
  bodegas,
  existencias,
  onSafeWriteOutcome,
}: InventarioDeps): InventarioApi {
  const stock = createStockDeBodega({ productos, existencias });
  const deps: UseCaseDeps = { productos, bodegas, existencias, onSafeWriteOutcome, stock };

  return {
    ...createExistencias({ productos, bodegas, existencias }),
    // GraphQL's batched relation reads.
    ...createExistenciasPorLote({ existencias }),
    productosPorIds: (caller, ids) => stock.productosPorIds(caller, ids),

    listProductos: (caller, filter = {}) => collect(productoPages(deps, caller, filter, PAGE_SIZE)),

    productoPages: (caller, filter = {}) => productoJsonPages(deps, caller, filter),

    getProducto: (caller, id) => productos.get(caller, id),

    productosDeBodegas: (caller, bodegaIds, page = {}) =>
      readInChunks(bodegaIds, page.maxTotal, (ids, maxTotal) =>
        pageOfProductosOf(deps, caller, ids, { ...page, maxTotal }),
      ),

    // producto-svc asks bodega-svc whether a bodegaId exists: the product's fields are its to judge.
    createProducto: (caller, input, write = {}) => productos.create(caller, input, write),

    async updateProducto(caller, id, patch: ProductoPatch, write = {}) {
      requireSomething(patch, PRODUCTO_UPDATABLE);
      return conditional(deps, write, () => productos.update(caller, id, patch, write));
    },

    deleteProducto: (caller, id, write = {}) => conditional(deps, write, () => productos.delete(caller, id, write)),

    listBodegas: (caller, page = {}) => collect(bodegaPages(deps, caller, page, PAGE_SIZE)),

    bodegaPages: (caller) => bodegaPages(deps, caller, {}, STREAM_PAGE_SIZE),

    getBodega: (caller, id) => bodegas.get(caller, id),

    bodegasPorIds: (caller, ids) => bodegasPorIds(deps, caller, ids),

    createBodega: (caller, input, write = {}) => bodegas.create(caller, input, write),

    async updateBodega(caller, id, patch: BodegaPatch, write = {}) {
      requireSomething(patch, BODEGA_UPDATABLE);
      return conditional(deps, write, () => bodegas.update(caller, id, patch, write));
    },

    deleteBodega: (caller, id, { force }, write = {}) => safeDelete(deps, caller, id, force, write),
  };
}

/**
 * Products of at most PAGE_SIZE warehouses, in id order, at most `perBodega` of each after `afterId`:
 * producto-svc counts each warehouse's (ListProductos' per_bodega), so a page of a big warehouse
 * costs no read past it. Read no further than `maxTotal`.
 */
async function pageOfProductosOf(
  { productos }: Pick<UseCaseDeps, 'productos'>,
  caller: Caller,
  bodegaIds: number[],
  page: ProductosDeBodegasPage,
): Promise<Producto[]> {
  const { perBodega, afterId, sinDescripcion, signal } = page;
  const wanted = Math.min(page.maxTotal ?? Infinity, (perBodega ?? Infinity) * bodegaIds.length);
  const items = await collect(
    pagesOf(
      wanted,
      async (pageSize, pageToken) => {
        const { productos: items, nextPageToken } = await productos.list(caller, {
          pageSize,
          pageToken,
          bodegaIds,
          sinDescripcion,
          perBodega,
          perBodegaAfterId: perBodega === undefined ? undefined : afterId,
        });
        return { items, nextPageToken };
      },
      { afterId, pageSize: PAGE_SIZE, signal },
    ),
  );
  if (perBodega !== undefined) requirePerBodegaHonoured(items, perBodega);
  return items;
}

function productoPages(
  { productos }: Pick<UseCaseDeps, 'productos'>,
  caller: Caller,
  filter: ProductoFilter,
  pageSize: number,
): AsyncIterable<Producto[]> {
  let first = true;
  return pagesOf(
    filter.limit ?? Infinity,
    async (size, pageToken) => {
      // `skip` counts from the start of the list: the first page only.
      const skip = first ? (filter.offset ?? 0) : 0;
      first = false;
      const page = await productos.list(caller, {
        pageSize: size,
        pageToken,
        skip,
        bodegaIds: filter.bodegaIds,
        nombreContains: filter.q,
        sinDescripcion: filter.sinDescripcion,
      });
      return { items: page.productos, nextPageToken: page.nextPageToken };
    },
    { afterId: filter.afterId, pageSize, signal: filter.signal },
  );
}

/**
 * The REST list's pages: full pages in the REST JSON form producto-svc
 * writes, passed through (docs/decisions.md, "Lists at database speed"),
 * or as products from a producto-svc that does not write it.
 */
function productoJsonPages(
  { productos }: Pick<UseCaseDeps, 'productos'>,
  caller: Caller,
  filter: ProductoFilter,
): AsyncIterable<Producto[] | ProductosJson> {
  let first = true;
  return counted<Producto[] | ProductosJson>(
    filter.limit ?? Infinity,
    async (pageSize, pageToken) => {
      // `skip` counts from the start of the list: the first page only.
      const skip = first ? (filter.offset ?? 0) : 0;
      first = false;
      const page = await productos.list(caller, {
        pageSize,
        pageToken,
        skip,
        bodegaIds: filter.bodegaIds,
        nombreContains: filter.q,
        restJson: true,
      });
      const { json } = page;
      return json
        ? { page: json, count: json.count, nextPageToken: page.nextPageToken }
        : { page: page.productos, count: page.productos.length, nextPageToken: page.nextPageToken };
    },
    { afterId: filter.afterId, pageSize: PAGE_SIZE },
  );
}

function bodegaPages(
  { bodegas }: Pick<UseCaseDeps, 'bodegas'>,
  caller: Caller,
  page: ListPage,
  pageSize: number,
): AsyncIterable<Bodega[]> {
  return pagesOf(
    page.limit ?? Infinity,
    async (size, pageToken) => {
      const list = await bodegas.list(caller, { pageSize: size, pageToken });
      return { items: list.bodegas, nextPageToken: list.nextPageToken };
    },
    { afterId: page.afterId, pageSize, signal: page.signal },
  );
}

async function bodegasPorIds(
  { bodegas }: Pick<UseCaseDeps, 'bodegas'>,
  caller: Caller,
  ids: readonly number[],
): Promise<Bodega[]> {
  const pages = await Promise.all(
    chunks(ids).map((chunk) =>
      collect(
        pagesOf<Bodega>(Infinity, async (pageSize, pageToken) => {
          const page = await bodegas.list(caller, { pageSize, pageToken, ids: chunk });
          return { items: page.bodegas, nextPageToken: page.nextPageToken };
        }),
      ),
    ),
  );
  return pages.flat();
}

/** How long a client should wait out a rollout that left producto-svc behind the BFF. */
const ROLLOUT_RETRY_AFTER_S = 30;

/**
 * A producto-svc older than `per_bodega` answers every product of the warehouses: an error (503 naming
 * producto-svc), never a page with more than `first` products of a warehouse (docs/operations.md, upgrades).
 */
function requirePerBodegaHonoured(items: readonly Producto[], perBodega: number): void {
  const counts = new Map<number | null, number>();
  for (const { bodegaId } of items) {
    const n = (counts.get(bodegaId) ?? 0) + 1;
    if (n > perBodega) throw new ServicioNoDisponibleError('producto-svc', ROLLOUT_RETRY_AFTER_S);
    counts.set(bodegaId, n);
  }
}
