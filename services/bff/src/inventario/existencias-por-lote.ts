import type { ExistenciaClient } from '../downstream/existencia-client';
import type { Existencia } from '@inventario/contract';
import type { Caller, ExistenciasPorLoteApi, ExistenciasPorLotePage } from './model';
import { collect, PAGE_SIZE, pagesOf, readInChunks } from './paging';

export interface ExistenciasPorLoteDeps {
  existencias: ExistenciaClient;
}

/**
 * The levels of a batch of warehouses or products (GraphQL's `existencias` DataLoaders): bodega-svc's
 * ListExistenciasPorLote counts each parent's page in SQL, so a batch is one call per page of the answer,
 * read no further than `maxTotal` (the node cap).
 */
export function createExistenciasPorLote({
  existencias,
}: ExistenciasPorLoteDeps): Pick<ExistenciasPorLoteApi, 'existenciasDeBodegas' | 'existenciasDeProductos'> {
  function porLote(
    caller: Caller,
    parents: { bodegaIds: number[] } | { productoIds: number[] },
    { perParent, afterId, maxTotal, signal }: ExistenciasPorLotePage,
  ): Promise<Existencia[]> {
    // The service reads "no limit" as 0; a page of none is no read.
    if (perParent !== undefined && perParent <= 0) return Promise.resolve([]);
    return collect(
      pagesOf(
        maxTotal ?? Infinity,
        async (pageSize, pageToken) => {
          const page = await existencias.porLote(caller, {
            parents,
            perParent: perParent ?? 0,
            afterId,
            pageSize,
            pageToken,
          });
          return { items: page.existencias, nextPageToken: page.nextPageToken };
        },
        { pageSize: PAGE_SIZE, signal },
      ),
    );
  }

  return {
    existenciasDeBodegas: (caller, bodegaIds, page = {}) =>
      readInChunks(bodegaIds, page.maxTotal, (ids, maxTotal) =>
        porLote(caller, { bodegaIds: ids }, { ...page, maxTotal }),
      ),
    existenciasDeProductos: (caller, productoIds, page = {}) =>
      readInChunks(productoIds, page.maxTotal, (ids, maxTotal) =>
        porLote(caller, { productoIds: ids }, { ...page, maxTotal }),
      ),
  };
}
