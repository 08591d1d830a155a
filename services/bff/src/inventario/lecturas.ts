import type { ExistenciaClient } from '../downstream/existencia-client';
import type { ProductoClient } from '../downstream/producto-client';
import type { Existencia, Producto } from '@inventario/contract';
import type { Caller } from './model';
import { chunks, collect, PAGE_SIZE, pagesOf } from './paging';

/** The reads the stock use cases share (plain functions, used destructured). */
export interface Lecturas {
  levelPagesOf: (caller: Caller, bodegaId: number, pageSize: number) => AsyncIterable<Existencia[]>;
  /** With bodegaIds, only those assigned to one of them. */
  productosPorIds: (caller: Caller, ids: readonly number[], bodegaIds?: readonly number[]) => Promise<Producto[]>;
  countProductos: (caller: Caller, ids: readonly number[], bodegaIds?: readonly number[]) => Promise<number>;
  stockedIds: (caller: Caller, bodegaId: number) => Promise<number[]>;
}

export function createLecturas({
  productos,
  existencias,
}: {
  productos: ProductoClient;
  existencias: ExistenciaClient;
}): Lecturas {
  function levelPagesOf(caller: Caller, bodegaId: number, pageSize: number): AsyncIterable<Existencia[]> {
    return pagesOf(
      Infinity,
      async (size, pageToken) => {
        const page = await existencias.list(caller, { pageSize: size, pageToken, bodegaIds: [bodegaId] });
        return { items: page.existencias, nextPageToken: page.nextPageToken };
      },
      { pageSize },
    );
  }

  async function productosPorIds(
    caller: Caller,
    ids: readonly number[],
    bodegaIds?: readonly number[],
  ): Promise<Producto[]> {
    const pages = await Promise.all(
      chunks(ids).map((chunk) =>
        collect(
          pagesOf<Producto>(Infinity, async (pageSize, pageToken) => {
            const page = await productos.list(caller, { pageSize, pageToken, ids: chunk, bodegaIds });
            return { items: page.productos, nextPageToken: page.nextPageToken };
          }),
        ),
      ),
    );
    return pages.flat().sort((x, y) => x.id - y.id);
  }

  async function countProductos(
    caller: Caller,
    ids: readonly number[],
    bodegaIds?: readonly number[],
  ): Promise<number> {
    const counts = await Promise.all(
      chunks(ids).map(
        async (chunk) =>
          (await productos.list(caller, { pageSize: 1, ids: chunk, bodegaIds, includeTotalSize: true })).totalSize ?? 0,
      ),
    );
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /** A level at 0 counts too: bodega-svc refuses to delete a warehouse that holds any. */
  async function stockedIds(caller: Caller, bodegaId: number): Promise<number[]> {
    const ids: number[] = [];
    for await (const page of levelPagesOf(caller, bodegaId, PAGE_SIZE))
      ids.push(...page.map((level) => level.productoId));
    return ids;
  }

  return { levelPagesOf, productosPorIds, countProductos, stockedIds };
}
