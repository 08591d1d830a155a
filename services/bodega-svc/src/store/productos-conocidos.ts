// The products this service knows (productos_conocidos): recorded from producto-svc, asked of it when a stock
// command names one not seen yet.

import { NotFoundError, withDbErrors, type Knex } from '@inventario/platform';
import type { BodegaNombrada, ExistenciaStoreDeps } from './existencia-tipos';
import { noExisteBodega, productoEliminado } from './existencia-errores';
import { ProductosDesconocidos } from './existencia-bloqueos';

/**
 * Runs a write whose products must exist (docs/decisions.md, "Stock has one home"). A product id
 * this service has not seen (one created a moment ago, whose ProductoCreado is still on its way)
 * is asked of producto-svc outside any transaction, so no lock waits on the call, recorded when
 * it exists, and the write runs again. A product never created is a 404 naming productoId (and
 * any missing warehouse); one deleted is PRODUCTO_ELIMINADO. Safety does not rest on this: a
 * product deleted afterwards is caught by requireProductosVivos or written out by the
 * ProductoEliminado consumer. A keyed repeat replays before any check.
 */
export async function conProductosConocidos<T>(
  db: Knex,
  deps: ExistenciaStoreDeps,
  productoIds: number[],
  nombradas: readonly BodegaNombrada[],
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof ProductosDesconocidos)) throw err;
  }
  await conocer(db, deps, productoIds, nombradas);
  return run();
}

async function conocer(
  db: Knex,
  deps: ExistenciaStoreDeps,
  productoIds: number[],
  nombradas: readonly BodegaNombrada[],
): Promise<void> {
  const conocidos = new Set(
    await withDbErrors(() =>
      db('productos_conocidos').whereIn('producto_id', productoIds).pluck<number[]>('producto_id'),
    ),
  );
  const desconocidos = productoIds.filter((id) => !conocidos.has(id));
  if (desconocidos.length === 0) return;
  const inexistentes: number[] = [];
  for (const id of desconocidos) {
    if (await deps.productos.isLive(id)) await registrarProductoConocido(db, id);
    else inexistentes.push(id);
  }
  if (inexistentes.length === 0) return;
  const eliminado = await withDbErrors(() =>
    db('productos_eliminados')
      .whereIn('producto_id', inexistentes)
      .first<{ producto_id: number } | undefined>('producto_id'),
  );
  if (eliminado) throw productoEliminado(eliminado.producto_id);
  const existentes = new Set(
    await withDbErrors(() =>
      db('bodegas')
        .whereIn(
          'id',
          nombradas.map((n) => n.id),
        )
        .pluck<number[]>('id'),
    ),
  );
  throw NotFoundError.campos([
    ...inexistentes.map((id) => ({ campo: 'productoId', mensaje: `no existe el producto ${id}` })),
    ...nombradas.filter((n) => !existentes.has(n.id)).map(noExisteBodega),
  ]);
}

export async function registrarProductoConocido(db: Knex, productoId: number): Promise<void> {
  await withDbErrors(() => db.raw('INSERT IGNORE INTO productos_conocidos (producto_id) VALUES (?)', [productoId]));
}

export async function esProductoConocido(db: Knex, productoId: number): Promise<boolean> {
  const row = await withDbErrors(() =>
    db('productos_conocidos')
      .where({ producto_id: productoId })
      .first<{ producto_id: number } | undefined>('producto_id'),
  );
  return row !== undefined;
}
