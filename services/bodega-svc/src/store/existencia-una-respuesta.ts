// One answer (docs/contract.md §10.6): the product's figure, its initial stock and its counts.

import {
  isDuplicateEntry,
  nowToSecond,
  withDbErrors,
  writeTransaction,
  type CallContext,
  type Knex,
} from '@inventario/platform';
import type { TipoMovimiento } from '@inventario/contract';
import type { Cambio, Operacion } from '../domain/existencia';
import { SIN_UBICAR } from './migrations';
import { bloquearBodegas, type BodegaBloqueada } from './ocupacion';
import type {
  CommandOptions,
  ConteoDeProducto,
  ExistenciaStoreDeps,
  NivelRow,
  StockInicial,
  StockInicialOptions,
  StockInicialRegistrado,
  TotalDeProducto,
} from './existencia-tipos';
import { productoEliminado } from './existencia-errores';
import { readOperacion } from './existencia-lecturas';
import { lockNiveles, sinUbicar, type Niveles } from './existencia-bloqueos';
import { escribir, RESULTS, type EstadoExistencias } from './existencia-escritura';

/** Rolls back an initial recording for a product deleted meanwhile. */
class ProductoYaEliminado extends Error {}

export async function leerStockInicial(db: Knex, productoId: number): Promise<{ conUnidades: boolean } | undefined> {
  const row = await withDbErrors(() =>
    db('stock_inicial')
      .where({ producto_id: productoId, origen: 'STOCK_INICIAL' })
      .first<{ operacion_id: number | string | null } | undefined>('operacion_id'),
  );
  return row === undefined ? undefined : { conUnidades: row.operacion_id !== null };
}

/**
 * READ COMMITTED: every product create records its units, so many of these insert new levels and
 * lines at the end of the same index ranges at once. Under REPEATABLE READ each would first take
 * a gap lock there (the locking reads of a level not there yet), and the inserts of any two would
 * deadlock. Without gap locks, a level or line written meanwhile by another transaction is caught
 * by the unique keys (level, line version); and the product's deletion is checked after the
 * writes (sigueVivo), which closes that race without a gap lock.
 */
function writeRc<T>(
  db: Knex,
  deps: ExistenciaStoreDeps,
  caller: CallContext,
  work: (trx: Knex.Transaction, at: Date) => Promise<T>,
): Promise<T> {
  return writeTransaction(db, (trx) => work(trx, nowToSecond()), {
    onCommitted: deps.onCommitted,
    idempotency: { key: caller.idempotency, codec: RESULTS, ttlSeconds: deps.idempotencyTtlSeconds },
    signal: caller.signal,
    isolationLevel: 'read committed',
  });
}

/**
 * After this transaction wrote the product's levels: a ProductoEliminado committed before is seen
 * here (a locking read of its record waits for one in flight); one committed after finds these
 * levels in its locking scan and writes them out.
 */
async function sigueVivo(trx: Knex.Transaction, productoId: number): Promise<boolean> {
  const record = await trx('productos_eliminados')
    .where({ producto_id: productoId })
    .forShare()
    .first<{ producto_id: number } | undefined>('producto_id');
  return record === undefined;
}

/**
 * Held exclusively by the product's initial stock and its counts, before any warehouse (the
 * store's lock order: products, then warehouses, then levels). A stock command naming the
 * product holds the row shared (requireConocidos) until it commits, so from here to this
 * transaction's commit no command of the product is in flight or begins. Recording it as known
 * is right for both: producto-svc asks for them, so the product exists.
 */
async function bloquearConocido(trx: Knex.Transaction, productoId: number): Promise<void> {
  await trx.raw(
    'INSERT INTO productos_conocidos (producto_id) VALUES (?) ON DUPLICATE KEY UPDATE producto_id = producto_id',
    [productoId],
  );
}

/**
 * The product's levels, locked with their warehouses (and `bodegaId`'s, when it names one still there), in the
 * store's order.
 * `nuevo`: the product has no level and no line in the ledger (these are its first units).
 */
async function lockProducto(
  trx: Knex.Transaction,
  productoId: number,
  bodegaId: number | null,
  entran?: number,
): Promise<{ bodegas: Map<number, BodegaBloqueada>; niveles: Niveles; filas: NivelRow[]; nuevo: boolean }> {
  for (;;) {
    // Its levels' warehouses, and (a row with a NULL warehouse) whether it has any line at all, in one
    // round trip (issue 23). No level and no line: the product is new to the ledger, and
    // (bloquearConocido held first) no level of it can appear before this commits: no command of it
    // runs, and nothing else makes a level of a product without lines. So its levels need no second,
    // locking read, and every level starts at version 0 (lockNiveles reads no lines): issue 23.
    const [leidas] = (await trx.raw(
      `SELECT bodega_id FROM existencias WHERE producto_id = ?
       UNION ALL (SELECT NULL AS bodega_id FROM movimientos WHERE producto_id = ? LIMIT 1)`,
      [productoId, productoId],
    )) as [{ bodega_id: number | null }[]];
    const donde = leidas.flatMap((r) => (r.bodega_id === null ? [] : [Number(r.bodega_id)]));
    const nuevo = leidas.length === 0;
    const ids = [...new Set([...donde, ...(bodegaId === null ? [] : [bodegaId])])].filter((id) => id !== SIN_UBICAR);
    // Held exclusively (units may come in). Only `bodegaId` gains units, at most `entran` when known:
    // with that much room under its stored occupancy the stripes need no fold (ocupacion.ts).
    const entrantes = new Map(
      ids.filter((id) => id !== bodegaId || entran !== undefined).map((id) => [id, id === bodegaId ? entran! : 0]),
    );
    const bodegas = await bloquearBodegas(trx, new Map(ids.map((id) => [id, 'exclusivo' as const])), entrantes);
    bodegas.set(SIN_UBICAR, sinUbicar());
    const filas = nuevo
      ? []
      : await trx<NivelRow>('existencias').where({ producto_id: productoId }).orderBy('id').forUpdate();
    // A level created in another warehouse between the two reads: lock that one too.
    if (filas.some((f) => !bodegas.has(f.bodega_id))) continue;
    const pares: [number, number][] = [...new Set([...filas.map((f) => f.bodega_id), ...bodegas.keys()])].map((b) => [
      b,
      productoId,
    ]);
    // filas are every level of the product, locked: no need to read them again (issue 23).
    return { bodegas, niveles: await lockNiveles(trx, pares, filas, nuevo), filas, nuevo };
  }
}

/** `cantidad` more units: into `bodegaId` as far as it has room, the rest unlocated. */
function entradas({
  productoId,
  bodegaId,
  bodegas,
  cantidad,
  tipo,
  motivo,
}: {
  productoId: number;
  bodegaId: number | null;
  bodegas: Map<number, BodegaBloqueada>;
  cantidad: number;
  tipo: TipoMovimiento;
  motivo: Cambio['motivo'];
}): Cambio[] {
  const bodega = bodegaId === null ? undefined : bodegas.get(bodegaId);
  const cabe = bodega ? Math.min(cantidad, Math.max(0, bodega.capacidad - bodega.ocupacion)) : 0;
  const cambios: Cambio[] = [];
  if (cabe > 0) cambios.push({ bodegaId: bodega!.id, productoId, tipo, motivo, delta: cabe });
  if (cantidad - cabe > 0) cambios.push({ bodegaId: SIN_UBICAR, productoId, tipo, motivo, delta: cantidad - cabe });
  return cambios;
}

export async function totalesDeProductos(db: Knex, productoIds: readonly number[]): Promise<TotalDeProducto[]> {
  if (productoIds.length === 0) return [];
  const rows = await withDbErrors(() =>
    db('existencias')
      .whereIn('producto_id', [...new Set(productoIds)])
      .groupBy('producto_id')
      .select<{ producto_id: number; total: number | string; sin_ubicar: number | string }[]>(
        'producto_id',
        db.raw('SUM(cantidad) AS total'),
        db.raw('SUM(CASE WHEN bodega_id = ? THEN cantidad ELSE 0 END) AS sin_ubicar', [SIN_UBICAR]),
      ),
  );
  const porId = new Map(rows.map((r) => [r.producto_id, { total: Number(r.total), sinUbicar: Number(r.sin_ubicar) }]));
  return productoIds.map((productoId) => ({
    productoId,
    ...(porId.get(productoId) ?? { total: 0, sinUbicar: 0 }),
  }));
}

export async function registrarStockInicial(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    inicial: { productoId, bodegaId, cantidad, origen },
    caller,
    opts,
  }: { inicial: StockInicial; caller: CallContext; opts: CommandOptions & StockInicialOptions },
): Promise<StockInicialRegistrado | null> {
  const recorded = writeRc(db, deps, caller, async (trx, at): Promise<StockInicialRegistrado | null> => {
    // No early check of the product's deletion: the one after the writes (sigueVivo below) rolls a
    // deleted product's recording back, and this one was one more round trip on every create (issue 23).
    // The row first: a second recording of this product and origin waits here, then finds it.
    try {
      await trx('stock_inicial').insert({ producto_id: productoId, origen, operacion_id: null, fecha: at });
    } catch (err) {
      if (!isDuplicateEntry(err)) throw err;
      const previa = await trx('stock_inicial')
        .where({ producto_id: productoId, origen })
        .first<{ operacion_id: number | string | null }>('operacion_id');
      return previa?.operacion_id == null ? null : { operacion: await readOperacion(trx, Number(previa.operacion_id)) };
    }
    // producto-svc asks for it: the product exists (stock commands need not ask again).
    await bloquearConocido(trx, productoId);
    const { bodegas, niveles, filas, nuevo } = await lockProducto(trx, productoId, bodegaId, cantidad);
    // The row stays, with no operation: held by bloquearConocido, no command of it ran in between.
    if (opts.soloSiNuevo && !nuevo) return null;
    // A migration records what no level explains; when the levels hold more, the ledger wins.
    const antes = filas.reduce((sum, f) => sum + f.cantidad, 0);
    const faltan = origen === 'MIGRACION' ? cantidad - antes : cantidad;
    if (faltan <= 0) return null;
    const cambios = entradas({ productoId, bodegaId, bodegas, cantidad: faltan, tipo: 'ENTRADA', motivo: origen });
    const comentario =
      origen === 'MIGRACION'
        ? 'migración: cantidadEnStock anterior al libro'
        : 'stock inicial del producto (cantidadEnStock al crearlo)';
    const operacion = await escribir(trx, deps, estado, {
      at,
      caller,
      nueva: { tipo: 'ENTRADA', comentario, claveIdempotencia: opts.claveIdempotencia },
      cambios,
      niveles,
      bodegas,
    });
    await trx('stock_inicial').where({ producto_id: productoId, origen }).update({ operacion_id: operacion.id });
    // Deleted meanwhile: the whole recording rolls back (answered as nothing recorded).
    if (!(await sigueVivo(trx, productoId))) throw new ProductoYaEliminado();
    // Its first units: no command of it can run until this commits (bloquearConocido), and none
    // ran before (no line), so its total at this commit is exactly what came in. Otherwise a level
    // it gets meanwhile in a warehouse this does not hold could be missed: no total (the caller asks).
    return nuevo ? { operacion, total: faltan } : { operacion };
  });
  return recorded.catch((err: unknown) => {
    if (err instanceof ProductoYaEliminado) return null;
    throw err;
  });
}

/**
 * The product's total becomes `cantidad`. More units go to its warehouse as far as it has
 * room, the rest unlocated; fewer come out of its warehouse's level first, then the unlocated
 * one, then its other warehouses in id order. One AJUSTE operation (motivo CONTEO); none when
 * the total already is `cantidad`.
 */
export function contarProducto(
  db: Knex,
  deps: ExistenciaStoreDeps,
  estado: EstadoExistencias,
  {
    conteo: { productoId, bodegaId, cantidad },
    caller,
    opts,
  }: { conteo: ConteoDeProducto; caller: CallContext; opts: CommandOptions },
): Promise<{ operacion: Operacion | null; total: number }> {
  return writeRc(db, deps, caller, async (trx, at) => {
    await bloquearConocido(trx, productoId);
    const { bodegas, niveles, filas } = await lockProducto(trx, productoId, bodegaId);
    const total = filas.reduce((sum, f) => sum + f.cantidad, 0);
    const diferencia = cantidad - total;
    if (diferencia === 0) {
      if (!(await sigueVivo(trx, productoId))) throw productoEliminado(productoId);
      return { operacion: null, total };
    }
    let cambios: Cambio[];
    if (diferencia > 0) {
      cambios = entradas({ productoId, bodegaId, bodegas, cantidad: diferencia, tipo: 'AJUSTE', motivo: 'CONTEO' });
    } else {
      const orden = (b: number) => (b === bodegaId ? 0 : b === SIN_UBICAR ? 1 : 2);
      const porOrden = [...filas].sort((x, y) => orden(x.bodega_id) - orden(y.bodega_id) || x.bodega_id - y.bodega_id);
      let falta = -diferencia;
      cambios = [];
      for (const f of porOrden) {
        const sale = Math.min(falta, f.cantidad);
        if (sale > 0)
          cambios.push({ bodegaId: f.bodega_id, productoId, tipo: 'AJUSTE', motivo: 'CONTEO', delta: -sale });
        falta -= sale;
      }
    }
    const comentario = `conteo del producto: cantidadEnStock ${cantidad}`;
    const operacion = await escribir(trx, deps, estado, {
      at,
      caller,
      nueva: { tipo: 'AJUSTE', comentario, claveIdempotencia: opts.claveIdempotencia },
      cambios,
      niveles,
      bodegas,
    });
    if (!(await sigueVivo(trx, productoId))) throw productoEliminado(productoId);
    return { operacion, total: cantidad };
  });
}
