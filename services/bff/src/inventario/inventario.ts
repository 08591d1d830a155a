import { randomUUID } from 'node:crypto';
import {
  boundedPrefix,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  PRODUCTO_SAMPLE_LIMITS,
  VersionMismatchError,
} from '@inventario/platform';
import type { BodegaClient, ExistenciasRetiradas } from '../downstream/bodega-client';
import type { ExistenciaClient } from '../downstream/existencia-client';
import type { ProductoClient } from '../downstream/producto-client';
import { BodegaConProductosError, ServicioNoDisponibleError } from './errors';
import { createExistencias } from './existencias';
import { createExistenciasPorLote } from './existencias-por-lote';
import type { Bodega, BodegaDeleteResult, BodegaPatch, Producto, ProductoPatch } from '@inventario/contract';
import type {
  Caller,
  InventarioApi,
  ListPage,
  ProductoFilter,
  ProductosDeBodegasPage,
  ProductosJson,
  WriteOptions,
} from './model';
import { chunks, collect, counted, PAGE_SIZE, pagesOf, readInChunks, STREAM_PAGE_SIZE } from './paging';
import { createStockDeBodega, type StockDeBodega, unionById } from './stock-de-bodega';

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

/**
 * Transactions per DeleteBodega call of a forced delete (each writes out at
 * most 500 levels; bodega-svc adds at most one chunk of its unassignment):
 * every call stays well inside its deadline whatever the warehouse holds.
 */
export const DELETE_CHUNKS_PER_CALL = 4;

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
 * Runs a write of an existing record under `If-Match: *`, which asks only
 * that the record exist: without it the answer is a failed precondition
 * (HTTP semantics), not a plain 404. A numeric If-Match is the service's
 * to check, inside the write's transaction.
 */
async function conditional<T>(
  deps: Pick<UseCaseDeps, 'onSafeWriteOutcome'>,
  write: WriteOptions,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw failureUnder(deps, write, err);
  }
}

/** What a failure of a write means under its If-Match (see conditional). */
function failureUnder(
  { onSafeWriteOutcome }: Pick<UseCaseDeps, 'onSafeWriteOutcome'>,
  write: WriteOptions,
  err: unknown,
): unknown {
  if (write.ifMatch !== '*' || !(err instanceof NotFoundError)) return err;
  onSafeWriteOutcome?.('version_mismatch');
  return new VersionMismatchError(null, `el recurso no existe (${err.message})`);
}

/** The early check of a condition on a record the BFF has read; the service checks again when it writes. */
function requireIfMatch(
  { onSafeWriteOutcome }: Pick<UseCaseDeps, 'onSafeWriteOutcome'>,
  current: { version: number },
  write: WriteOptions,
): void {
  if (typeof write.ifMatch !== 'number' || write.ifMatch === current.version) return;
  onSafeWriteOutcome?.('version_mismatch');
  throw VersionMismatchError.of(current.version, write.ifMatch);
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

/**
 * Safe delete (docs/contract.md §2.7, §10.2). The warehouse must exist
 * before any product is touched (NotFoundError), and match If-Match.
 * Without force, a warehouse holding products, assigned to it or with units
 * there, is refused with them counted and the first listed (also when
 * bodega-svc finds stock the check did not: BODEGA_CON_EXISTENCIAS).
 *
 * With force, bodega-svc first marks the warehouse as being deleted under
 * If-Match, in one transaction: nothing changes unless the version matches
 * then, and from then on its updates and stock writes are refused, so the
 * version still matches when the delete commits (issue 21, item 6). Only
 * then does bodega-svc unassign its products (they remain; it asks
 * producto-svc) and write its stock out and delete the warehouse, in
 * bounded transactions (item 7).
 * A product assigned meanwhile is unassigned by producto-svc when it sees
 * BodegaEliminada.
 *
 * With an idempotency key every step carries it, so a retry after any
 * failure completes what is left and replays what was done: the
 * unassignment returns the list it first returned, the delete its figures.
 * The warehouse is then already gone, so the existence check lets a
 * keyed request through to the services, which replay or answer 404.
 * Without one the progress is kept all the same (the mark, and the
 * figures with the warehouse): any later forced delete completes it.
 */
async function safeDelete(
  deps: UseCaseDeps,
  caller: Caller,
  id: number,
  force: boolean,
  write: WriteOptions,
): Promise<BodegaDeleteResult> {
  const { bodegas, stock } = deps;
  const bodega = await bodegas.get(caller, id).catch((err: unknown) => {
    if (err instanceof NotFoundError && write.idempotencyKey !== undefined) return undefined;
    throw failureUnder(deps, write, err);
  });
  if (bodega) requireIfMatch(deps, bodega, write);
  if (force) {
    // The version checked where it is kept, before anything changes; it cannot change after.
    if (bodega) await conditional(deps, write, () => bodegas.marcarEliminacion(caller, id, write));
    // Read before the unassignment clears it; a retry that finds the warehouse gone learns it from the report.
    const stockAsignado = bodega ? await stock.stockAsignado(caller, id) : new Set<number>();
    const { existenciasRetiradas, unidadesRetiradas, desasignados } = await conditional(deps, write, () =>
      deleteAll(deps, caller, id, write),
    );
    const report = await forcedReport(deps, caller, id, {
      afectados: desasignados,
      stockAsignado,
      existenciasRetiradas,
    });
    return { kind: 'forced', bodegaId: id, ...report, existenciasRetiradas, unidadesRetiradas };
  }
  if (bodega) {
    const conflict = await conflictOf(deps, caller, id);
    if (conflict) throw conflict;
  }
  try {
    await conditional(deps, write, () => bodegas.delete(caller, id, write));
  } catch (err) {
    // Stock that arrived after the check: the same conflict, listed as it is now.
    if (err instanceof FailedPreconditionError && err.reason === 'BODEGA_CON_EXISTENCIAS')
      throw (await conflictOf(deps, caller, id)) ?? err;
    throw err;
  }
  return { kind: 'deleted' };
}

/**
 * bodega-svc unassigns the products (through producto-svc), writes the stock out and deletes the
 * warehouse, a few bounded steps per call, resuming where the last call stopped. All calls carry
 * one key (the request's, or one made here), so the unassignment's report covers them all. A call
 * replays (write.onReplay) only when its key's deletion had completed before it began.
 */
async function deleteAll(
  { bodegas }: Pick<UseCaseDeps, 'bodegas'>,
  caller: Caller,
  bodegaId: number,
  write: WriteOptions,
): Promise<ExistenciasRetiradas> {
  const keyed: WriteOptions = { ...write, idempotencyKey: write.idempotencyKey ?? `bff-${randomUUID()}` };
  for (;;) {
    const result = await bodegas.delete(caller, bodegaId, keyed, {
      retirarExistencias: true,
      desasignarProductos: true,
      maxChunks: DELETE_CHUNKS_PER_CALL,
    });
    if (!result.pendiente) return result;
  }
}

/**
 * A forced delete's report: every product it took out of the warehouse,
 * by its assignment (`afectados`) or its units (written out), counted
 * once. A product both assigned and stocked is known as such from before
 * the unassignment (`stockAsignado`) or from the unassignment's report;
 * the first ones of both, as they are afterwards, make the sample.
 */
async function forcedReport(
  { stock }: Pick<UseCaseDeps, 'stock'>,
  caller: Caller,
  bodegaId: number,
  {
    afectados,
    stockAsignado,
    existenciasRetiradas,
  }: {
    afectados: { productos: Producto[]; total: number };
    stockAsignado: ReadonlySet<number>;
    existenciasRetiradas: number;
  },
): Promise<{ productos: Producto[]; total: number }> {
  if (existenciasRetiradas === 0) return { productos: afectados.productos, total: afectados.total };
  const retirados = await stock.productosRetirados(caller, bodegaId, existenciasRetiradas);
  const desasignados = new Set(afectados.productos.map((p) => p.id));
  const soloRetirados = retirados.filter((id) => !stockAsignado.has(id) && !desasignados.has(id));
  const [otros, primeros] = await Promise.all([
    stock.countProductos(caller, soloRetirados),
    stock.productosPorIds(caller, retirados.slice(0, PRODUCTO_SAMPLE_LIMITS.maxItems)),
  ]);
  return {
    productos: boundedPrefix(unionById(afectados.productos, primeros), PRODUCTO_SAMPLE_LIMITS),
    total: afectados.total + otros,
  };
}

/** The safe delete's 409 for the warehouse: what holds it now, assigned or stocked. */
async function conflictOf(
  { stock }: Pick<UseCaseDeps, 'stock'>,
  caller: Caller,
  bodegaId: number,
): Promise<BodegaConProductosError | undefined> {
  const held = await stock.productosRetenidos(caller, bodegaId);
  return held.total > 0
    ? new BodegaConProductosError(bodegaId, held.productos, held.total, held.conExistencias)
    : undefined;
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
