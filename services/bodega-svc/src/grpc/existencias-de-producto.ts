import {
  MAX_PAGE_SIZE,
  NotFoundError,
  requirePositiveId,
  unary,
  type CallContext,
  type Logger,
} from '@inventario/platform';
import type { ExistenciaServiceServer } from '@inventario/proto';
import type { Existencia } from '../domain/existencia';
import type { ExistenciaStore } from '../store/existencia-store';
import { filtroDeBodegas } from './alcance';
import { existenciaToProto } from './existencia-handlers';
import type { ProductoAsignaciones } from './producto-asignaciones';

export interface ExistenciasDeProductoDeps {
  store: Pick<ExistenciaStore, 'list' | 'totalesDeProductos'>;
  productos: Pick<ProductoAsignaciones, 'asignacion'>;
}

/**
 * A product's stock (GET /productos/{id}/existencias): its levels in every warehouse the caller may
 * read stock of, their sum, and its unlocated units. The product must exist in producto-svc, its
 * owner. The gateway read these three itself until issue 23.
 */
export function createExistenciasDeProducto({ store, productos }: ExistenciasDeProductoDeps): {
  leer: (
    productoId: number,
    caller: CallContext,
  ) => Promise<{ porBodega: Existencia[]; total: number; sinUbicar: number }>;
} {
  async function niveles(productoId: number, caller: CallContext): Promise<Existencia[]> {
    // As ListExistencias shows them: a scoped principal only its warehouses' levels.
    const visibles = filtroDeBodegas(caller, 'existencias:leer', []);
    if (visibles?.length === 0) return [];
    const out: Existencia[] = [];
    let after: { bodegaId: number; productoId: number } | null = null;
    for (;;) {
      const page = await store.list({
        pageSize: MAX_PAGE_SIZE,
        after,
        bodegaIds: visibles ?? [],
        productoIds: [productoId],
      });
      out.push(...page.existencias);
      const last = page.existencias.at(-1);
      if (!page.hasMore || !last) return out;
      after = { bodegaId: last.bodegaId, productoId: last.productoId };
    }
  }

  return {
    async leer(productoId, caller) {
      const [porBodega, producto, totales] = await Promise.all([
        niveles(productoId, caller),
        productos.asignacion(productoId, caller),
        store.totalesDeProductos([productoId]),
      ]);
      if (!producto)
        throw NotFoundError.campos([{ campo: 'productoId', mensaje: `no existe el producto ${productoId}` }]);
      const total = porBodega.reduce((sum, level) => sum + level.cantidad, 0);
      return { porBodega, total, sinUbicar: totales[0]?.sinUbicar ?? 0 };
    },
  };
}

export function existenciasDeProductoHandlers(
  deps: ExistenciasDeProductoDeps & { logger: Logger },
): Pick<ExistenciaServiceServer, 'getExistenciasDeProducto'> {
  const { leer } = createExistenciasDeProducto(deps);
  return {
    getExistenciasDeProducto: unary(deps.logger, 'GetExistenciasDeProducto', async (request, caller) => {
      const res = await leer(requirePositiveId(request.productoId, 'productoId'), caller);
      return { porBodega: res.porBodega.map(existenciaToProto), total: res.total, sinUbicar: res.sinUbicar };
    }),
  };
}
