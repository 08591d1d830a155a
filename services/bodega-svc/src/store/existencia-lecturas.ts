// The stock store's reads: a level, pages of levels and of lines, an operation, a warehouse's products; and how
// their rows become domain values (the write path answers with the same mappings).

import { NotFoundError, withDbErrors, type Knex } from '@inventario/platform';
import type { TipoMovimiento, TipoOperacion } from '@inventario/contract';
import type { Existencia, Movimiento, Operacion } from '../domain/existencia';
import { SIN_UBICAR } from './migrations';
import type { ExistenciaQuery, ExistenciasPorLoteQuery, MovimientoQuery, NivelRow } from './existencia-tipos';
import { noExisteBodega, sinExistencias } from './existencia-errores';

export interface MovimientoRow {
  id: number | string;
  operacion_id: number | string;
  bodega_id: number;
  producto_id: number;
  tipo: TipoMovimiento;
  motivo: Movimiento['motivo'];
  cantidad: number;
  cantidad_anterior: number;
  cantidad_posterior: number;
  version: number;
  usuario: string;
  comentario: string | null;
  fecha: Date;
}

interface OperacionRow {
  id: number | string;
  tipo: TipoOperacion;
  usuario: string;
  comentario: string | null;
  revierte_a: number | string | null;
  fecha: Date;
}

export function toExistencia(row: NivelRow): Existencia {
  return {
    bodegaId: row.bodega_id,
    productoId: row.producto_id,
    cantidad: row.cantidad,
    umbralMinimo: row.umbral_minimo,
    version: row.version,
    fechaCreacion: row.fecha_creacion,
    fechaActualizacion: row.fecha_actualizacion,
    reservada: Number(row.reservada_vigente ?? row.reservada ?? 0),
    alertaSobre: row.alerta_sobre ?? 'CANTIDAD',
  };
}

/** A level's units held by unexpired holds at `reloj` (exact between sweeps: a due hold never counts). */
const reservadaVigenteSql = (reloj: string) =>
  `IF(existencias.reservada = 0, 0, (SELECT COALESCE(SUM(l.retenida), 0) FROM reserva_lineas l JOIN reservas r ` +
  `ON r.id = l.reserva_id
     WHERE l.bodega_id = existencias.bodega_id AND l.producto_id = existencias.producto_id AND l.retenida > 0 AND ` +
  `r.expira_en > ${reloj})) AS reservada_vigente`;

export function toMovimiento(row: MovimientoRow): Movimiento {
  return {
    id: Number(row.id),
    operacionId: Number(row.operacion_id),
    bodegaId: row.bodega_id,
    productoId: row.producto_id,
    tipo: row.tipo,
    motivo: row.motivo,
    cantidad: row.cantidad,
    cantidadAnterior: row.cantidad_anterior,
    cantidadPosterior: row.cantidad_posterior,
    version: row.version,
    usuario: row.usuario,
    comentario: row.comentario,
    fecha: row.fecha,
  };
}

export async function readOperacion(conn: Knex | Knex.Transaction, id: number): Promise<Operacion> {
  const row = await conn<OperacionRow>('operaciones').where({ id }).first();
  if (!row) throw new NotFoundError(`No existe la operación con id ${id}`);
  const [lineas, reverso] = await Promise.all([
    conn<MovimientoRow>('movimientos').where({ operacion_id: id }).orderBy('id'),
    conn('operaciones').where({ revierte_a: id }).first<{ id: number | string } | undefined>('id'),
  ]);
  return {
    id: Number(row.id),
    tipo: row.tipo,
    usuario: row.usuario,
    comentario: row.comentario,
    fecha: row.fecha,
    revierteA: row.revierte_a === null ? null : Number(row.revierte_a),
    revertidaPor: reverso ? Number(reverso.id) : null,
    movimientos: lineas.map(toMovimiento),
  };
}

export async function tieneExistencias(trx: Knex.Transaction, bodegaId: number): Promise<boolean> {
  // A locking read: a plain one reads the snapshot of the transaction's first read (a keyed
  // delete's idempotency lookup), which misses a level committed while the delete waited.
  return (await trx('existencias').where({ bodega_id: bodegaId }).forShare().first('id')) !== undefined;
}

export function productosEnBodega(db: Knex, bodegaId: number, limite: number): Promise<number[]> {
  return withDbErrors(() =>
    db('existencias')
      .where({ bodega_id: bodegaId })
      .orderBy('producto_id')
      .limit(limite)
      .pluck<number[]>('producto_id'),
  );
}

/** A missing level is named on productoId, or the warehouse on bodegaId when it is the one missing. */
export async function get(db: Knex, reloj: string, bodegaId: number, productoId: number): Promise<Existencia> {
  const row = await withDbErrors(() =>
    db<NivelRow>('existencias')
      .where({ bodega_id: bodegaId, producto_id: productoId })
      .first<NivelRow | undefined>('*', db.raw(reservadaVigenteSql(reloj))),
  );
  if (row) return toExistencia(row);
  const bodega = await withDbErrors(() =>
    db('bodegas').where({ id: bodegaId }).first<{ id: number } | undefined>('id'),
  );
  throw bodega
    ? sinExistencias(bodegaId, productoId)
    : NotFoundError.campos([noExisteBodega({ campo: 'bodegaId', id: bodegaId })]);
}

export async function list(
  db: Knex,
  reloj: string,
  { pageSize, after, bodegaIds, productoIds }: ExistenciaQuery,
): Promise<{ existencias: Existencia[]; hasMore: boolean }> {
  const rows = await withDbErrors(() => {
    const q = db<NivelRow>('existencias')
      .select('*', db.raw(reservadaVigenteSql(reloj)))
      .orderBy([{ column: 'bodega_id' }, { column: 'producto_id' }])
      .limit(pageSize + 1);
    if (bodegaIds.length > 0) q.whereIn('bodega_id', bodegaIds);
    // Levels of warehouses: the unlocated one is no warehouse's (its units: totalesDeProductos).
    else q.where('bodega_id', '<>', SIN_UBICAR);
    if (productoIds.length > 0) q.whereIn('producto_id', productoIds);
    if (after) {
      q.whereRaw('(bodega_id, producto_id) > (?, ?)', [after.bodegaId, after.productoId]);
    }
    return q;
  });
  return { existencias: rows.slice(0, pageSize).map(toExistencia), hasMore: rows.length > pageSize };
}

export async function listPorLote(
  db: Knex,
  reloj: string,
  { pageSize, after, parents, perParent, afterId, visibles }: ExistenciasPorLoteQuery,
): Promise<{ existencias: Existencia[]; hasMore: boolean }> {
  const porBodega = 'bodegaIds' in parents;
  const [parent, other] = porBodega ? ['bodega_id', 'producto_id'] : ['producto_id', 'bodega_id'];
  const niveles = db<NivelRow>('existencias');
  if (porBodega) {
    niveles.whereIn('bodega_id', parents.bodegaIds);
    // A whole warehouse before the page's start is no part of it, nor of any later warehouse's count.
    if (after) niveles.where('bodega_id', '>=', after.bodegaId);
  } else niveles.whereIn('producto_id', parents.productoIds).where('bodega_id', '<>', SIN_UBICAR);
  if (visibles) niveles.whereIn('bodega_id', visibles);
  if (afterId !== null) niveles.where(other, '>', afterId);
  // Each parent's levels numbered in its own order before the page's start is applied, so the
  // count of a parent does not depend on where a page ended.
  const q: Knex.QueryBuilder =
    perParent > 0
      ? db
          .select('*', db.raw(reservadaVigenteSql(reloj)))
          .from(
            niveles
              .select('*', db.raw('ROW_NUMBER() OVER (PARTITION BY ?? ORDER BY ??) AS n_del_padre', [parent, other]))
              .as('existencias'),
          )
          .where('n_del_padre', '<=', perParent)
      : niveles.select('*', db.raw(reservadaVigenteSql(reloj)));
  q.orderBy([{ column: 'bodega_id' }, { column: 'producto_id' }]).limit(pageSize + 1);
  if (after) q.whereRaw('(bodega_id, producto_id) > (?, ?)', [after.bodegaId, after.productoId]);
  const rows = await withDbErrors<NivelRow[]>(async () => (await q) as NivelRow[]);
  return { existencias: rows.slice(0, pageSize).map(toExistencia), hasMore: rows.length > pageSize };
}

export async function listMovimientos(
  db: Knex,
  query: MovimientoQuery,
): Promise<{ movimientos: Movimiento[]; hasMore: boolean }> {
  const rows = await withDbErrors(() => {
    const q = db<MovimientoRow>('movimientos')
      .orderBy('id', 'desc')
      .limit(query.pageSize + 1);
    if (query.beforeId !== null) q.where('id', '<', query.beforeId);
    if (query.bodegaId !== undefined) q.where('bodega_id', query.bodegaId);
    if (query.bodegaIds !== undefined) q.whereIn('bodega_id', query.bodegaIds);
    if (query.productoId !== undefined) q.where('producto_id', query.productoId);
    if (query.tipo !== undefined) q.where('tipo', query.tipo);
    if (query.desde !== undefined) q.where('fecha', '>=', query.desde);
    if (query.hasta !== undefined) q.where('fecha', '<', query.hasta);
    if (query.operacionId !== undefined) q.where('operacion_id', query.operacionId);
    return q;
  });
  return { movimientos: rows.slice(0, query.pageSize).map(toMovimiento), hasMore: rows.length > query.pageSize };
}
