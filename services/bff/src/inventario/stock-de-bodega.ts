import { boundedPrefix, PRODUCTO_SAMPLE_LIMITS } from '@inventario/platform';
import type { ExistenciaClient } from '../downstream/existencia-client';
import type { ProductoClient } from '../downstream/producto-client';
import { createLecturas } from './lecturas';
import type { Producto } from '@inventario/contract';
import type { Caller } from './model';
import { PAGE_SIZE } from './paging';

/** The later list's copy wins. */
export function unionById(first: readonly Producto[], second: readonly Producto[]): Producto[] {
  const byId = new Map<number, Producto>();
  for (const producto of [...first, ...second]) byId.set(producto.id, producto);
  return [...byId.values()].sort((x, y) => x.id - y.id);
}

/** The stock side of the warehouse safe delete (docs/contract.md §2.7, §10.2). */
export interface StockDeBodega {
  /** Assigned ∪ stocked products, each once: the first ones (bounded) and how many. */
  productosRetenidos(
    caller: Caller,
    bodegaId: number,
  ): Promise<{ productos: Producto[]; total: number; conExistencias: boolean }>;
  /** Ids of the products both stocked in the warehouse and assigned to it now. */
  stockAsignado(caller: Caller, bodegaId: number): Promise<Set<number>>;
  productosRetirados(caller: Caller, bodegaId: number, existenciasRetiradas: number): Promise<number[]>;
  productosPorIds(caller: Caller, ids: readonly number[]): Promise<Producto[]>;
  countProductos(caller: Caller, ids: readonly number[]): Promise<number>;
}

export function createStockDeBodega({
  productos,
  existencias,
}: {
  productos: ProductoClient;
  existencias: ExistenciaClient;
}): StockDeBodega {
  const { productosPorIds, countProductos, stockedIds } = createLecturas({ productos, existencias });
  return {
    async productosRetenidos(caller, bodegaId) {
      const [asignados, stocked] = await Promise.all([
        productos.list(caller, {
          pageSize: PRODUCTO_SAMPLE_LIMITS.maxItems,
          bodegaIds: [bodegaId],
          includeTotalSize: true,
        }),
        stockedIds(caller, bodegaId),
      ]);
      const totalAsignados = asignados.totalSize ?? asignados.productos.length;
      if (stocked.length === 0) {
        return {
          productos: boundedPrefix(asignados.productos, PRODUCTO_SAMPLE_LIMITS),
          total: totalAsignados,
          conExistencias: false,
        };
      }
      // Existing stocked products, less those already counted as assigned.
      const [existentes, asignadosConStock, primeros] = await Promise.all([
        countProductos(caller, stocked),
        countProductos(caller, stocked, [bodegaId]),
        productosPorIds(caller, stocked.slice(0, PRODUCTO_SAMPLE_LIMITS.maxItems)),
      ]);
      return {
        productos: boundedPrefix(unionById(asignados.productos, primeros), PRODUCTO_SAMPLE_LIMITS),
        total: totalAsignados + existentes - asignadosConStock,
        conExistencias: existentes > 0,
      };
    },

    async stockAsignado(caller, bodegaId) {
      const stocked = await stockedIds(caller, bodegaId);
      return new Set((await productosPorIds(caller, stocked, [bodegaId])).map((p) => p.id));
    },

    /**
     * From the ledger's newest lines, the delete's BODEGA_ELIMINADA ones (nothing is written to a
     * deleted warehouse), so a keyed retry that replays the delete finds the same products.
     */
    async productosRetirados(caller, bodegaId, existenciasRetiradas) {
      const ids: number[] = [];
      let pageToken: string | undefined;
      while (ids.length < existenciasRetiradas) {
        const pageSize = Math.min(PAGE_SIZE, existenciasRetiradas - ids.length);
        const page = await existencias.listMovimientos(caller, { bodegaId, pageSize, pageToken });
        for (const line of page.movimientos) {
          if (line.motivo !== 'BODEGA_ELIMINADA') return ids.sort((x, y) => x - y);
          ids.push(line.productoId);
        }
        if (page.nextPageToken === '') break;
        pageToken = page.nextPageToken;
      }
      return ids.sort((x, y) => x - y);
    },

    productosPorIds: (caller, ids) => productosPorIds(caller, ids),
    countProductos: (caller, ids) => countProductos(caller, ids),
  };
}
