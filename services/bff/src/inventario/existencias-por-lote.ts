import { encodeNivelPageToken, MAX_UNSIGNED_INT } from '@inventario/platform';
import type { ExistenciaClient } from '../downstream/existencia-client';
import type { Caller, Existencia, ExistenciasPorLotePage } from './model';
import { PAGE_SIZE, readInChunks } from './paging';

export interface ExistenciasPorLoteDeps {
  existencias: ExistenciaClient;
}

/** How one kind of batch reads the level list (see collectPages). */
interface Lote {
  /** Undefined: the start of the list. */
  firstToken: string | undefined;
  filterOf(pending: number[]): { bodegaIds?: number[]; productoIds?: number[] };
  parentOf(level: Existencia): number;
  keep(level: Existencia): boolean;
  /** The parents, of those still short, that may have levels after `last`. */
  remaining(pending: number[], last: Existencia): number[];
  startAt(pending: number[], last: Existencia, nextPageToken: string): string | undefined;
}

/**
 * The levels of a batch of warehouses or products (GraphQL's `existencias` DataLoaders), read from
 * bodega-svc's list ordered by (warehouse, product). Each call asks only for the parents still
 * short of their page, from where the lowest has levels left, so an `after` costs no read of the
 * levels before it; a batch whose levels fit in one downstream page is one call.
 */
export function createExistenciasPorLote({ existencias }: ExistenciasPorLoteDeps): {
  existenciasDeBodegas(
    caller: Caller,
    bodegaIds: readonly number[],
    page?: ExistenciasPorLotePage,
  ): Promise<Existencia[]>;
  existenciasDeProductos(
    caller: Caller,
    productoIds: readonly number[],
    page?: ExistenciasPorLotePage,
  ): Promise<Existencia[]>;
} {
  function startOfBodega(bodegaId: number, afterId: number | undefined): string | undefined {
    if (afterId !== undefined) return encodeNivelPageToken(bodegaId, afterId);
    return bodegaId > 1 ? encodeNivelPageToken(bodegaId - 1, MAX_UNSIGNED_INT) : undefined;
  }

  async function collectPages(
    caller: Caller,
    parents: number[],
    page: ExistenciasPorLotePage,
    lote: Lote,
  ): Promise<Existencia[]> {
    const perParent = page.perParent ?? Infinity;
    const maxTotal = page.maxTotal ?? Infinity;
    const out: Existencia[] = [];
    if (perParent <= 0 || maxTotal <= 0 || parents.length === 0) return out;
    const held = new Map<number, number>();
    let pending = [...new Set(parents)].sort((x, y) => x - y);
    let pageToken = lote.firstToken;
    for (;;) {
      // One parent reads just its page; several read whole pages, since their levels come one warehouse after another.
      const wanted = pending.length === 1 ? perParent - (held.get(pending[0]!) ?? 0) : PAGE_SIZE;
      page.signal?.throwIfAborted();
      // Several parents' levels come one warehouse after another, most of a page skipped: only what is kept is bounded
      // by maxTotal.
      const pageSize = Math.min(PAGE_SIZE, wanted, pending.length === 1 ? maxTotal - out.length : PAGE_SIZE);
      const { existencias: levels, nextPageToken } = await existencias.list(caller, {
        pageSize,
        pageToken,
        ...lote.filterOf(pending),
      });
      for (const level of levels) {
        if (out.length >= maxTotal) break;
        const parent = lote.parentOf(level);
        const count = held.get(parent) ?? 0;
        if (count >= perParent || !lote.keep(level)) continue;
        held.set(parent, count + 1);
        out.push(level);
      }
      const last = levels.at(-1);
      if (nextPageToken === '' || !last || out.length >= maxTotal) return out;
      pending = lote.remaining(pending, last).filter((id) => (held.get(id) ?? 0) < perParent);
      if (pending.length === 0) return out;
      pageToken = lote.startAt(pending, last, nextPageToken);
    }
  }

  return {
    async existenciasDeBodegas(caller, bodegaIds, page = {}) {
      const { afterId } = page;
      return readInChunks(bodegaIds, page.maxTotal, (ids, maxTotal) =>
        collectPages(
          caller,
          ids,
          { ...page, maxTotal },
          {
            firstToken: startOfBodega(Math.min(...ids), afterId),
            filterOf: (pending) => ({ bodegaIds: pending }),
            parentOf: (level) => level.bodegaId,
            // A page that ran on into the next warehouse holds its products up to `afterId` too.
            keep: (level) => afterId === undefined || level.productoId > afterId,
            // Warehouses before the last level read have no levels left.
            remaining: (pending, last) => pending.filter((id) => id >= last.bodegaId),
            // Within the warehouse read last, where its page ended; else at the start of the next one short.
            startAt: ([lowest], last, nextPageToken) =>
              lowest === last.bodegaId ? nextPageToken : startOfBodega(lowest!, afterId),
          },
        ),
      );
    },

    async existenciasDeProductos(caller, productoIds, page = {}) {
      const { afterId } = page;
      return readInChunks(productoIds, page.maxTotal, (ids, maxTotal) =>
        collectPages(
          caller,
          ids,
          { ...page, maxTotal },
          {
            // After the warehouse `afterId`: after its every level.
            firstToken: afterId === undefined ? undefined : encodeNivelPageToken(afterId, MAX_UNSIGNED_INT),
            filterOf: (pending) => ({ productoIds: pending }),
            parentOf: (level) => level.productoId,
            keep: () => true,
            remaining: (pending) => pending,
            startAt: (_pending, _last, nextPageToken) => nextPageToken,
          },
        ),
      );
    },
  };
}
