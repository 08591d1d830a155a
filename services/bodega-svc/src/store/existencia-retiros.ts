// Write-outs of many levels at once: a deleted product's everywhere, a deleted warehouse's in bounded parts.

import type { CallContext, Knex } from '@inventario/platform';
import { clave, type Cambio } from '../domain/existencia';
import { SIN_UBICAR } from './migrations';
import { bloquearBodegas, type BodegaBloqueada } from './ocupacion';
import type { ExistenciaStoreDeps, NivelRow } from './existencia-tipos';
import { lockBodegas, nivelActual, sinUbicar, type Niveles } from './existencia-bloqueos';
import { escribir, write, type EstadoExistencias } from './existencia-escritura';

/** Per write-out operation, so its event stays far below NATS's message limit. */
export const LINEAS_POR_OPERACION = 500;

/** Writes out every level among `rows` (locked), in operations of at most LINEAS_POR_OPERACION lines. */
async function retirarTodo(
  trx: Knex.Transaction,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    at,
    caller,
    tipo,
    rows,
    bodegas,
  }: {
    at: Date;
    caller: CallContext;
    tipo: 'PRODUCTO_ELIMINADO' | 'BODEGA_ELIMINADA';
    rows: NivelRow[];
    bodegas: Map<number, BodegaBloqueada>;
  },
): Promise<{ niveles: number; unidades: number }> {
  let unidades = 0;
  for (let i = 0; i < rows.length; i += LINEAS_POR_OPERACION) {
    const parte = rows.slice(i, i + LINEAS_POR_OPERACION);
    const niveles: Niveles = { actuales: new Map(), filas: new Map() };
    for (const r of parte) {
      const k = clave(r.bodega_id, r.producto_id);
      niveles.filas.set(k, r.id);
      niveles.actuales.set(k, nivelActual(r));
      unidades += r.cantidad;
    }
    const cambios: Cambio[] = parte.map((r) => ({
      bodegaId: r.bodega_id,
      productoId: r.producto_id,
      tipo: 'SALIDA',
      motivo: tipo,
      retirar: true,
    }));
    await escribir(trx, deps, estado, { at, caller, nueva: { tipo, comentario: null }, cambios, niveles, bodegas });
  }
  return { niveles: rows.length, unidades };
}

export async function retirarProductoEliminado(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  productoId: number,
): Promise<void> {
  const caller: CallContext = { usuario: 'system' };
  await write(db, deps, caller, async (trx, at) => {
    // The record first: from here on stock writes for the product wait for this
    // transaction, and those already running have committed (requireProductosVivos).
    await trx.raw('INSERT IGNORE INTO productos_eliminados (producto_id) VALUES (?)', [productoId]);
    const donde = await trx('existencias').where({ producto_id: productoId }).pluck<number[]>('bodega_id');
    if (donde.length === 0) return;
    // Then the fixed order: its warehouses (those still there; it only takes units out), then its levels.
    const bodegas = await bloquearBodegas(
      trx,
      new Map(donde.filter((id) => id !== SIN_UBICAR).map((id) => [id, 'compartido' as const])),
    );
    // Its unlocated units go too: "no stock of a deleted product anywhere".
    if (donde.includes(SIN_UBICAR)) bodegas.set(SIN_UBICAR, sinUbicar());
    const niveles = await trx<NivelRow>('existencias')
      .where({ producto_id: productoId })
      .whereIn('bodega_id', [...bodegas.keys()])
      .orderBy('id')
      .forUpdate();
    await retirarTodo(trx, deps, estado, { at, caller, tipo: 'PRODUCTO_ELIMINADO', rows: niveles, bodegas });
  });
}

export async function retirarDeBodega(
  trx: Knex.Transaction,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  { bodegaId, caller, at, limite }: { bodegaId: number; caller: CallContext; at: Date; limite: number },
): Promise<{ niveles: number; unidades: number }> {
  const bodegas = await lockBodegas(trx, new Map([[bodegaId, 'exclusivo']]), { eliminandose: true });
  // In the unique index's order, so the locking read stops at `limite` rows instead of sorting the warehouse.
  const rows = await trx<NivelRow>('existencias')
    .where({ bodega_id: bodegaId })
    .orderBy('producto_id')
    .limit(limite)
    .forUpdate();
  return retirarTodo(trx, deps, estado, { at, caller, tipo: 'BODEGA_ELIMINADA', rows, bodegas });
}
