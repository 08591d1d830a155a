// The stock writes' locks, in the store's order (docs/contract.md §10; existencia-store.ts): the products' records,
// the warehouses, the levels; the checks made under them, and the version a command is conditioned on.

import { NotFoundError, VersionMismatchError, type Knex } from '@inventario/platform';
import { clave, type Cambio, type NivelActual } from '../domain/existencia';
import { bodegaEliminandose } from '../domain/bodega';
import { SIN_UBICAR } from './migrations';
import {
  bloquearBodegas,
  bloqueosDe,
  entrantesDe,
  lecturasDeBodegas,
  plegarSiHaceFalta,
  type Bloqueo,
  type BodegaBloqueada,
} from './ocupacion';
import { filasDe } from './sentencias';
import { leerNiveles, type SqlFija } from './sentencias-fijas';
import type { BodegaNombrada, CommandOptions, NivelRow } from './existencia-tipos';
import { bodegaNoExiste, noExisteBodega, productoEliminado, versionRequerida } from './existencia-errores';

export const nivelActual = (r: NivelRow): NivelActual => ({
  bodegaId: r.bodega_id,
  productoId: r.producto_id,
  existe: true,
  cantidad: r.cantidad,
  umbralMinimo: r.umbral_minimo,
  version: r.version,
  alertaSobre: r.alerta_sobre ?? 'CANTIDAD',
});

/** The unlocated level's "warehouse" for the planner: no capacity to run out of, no row to lock. */
export const sinUbicar = (): BodegaBloqueada => ({
  id: SIN_UBICAR,
  capacidad: Number.MAX_SAFE_INTEGER,
  ocupacion: 0,
  bloqueo: 'exclusivo',
});

/** A product named by a command: known here, and its deletion record when it has one. */
interface FilaConocida {
  conocido: number;
  eliminado: number | null;
}

/** Internal: the write names a product this service has not seen yet (conProductosConocidos). */
export class ProductosDesconocidos extends Error {
  constructor() {
    super('the write names a product this service has not seen yet');
    this.name = 'ProductosDesconocidos';
  }
}

/**
 * The shared (gap) lock makes a concurrent ProductoEliminado wait for this write, or this write wait and see its
 * record.
 */
export async function requireProductosVivos(trx: Knex.Transaction, productoIds: number[]): Promise<void> {
  const rows = await trx('productos_eliminados')
    .whereIn('producto_id', productoIds)
    .forShare()
    .select<{ producto_id: number }[]>('producto_id');
  if (rows.length > 0) throw productoEliminado(rows[0]!.producto_id);
}

/** A warehouse being deleted takes no stock write (BODEGA_ELIMINANDOSE), but its own write-out's (`eliminandose`). */
export async function lockBodegas(
  trx: Knex.Transaction,
  bloqueos: Map<number, Bloqueo>,
  { eliminandose = false, entrantes }: { eliminandose?: boolean; entrantes?: ReadonlyMap<number, number> } = {},
): Promise<Map<number, BodegaBloqueada>> {
  return comprobarBodegas(bloqueos, await bloquearBodegas(trx, bloqueos, entrantes), eliminandose);
}

/** What lockBodegas requires of the warehouses it locked: all there, none being deleted. */
export function comprobarBodegas(
  bloqueos: ReadonlyMap<number, Bloqueo>,
  out: Map<number, BodegaBloqueada>,
  eliminandose = false,
): Map<number, BodegaBloqueada> {
  for (const id of [...bloqueos.keys()].sort((a, b) => a - b)) {
    const b = out.get(id);
    if (!b) throw bodegaNoExiste(id);
    // Held shared is enough only for a command that takes units out there.
    if (bloqueos.get(id) === 'exclusivo' && b.bloqueo !== 'exclusivo')
      throw new Error(`warehouse ${id} is held shared; the write needs it exclusively`);
  }
  const marcada = [...out.values()].find((b) => b.eliminando);
  if (marcada && !eliminandose) throw bodegaEliminandose(marcada.id);
  return out;
}

/** lockBodegas, a missing warehouse the request named being a 404 naming its field, every missing one at once. */
export async function lockBodegasNombradas(
  trx: Knex.Transaction,
  bloqueos: Map<number, Bloqueo>,
  nombradas?: readonly BodegaNombrada[],
  entrantes?: ReadonlyMap<number, number>,
  /** Their rows, when the caller's locking read already took them (bloquearJuntos). */
  leidas?: readonly BodegaBloqueada[],
): Promise<Map<number, BodegaBloqueada>> {
  try {
    return leidas
      ? comprobarBodegas(bloqueos, await plegarSiHaceFalta(trx, leidas, entrantes))
      : await lockBodegas(trx, bloqueos, { entrantes });
  } catch (err) {
    if (!(err instanceof NotFoundError) || !nombradas) throw err;
    const existentes = new Set(
      await trx('bodegas')
        .whereIn(
          'id',
          nombradas.map((n) => n.id),
        )
        .pluck<number[]>('id'),
    );
    const faltan = nombradas.filter((n) => !existentes.has(n.id));
    throw faltan.length > 0 ? NotFoundError.campos(faltan.map(noExisteBodega)) : err;
  }
}

/**
 * In the write's transaction: a product it names that this service has not seen sends it to
 * conProductosConocidos; one deleted is PRODUCTO_ELIMINADO. A locking read, as every read before
 * the write's locks: a plain one would fix the transaction's snapshot before it waits for its
 * warehouse. What requireProductosVivos checks, and whether the products are known, in one
 * statement (issue 23: one round trip less on every stock command). Under REPEATABLE READ a locking read takes, for
 * each known product, its
 * productos_eliminados record shared, or the gap where it would go when there is none (the join's
 * lookup is a unique search of that primary key, locked like requireProductosVivos's own), so a
 * ProductoEliminado waits for this write as before. A product not known yet has no lookup there:
 * this write stops (ProductosDesconocidos) and runs again once it is known, checked again then.
 */
async function requireConocidosVivos(trx: Knex.Transaction, productoIds: number[]): Promise<void> {
  const { sql, bindings } = conocidosVivos(productoIds);
  const [rows] = (await trx.raw(sql, bindings)) as [FilaConocida[]];
  comprobarConocidosVivos(rows, productoIds);
}

function conocidosVivos(productoIds: number[]): { sql: string; bindings: Knex.RawBinding[] } {
  const ids = [...new Set(productoIds)];
  return {
    sql: `SELECT c.producto_id AS conocido, e.producto_id AS eliminado
       FROM productos_conocidos c LEFT JOIN productos_eliminados e ON e.producto_id = c.producto_id
      WHERE c.producto_id IN (${ids.map(() => '?').join(', ')}) LOCK IN SHARE MODE`,
    bindings: ids,
  };
}

function comprobarConocidosVivos(rows: readonly FilaConocida[], productoIds: number[]): void {
  const eliminado = rows.find((r) => r.eliminado !== null);
  if (eliminado) throw productoEliminado(eliminado.conocido);
  if (rows.length < new Set(productoIds).size) throw new ProductosDesconocidos();
}

/**
 * A command's locking reads, in the lock order (its products' records, its warehouses, its levels), sent
 * in one query (issue 24: two round trips less on every movement and transfer, each of them time its
 * locks are held), and checked as comando checks them one by one. Reads of warehouses or levels that
 * the first check then refuses only lock rows, which the refused write's rollback lets go.
 */
export async function bloquearJuntos(
  trx: Knex.Transaction,
  productoIds: number[],
  cambios: Cambio[],
  nombradas: readonly BodegaNombrada[] | undefined,
  alta?: SqlFija,
): Promise<{ bodegas: Map<number, BodegaBloqueada>; niveles: Niveles; operacionId?: number }> {
  const bloqueos = bloqueosDe(cambios);
  const lecturas = lecturasDeBodegas(bloqueos);
  const pares = cambios.map((c): [number, number] => [c.bodegaId, c.productoId]);
  const productos = nombradas
    ? conocidosVivos(productoIds)
    : trx('productos_eliminados')
        .whereIn('producto_id', productoIds)
        .forShare()
        .select('producto_id')
        .toSQL()
        .toNative();
  const partes = [productos, ...lecturas.map((l) => l.consulta), leerNiveles(pares), ...(alta ? [alta] : [])];
  const [resultados] = (await trx.raw(
    partes.map((p) => p.sql).join(';\n'),
    partes.flatMap((p) => p.bindings as Knex.RawBinding[]),
  )) as [unknown[][]];
  if (nombradas) comprobarConocidosVivos(resultados[0] as FilaConocida[], productoIds);
  else {
    const eliminados = resultados[0] as { producto_id: number }[];
    if (eliminados.length > 0) throw productoEliminado(eliminados[0]!.producto_id);
  }
  const leidas = lecturas.flatMap((l, i) => l.leidas(resultados[1 + i] as Parameters<typeof l.leidas>[0]));
  const bodegas = await lockBodegasNombradas(trx, bloqueos, nombradas, entrantesDe(cambios), leidas);
  const niveles = await lockNiveles(trx, pares, resultados[1 + lecturas.length] as NivelRow[]);
  if (!alta) return { bodegas, niveles };
  const insertada = resultados[2 + lecturas.length] as unknown as { insertId: number | string };
  return { bodegas, niveles, operacionId: Number(insertada.insertId) };
}

export interface Niveles {
  actuales: Map<string, NivelActual>;
  filas: Map<string, number>;
  /**
   * Each locked level's `reservada` as its locking read found it (issue 23): 0 there means no hold,
   * and none can appear before this transaction commits (a hold is added under the level's own lock),
   * so respetarReservas needs no second read of it.
   */
  reservadas?: Map<string, number>;
  /**
   * The locked levels whose threshold may watch `disponible` (alerta_sobre not read as CANTIDAD): the others
   * need no alert read after the write. A level this operation creates watches its units (the default).
   */
  puedenVigilarDisponible?: Set<string>;
}

/**
 * `bloqueadas`: the levels among `pares` this transaction already holds FOR UPDATE, all of them (read again
 * otherwise).
 */
export async function lockNiveles(
  trx: Knex.Transaction,
  pares: [number, number][],
  bloqueadas?: readonly NivelRow[],
  sinLineas = false,
): Promise<Niveles> {
  const actuales = new Map<string, NivelActual>();
  const filas = new Map<string, number>();
  const reservadas = new Map<string, number>();
  const puedenVigilarDisponible = new Set<string>();
  if (pares.length === 0) return { actuales, filas, reservadas, puedenVigilarDisponible };
  const rows = bloqueadas ?? (await filasDe<NivelRow>(trx, leerNiveles(pares)));
  for (const r of rows) {
    const k = clave(r.bodega_id, r.producto_id);
    filas.set(k, r.id);
    actuales.set(k, nivelActual(r));
    if (r.reservada !== undefined) reservadas.set(k, Number(r.reservada));
    if (r.alerta_sobre !== 'CANTIDAD') puedenVigilarDisponible.add(k);
  }
  const faltan = pares.filter(([b, p]) => !actuales.has(clave(b, p)));
  if (faltan.length > 0 && !sinLineas) {
    // A removed level continues its lines' versions. Locking read: a plain one would use the snapshot of
    // the transaction's first read and miss lines committed while it waited for its locks.
    const previas = await trx('movimientos')
      .whereIn(['bodega_id', 'producto_id'], faltan)
      .groupBy('bodega_id', 'producto_id')
      .forShare()
      .select<{ bodega_id: number; producto_id: number; version: number }[]>(
        'bodega_id',
        'producto_id',
        trx.raw('MAX(version) AS version'),
      );
    const ultima = new Map(previas.map((r) => [clave(r.bodega_id, r.producto_id), Number(r.version)]));
    for (const [b, p] of faltan) {
      actuales.set(clave(b, p), {
        bodegaId: b,
        productoId: p,
        existe: false,
        cantidad: 0,
        umbralMinimo: null,
        version: ultima.get(clave(b, p)) ?? 0,
      });
    }
  } else {
    // `sinLineas`: the caller knows these products have no line at all, so every level starts at version 0.
    for (const [b, p] of faltan)
      actuales.set(clave(b, p), {
        bodegaId: b,
        productoId: p,
        existe: false,
        cantidad: 0,
        umbralMinimo: null,
        version: 0,
      });
  }
  return { actuales, filas, reservadas, puedenVigilarDisponible };
}

/**
 * Version 0 means "no level". `fijar`: the write sets the level, so an existing one needs its
 * version (PRECONDITION_REQUIRED, REST 428).
 */
export function requireVersion(
  nivel: NivelActual,
  { expectedVersion, requiereNivel }: CommandOptions,
  fijar = false,
): void {
  if (requiereNivel && !nivel.existe) {
    throw new VersionMismatchError(
      null,
      `no hay existencias del producto ${nivel.productoId} en la bodega ${nivel.bodegaId}`,
    );
  }
  if (fijar && nivel.existe && expectedVersion === undefined) throw versionRequerida(nivel.bodegaId, nivel.productoId);
  if (expectedVersion === undefined) return;
  const actual = nivel.existe ? nivel.version : 0;
  if (actual !== expectedVersion)
    throw nivel.existe
      ? VersionMismatchError.of(actual, expectedVersion)
      : new VersionMismatchError(
          null,
          `no hay existencias del producto ${nivel.productoId} en la bodega ${nivel.bodegaId}`,
        );
}

/** comando's locks, a statement at a time: what bloquearJuntos sends in one query. */
export async function bloquearUnoAUno(
  trx: Knex.Transaction,
  productoIds: number[],
  cambios: Cambio[],
  nombradas: readonly BodegaNombrada[] | undefined,
): Promise<{ bodegas: Map<number, BodegaBloqueada>; niveles: Niveles }> {
  // A command naming its products by request (not a reversal of lines already written) needs them known too.
  if (nombradas) await requireConocidosVivos(trx, productoIds);
  else await requireProductosVivos(trx, productoIds);
  const bodegas = await lockBodegasNombradas(trx, bloqueosDe(cambios), nombradas, entrantesDe(cambios));
  const niveles = await lockNiveles(
    trx,
    cambios.map((c) => [c.bodegaId, c.productoId]),
  );
  return { bodegas, niveles };
}
