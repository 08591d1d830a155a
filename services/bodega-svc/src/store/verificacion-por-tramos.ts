import { withDbErrors, type Knex } from '@inventario/platform';
import type { Diferencia, Verificacion } from './existencia-tipos';
import { ocupacionExactaSql } from './ocupacion';

/** The most differences one verification reports (the contract's bound). */
export const MAX_DIFERENCIAS = 1000;

/**
 * Rows each statement of a verification reads: lines, levels and warehouses, each a primary-key
 * range (no lookups, no sort), so every statement stays far inside DB_STATEMENT_TIMEOUT_MS whatever
 * the ledger's size, and the verification completes at any size, one slice after another.
 */
export interface Tramos {
  lineas: number;
  niveles: number;
  bodegas: number;
}

export const TRAMOS: Tramos = { lineas: 20_000, niveles: 5_000, bodegas: 1_000 };

/** A level's key; exact while warehouse ids stay below 2^21 (INT UNSIGNED product ids). */
const clave = (bodegaId: number, productoId: number): number => bodegaId * 2 ** 32 + productoId;

/**
 * What the lines of one level say so far: its last line's after, and the gaps where a line did not continue the one
 * before.
 */
interface Libro {
  bodegaId: number;
  productoId: number;
  posterior: number;
  saltos: number;
}

/**
 * Verifies the stock against its ledger (docs/contract.md §10.1) in bounded slices, inside one
 * REPEATABLE READ snapshot so every figure describes the same instant, and reports the same
 * differences as summing every level's lines would, without a statement that grows with the ledger.
 * It leans on what each line carries: its level before (`cantidad_anterior`) and after
 * (`cantidad_posterior`, a CHECK holds it equal to before + cantidad).
 *
 * - The lines, in slices by id (a level's lines are appended in order): each must continue the
 *   level's line before it (`cantidad_anterior` equal to its `cantidad_posterior`, 0 for the first).
 *   The sum of a level's lines is then its last line's `cantidad_posterior` less the gaps.
 * - The levels, in slices by id, against that; and their sums per warehouse.
 * - Levels that no longer exist (removed, their units written out): their lines must sum to 0.
 * - The warehouses, in slices by id: `ocupacion` against the sum of their levels.
 *
 * Memory: one small record per level that has lines (about 100 bytes), none per line.
 * `signal` stops it between slices (shutdown).
 */
export async function verificarPorTramos(
  db: Knex,
  tramos: Tramos = TRAMOS,
  signal?: AbortSignal,
): Promise<Verificacion> {
  return withDbErrors(() =>
    db.transaction(
      async (trx) => {
        const libros = await leerLibros(trx, tramos, signal);
        const { niveles, sumas, nivelesVerificados } = await verificarNiveles(trx, tramos, libros, signal);
        const huerfanos = huerfanosDe(libros);
        const { ocupaciones, bodegasVerificadas } = await verificarOcupaciones(trx, tramos, sumas, signal);
        const diferencias = [...niveles, ...huerfanos, ...ocupaciones];
        return {
          consistente: diferencias.length === 0,
          diferencias: diferencias.slice(0, MAX_DIFERENCIAS),
          nivelesVerificados,
          bodegasVerificadas,
        };
      },
      // Not readOnly: knex writes "SET TRANSACTION ISOLATION LEVEL ... READ ONLY", which MariaDB refuses.
      { isolationLevel: 'repeatable read' },
    ),
  );
}

/** The lines, in slices by id: each level's last `cantidad_posterior` and the gaps between its lines. */
async function leerLibros(trx: Knex.Transaction, tramos: Tramos, signal?: AbortSignal): Promise<Map<number, Libro>> {
  const libros = new Map<number, Libro>();
  for (let desde = 0; ;) {
    signal?.throwIfAborted();
    const [filas] = (await trx.raw(
      'SELECT id, bodega_id, producto_id, cantidad_anterior, cantidad_posterior FROM movimientos WHERE id > ' +
        '? ORDER BY id LIMIT ?',
      [desde, tramos.lineas],
    )) as [
      {
        id: number | string;
        bodega_id: number;
        producto_id: number;
        cantidad_anterior: number;
        cantidad_posterior: number;
      }[],
    ];
    if (filas.length === 0) break;
    for (const r of filas) {
      const k = clave(r.bodega_id, r.producto_id);
      const libro = libros.get(k);
      if (!libro) {
        libros.set(k, {
          bodegaId: r.bodega_id,
          productoId: r.producto_id,
          posterior: r.cantidad_posterior,
          saltos: r.cantidad_anterior,
        });
        continue;
      }
      libro.saltos += r.cantidad_anterior - libro.posterior;
      libro.posterior = r.cantidad_posterior;
    }
    desde = Number(filas.at(-1)!.id);
  }
  return libros;
}

/**
 * The levels, in slices by id, against their lines' sum, and the sum of the levels per warehouse. Each level's
 * book is taken out of `libros`: what is left are the lines of levels that no longer exist.
 */
async function verificarNiveles(
  trx: Knex.Transaction,
  tramos: Tramos,
  libros: Map<number, Libro>,
  signal?: AbortSignal,
): Promise<{ niveles: Diferencia[]; sumas: Map<number, number>; nivelesVerificados: number }> {
  const segunLibro = (k: number) => {
    const libro = libros.get(k);
    return libro ? libro.posterior - libro.saltos : 0;
  };
  const niveles: Diferencia[] = [];
  const sumas = new Map<number, number>();
  let nivelesVerificados = 0;
  for (let desde = 0; ;) {
    signal?.throwIfAborted();
    const [filas] = (await trx.raw(
      'SELECT id, bodega_id, producto_id, cantidad FROM existencias WHERE id > ? ORDER BY id LIMIT ?',
      [desde, tramos.niveles],
    )) as [{ id: number; bodega_id: number; producto_id: number; cantidad: number }[]];
    if (filas.length === 0) break;
    nivelesVerificados += filas.length;
    for (const r of filas) {
      const k = clave(r.bodega_id, r.producto_id);
      const calculado = segunLibro(k);
      libros.delete(k);
      sumas.set(r.bodega_id, (sumas.get(r.bodega_id) ?? 0) + r.cantidad);
      if (calculado !== r.cantidad)
        niveles.push({
          tipo: 'NIVEL',
          bodegaId: r.bodega_id,
          productoId: r.producto_id,
          registrado: r.cantidad,
          calculado,
        });
    }
    desde = filas.at(-1)!.id;
  }
  return { niveles, sumas, nivelesVerificados };
}

/** The books left after the levels: a level that no longer exists must have lines summing to 0. */
function huerfanosDe(libros: Map<number, Libro>): Diferencia[] {
  const huerfanos: Diferencia[] = [];
  for (const libro of libros.values()) {
    const calculado = libro.posterior - libro.saltos;
    if (calculado !== 0)
      huerfanos.push({
        tipo: 'NIVEL',
        bodegaId: libro.bodegaId,
        productoId: libro.productoId,
        registrado: 0,
        calculado,
      });
  }
  return huerfanos;
}

/** The warehouses, in slices by id: `ocupacion` against the sum of their levels. */
async function verificarOcupaciones(
  trx: Knex.Transaction,
  tramos: Tramos,
  sumas: Map<number, number>,
  signal?: AbortSignal,
): Promise<{ ocupaciones: Diferencia[]; bodegasVerificadas: number }> {
  const ocupaciones: Diferencia[] = [];
  let bodegasVerificadas = 0;
  for (let desde = 0; ;) {
    signal?.throwIfAborted();
    // The exact occupancy: the row less the exits not yet folded into it (ocupacion.ts).
    const [crudas] = (await trx.raw(
      `SELECT b.id, ${ocupacionExactaSql('b')} AS ocupacion FROM bodegas b WHERE b.id > ? ORDER BY b.id LIMIT ?`,
      [desde, tramos.bodegas],
    )) as [{ id: number; ocupacion: number | string }[]];
    const filas = crudas.map((r) => ({ id: r.id, ocupacion: Number(r.ocupacion) }));
    if (filas.length === 0) break;
    bodegasVerificadas += filas.length;
    for (const r of filas) {
      const calculado = sumas.get(r.id) ?? 0;
      if (calculado !== r.ocupacion)
        ocupaciones.push({
          tipo: 'OCUPACION',
          bodegaId: r.id,
          productoId: 0,
          registrado: r.ocupacion,
          calculado,
        });
    }
    desde = filas.at(-1)!.id;
  }
  return { ocupaciones, bodegasVerificadas };
}
