import { randomUUID } from 'node:crypto';
import {
  boundedPrefix,
  encodePageToken,
  InvalidArgumentError,
  NotFoundError,
  PRODUCTO_SAMPLE_LIMITS,
  requirePositiveId,
  VersionMismatchError,
} from '@inventario/platform';
import type { BodegaClient } from '../downstream/bodega-client';
import type { ProductoClient, UnassignResult } from '../downstream/producto-client';
import { BodegaConProductosError } from './errors';
import type {
  Bodega,
  BodegaPatch,
  Caller,
  InventarioApi,
  ListPage,
  Producto,
  ProductoFilter,
  ProductoPatch,
  ProductosDeBodegasPage,
  WriteOptions,
} from './model';

export interface InventarioDeps {
  productos: ProductoClient;
  bodegas: BodegaClient;
  /**
   * Called with `version_mismatch` when the BFF itself refuses a write on its
   * If-Match (the early check of a warehouse delete, `*` on a missing
   * record); the services' refusals are counted where their answer arrives.
   */
  onSafeWriteOutcome?: (outcome: 'version_mismatch') => void;
}

/** The services' largest page, and the most ids one list filter may name. */
const PAGE_SIZE = 1000;

/**
 * Chunks per UnassignBodega call of a forced delete (each chunk at most 500
 * products and 4 MiB of events): every call stays well inside its deadline
 * whatever the warehouse holds, so a big warehouse never makes a call time
 * out and count against the breaker.
 */
export const UNASSIGN_CHUNKS_PER_CALL = 2;

/** The campo of a violation about the request as a whole (e.g. an update with nothing to change). */
export const CUERPO = 'cuerpo';

/** The services' page token of a list that continues after `afterId` (their tokens are keyset cursors on the id). */
function tokenAfter(afterId: number | undefined): string | undefined {
  return afterId === undefined ? undefined : encodePageToken(afterId);
}

/** Follows next-page tokens, from the one that starts after `afterId`, until `wanted` items are collected or the list ends. */
async function collect<T>(
  wanted: number,
  fetchPage: (pageSize: number, pageToken: string | undefined) => Promise<{ items: T[]; nextPageToken: string }>,
  afterId?: number,
): Promise<T[]> {
  const out: T[] = [];
  let pageToken = tokenAfter(afterId);
  while (out.length < wanted) {
    const page = await fetchPage(Math.min(PAGE_SIZE, wanted - out.length), pageToken);
    out.push(...page.items);
    if (page.nextPageToken === '') break;
    pageToken = page.nextPageToken;
  }
  return out;
}

/** Splits ids into lists the services accept in one filter. */
function chunks(ids: readonly number[]): number[][] {
  const unique = [...new Set(ids)];
  const out: number[][] = [];
  for (let i = 0; i < unique.length; i += PAGE_SIZE) out.push(unique.slice(i, i + PAGE_SIZE));
  return out;
}

function requireSomething(patch: object, updatable: readonly string[]): void {
  const present = Object.entries(patch).some(([key, value]) => updatable.includes(key) && value !== undefined);
  if (!present) {
    throw InvalidArgumentError.field(CUERPO, `no contiene ningún campo actualizable (admitidos: ${updatable.join(', ')})`);
  }
}

/**
 * Runs a write of an existing record under `If-Match: *`, which asks only
 * that the record exist: without it the answer is a failed precondition
 * (HTTP semantics), not a plain 404. A numeric If-Match is the service's
 * to check, inside the write's transaction.
 */

const PRODUCTO_UPDATABLE = ['nombre', 'descripcion', 'precio', 'cantidadEnStock', 'bodegaId'] as const;
const BODEGA_UPDATABLE = ['nombre', 'ubicacion', 'capacidad'] as const;

/**
 * The BFF's use cases over producto-svc and bodega-svc, shared by REST and
 * GraphQL. The services own the field rules; what spans both services lives
 * here: a product's `bodegaId` must name an existing warehouse, and the
 * warehouse safe delete (ARCHITECTURE §6).
 */
export function createInventario({ productos, bodegas, onSafeWriteOutcome }: InventarioDeps): InventarioApi {
  /**
   * Runs a write of an existing record under `If-Match: *`, which asks only
   * that the record exist: without it the answer is a failed precondition
   * (HTTP semantics), not a plain 404. A numeric If-Match is the service's
   * to check, inside the write's transaction.
   */
  async function conditional<T>(write: WriteOptions, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw failureUnder(write, err);
    }
  }

  /** What a failure of a write means under its If-Match (see conditional). */
  function failureUnder(write: WriteOptions, err: unknown): unknown {
    if (write.ifMatch !== '*' || !(err instanceof NotFoundError)) return err;
    onSafeWriteOutcome?.('version_mismatch');
    return new VersionMismatchError(null, `el recurso no existe (${err.message})`);
  }

  /** The early check of a condition on a record the BFF has read; the service checks again when it writes. */
  function requireIfMatch(current: { version: number }, write: WriteOptions): void {
    if (typeof write.ifMatch !== 'number' || write.ifMatch === current.version) return;
    onSafeWriteOutcome?.('version_mismatch');
    throw VersionMismatchError.of(current.version, write.ifMatch);
  }

  /**
   * `bodegaId` names an existing warehouse, else InvalidArgumentError naming
   * `bodegaId` (a 400: the request is wrong, not the product missing).
   * There is no foreign key across services; a warehouse deleted right after
   * this check is reconciled by producto-svc on BodegaEliminada, which then
   * refuses writes naming it with the same violation.
   */
  async function requireBodega(caller: Caller, bodegaId: number): Promise<void> {
    const id = requirePositiveId(bodegaId, 'bodegaId');
    try {
      await bodegas.get(caller, id);
    } catch (err) {
      if (err instanceof NotFoundError) throw InvalidArgumentError.field('bodegaId', `no existe la bodega ${id}`);
      throw err;
    }
  }

  /**
   * Products of at most PAGE_SIZE warehouses, in id order, at most
   * `perBodega` of each. Reading stops as soon as every warehouse has its
   * `perBodega` or `maxTotal` are held, so a page of a big warehouse costs
   * about one downstream page, not the whole warehouse.
   */
  async function pageOfProductosOf(caller: Caller, bodegaIds: number[], page: ProductosDeBodegasPage): Promise<Producto[]> {
    const perBodega = page.perBodega ?? Infinity;
    const maxTotal = page.maxTotal ?? Infinity;
    if (perBodega <= 0 || maxTotal <= 0) return [];
    const out: Producto[] = [];
    const held = new Map<number, number>();
    let full = 0;
    let pageToken = tokenAfter(page.afterId);
    for (;;) {
      const pageSize = Math.min(PAGE_SIZE, perBodega * bodegaIds.length, maxTotal - out.length);
      const { productos: items, nextPageToken } = await productos.list(caller, { pageSize, pageToken, bodegaIds });
      for (const producto of items) {
        const count = held.get(producto.bodegaId!) ?? 0;
        if (count >= perBodega) continue;
        held.set(producto.bodegaId!, count + 1);
        if (count + 1 === perBodega) full++;
        out.push(producto);
      }
      if (nextPageToken === '' || full === bodegaIds.length || out.length >= maxTotal) return out;
      pageToken = nextPageToken;
    }
  }

  /**
   * Unassigns every product of the warehouse, UNASSIGN_CHUNKS_PER_CALL chunks
   * per call, and reports them all. Every call carries one idempotency key
   * (the request's, or one made here), so producto-svc keeps one report
   * across the calls; with the request's key, a retry after any failure
   * resumes where the first attempt stopped and still reports every product.
   */
  async function unassignAll(caller: Caller, bodegaId: number, write: WriteOptions): Promise<UnassignResult> {
    // The answer is a replay only if the delete was: a retry that completes a half-done delete executes it.
    const keyed: WriteOptions = { ...write, idempotencyKey: write.idempotencyKey ?? `bff-${randomUUID()}`, onReplay: undefined };
    for (;;) {
      const result = await productos.unassignBodega(caller, bodegaId, keyed, UNASSIGN_CHUNKS_PER_CALL);
      if (result.complete) return result;
    }
  }

  /**
   * The products that keep a warehouse from a safe delete: how many, and the
   * first of them by id within PRODUCTO_SAMPLE_LIMITS (one page, one count).
   */
  async function heldBy(caller: Caller, bodegaId: number): Promise<{ productos: Producto[]; total: number }> {
    const page = await productos.list(caller, { pageSize: PRODUCTO_SAMPLE_LIMITS.maxItems, bodegaIds: [bodegaId], includeTotalSize: true });
    return { productos: boundedPrefix(page.productos, PRODUCTO_SAMPLE_LIMITS), total: page.totalSize ?? page.productos.length };
  }

  function allProductosOf(caller: Caller, bodegaIds: readonly number[]): Promise<Producto[]> {
    return collect(Infinity, async (pageSize, pageToken) => {
      const page = await productos.list(caller, { pageSize, pageToken, bodegaIds });
      return { items: page.productos, nextPageToken: page.nextPageToken };
    });
  }

  return {
    async listProductos(caller, filter: ProductoFilter = {}) {
      const wanted = filter.limit ?? Infinity;
      if (wanted <= 0) return [];
      let first = true;
      return collect(
        wanted,
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
          });
          return { items: page.productos, nextPageToken: page.nextPageToken };
        },
        filter.afterId,
      );
    },

    getProducto: (caller, id) => productos.get(caller, id),

    async productosDeBodegas(caller, bodegaIds, page = {}) {
      const pages = await Promise.all(chunks(bodegaIds).map((ids) => pageOfProductosOf(caller, ids, page)));
      return pages.flat();
    },

    async productosDeBodega(caller, bodegaId) {
      await bodegas.get(caller, bodegaId);
      return allProductosOf(caller, [bodegaId]);
    },

    async createProducto(caller, input, write = {}) {
      if (input.bodegaId !== undefined && input.bodegaId !== null) await requireBodega(caller, input.bodegaId);
      return productos.create(caller, input, write);
    },

    async updateProducto(caller, id, patch: ProductoPatch, write = {}) {
      requireSomething(patch, PRODUCTO_UPDATABLE);
      if (patch.bodegaId !== undefined && patch.bodegaId !== null) await requireBodega(caller, patch.bodegaId);
      return conditional(write, () => productos.update(caller, id, patch, write));
    },

    deleteProducto: (caller, id, write = {}) => conditional(write, () => productos.delete(caller, id, write)),

    async listBodegas(caller, page: ListPage = {}) {
      const wanted = page.limit ?? Infinity;
      if (wanted <= 0) return [];
      return collect(
        wanted,
        async (pageSize, pageToken) => {
          const list = await bodegas.list(caller, { pageSize, pageToken });
          return { items: list.bodegas, nextPageToken: list.nextPageToken };
        },
        page.afterId,
      );
    },

    getBodega: (caller, id) => bodegas.get(caller, id),

    async bodegasPorIds(caller, ids) {
      const pages = await Promise.all(
        chunks(ids).map((chunk) =>
          collect<Bodega>(Infinity, async (pageSize, pageToken) => {
            const page = await bodegas.list(caller, { pageSize, pageToken, ids: chunk });
            return { items: page.bodegas, nextPageToken: page.nextPageToken };
          }),
        ),
      );
      return pages.flat();
    },

    createBodega: (caller, input, write = {}) => bodegas.create(caller, input, write),

    async updateBodega(caller, id, patch: BodegaPatch, write = {}) {
      requireSomething(patch, BODEGA_UPDATABLE);
      return conditional(write, () => bodegas.update(caller, id, patch, write));
    },

    /**
     * Safe delete (spec "Warehouse deletion rules", ARCHITECTURE §6). The
     * warehouse must exist before any product is touched (NotFoundError),
     * and match If-Match. Without force, a warehouse holding products is
     * refused with them counted and the first listed; with force, its
     * products are unassigned first (they remain), then it is deleted. A product assigned between
     * the check and the delete is unassigned by producto-svc when it sees
     * BodegaEliminada.
     *
     * With an idempotency key both steps carry it, so a retry after any
     * failure completes what is left and replays what was done: the
     * unassignment returns the list it first returned, the delete its 204.
     * The warehouse is then already gone, so the existence check lets a
     * keyed request through to the services, which replay or answer 404.
     */
    async deleteBodega(caller, id, { force }, write = {}) {
      const bodega = await bodegas.get(caller, id).catch((err: unknown) => {
        if (err instanceof NotFoundError && write.idempotencyKey !== undefined) return undefined;
        throw failureUnder(write, err);
      });
      if (bodega) requireIfMatch(bodega, write);
      if (force) {
        const afectados = await unassignAll(caller, id, write);
        await conditional(write, () => bodegas.delete(caller, id, write));
        return { kind: 'forced', bodegaId: id, productos: afectados.productos, total: afectados.total };
      }
      if (bodega) {
        const held = await heldBy(caller, id);
        if (held.total > 0) throw new BodegaConProductosError(id, held.productos, held.total);
      }
      await conditional(write, () => bodegas.delete(caller, id, write));
      return { kind: 'deleted' };
    },
  };
}

