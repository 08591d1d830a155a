import type { Knex } from '@inventario/platform';
import type { BodegaActual, Cambio } from '../domain/existencia';
import { enviarJuntas, filasDe } from './sentencias';
import { leerBodegas, moverOcupacionBodega, sumarATramo, type SqlFija } from './sentencias-fijas';

/**
 * A warehouse's occupancy without a hot row (issue 23; docs/decisions.md,
 * "Exits do not wait for each other"). An exit can never overflow a
 * warehouse, so it needs no room and takes no exclusive lock on the
 * warehouse: it holds the row shared and adds the units it took out to one
 * of TRAMOS_SALIDAS stripe rows (`bodega_salidas`), chosen at random, so
 * exits of one warehouse only meet when they pick the same stripe. Whatever
 * adds units (or sets a level, or changes the capacity) holds the row
 * exclusively, which waits for the exits in flight and keeps new ones out,
 * and folds the stripes into `bodegas.ocupacion` when it needs the exact
 * figure: from then on that column is the exact occupancy, and the room it
 * checks is exact. A write that knows how many units it adds (`entrantes`)
 * and finds room for them under the column alone (an upper bound of the
 * exact figure) needs no fold: the room is there either way (issue 23: the
 * fold read and locked every stripe, which also made the exits of the
 * warehouse wait for the entry's commit).
 *
 * - exact occupancy = `bodegas.ocupacion` - SUM(`bodega_salidas.unidades`);
 * - `bodegas.ocupacion` is never below it, so its CHECK (`ocupacion <=
 *   capacidad`) still bounds the exact figure in the database itself.
 */
export const TRAMOS_SALIDAS = 16;
export const SALIDAS = 'bodega_salidas';

/** Exact occupancy of `bodegas` aliased `alias`, as an SQL expression. */
export const ocupacionExactaSql = (alias: string) =>
  `(${alias}.ocupacion - COALESCE((SELECT SUM(s.unidades) FROM ${SALIDAS} s WHERE s.bodega_id = ${alias}.id), 0))`;

/** Shared: the command only takes units out of the warehouse. Exclusive: anything else. */
export type Bloqueo = 'compartido' | 'exclusivo';

/**
 * A warehouse as a stock write holds it. `ocupacion` is exact when held exclusively and folded, an
 * upper bound otherwise (shared, or exclusive with room for its `entrantes` without a fold).
 */
export interface BodegaBloqueada extends BodegaActual {
  bloqueo: Bloqueo;
  /** A forced delete has marked it (bodegas.eliminando_desde). */
  eliminando?: boolean;
}

const soloQuita = (c: Cambio) => ('delta' in c && c.delta < 0) || 'retirar' in c;

/** How a command holds each of its warehouses: shared only when every change there takes units out. */
export function bloqueosDe(cambios: readonly Cambio[]): Map<number, Bloqueo> {
  const out = new Map<number, Bloqueo>();
  for (const c of cambios) {
    if (!soloQuita(c)) out.set(c.bodegaId, 'exclusivo');
    else if (!out.has(c.bodegaId)) out.set(c.bodegaId, 'compartido');
  }
  return out;
}

/**
 * The most units each exclusively held warehouse can gain from `cambios`, when that is known
 * before the levels are read: only `delta` changes there. A warehouse with a change that sets a
 * level (`fijar`) is left out: it needs its exact occupancy.
 */
export function entrantesDe(cambios: readonly Cambio[]): Map<number, number> {
  const out = new Map<number, number>();
  const fijadas = new Set<number>();
  for (const c of cambios) {
    if ('fijar' in c) fijadas.add(c.bodegaId);
    else if ('delta' in c) out.set(c.bodegaId, (out.get(c.bodegaId) ?? 0) + Math.max(0, c.delta));
    else out.set(c.bodegaId, out.get(c.bodegaId) ?? 0);
  }
  for (const id of fijadas) out.delete(id);
  return out;
}

/**
 * Locks the warehouses in ascending id order, each as asked; an exclusive one
 * has its stripes folded, so its `ocupacion` is exact, unless `entrantes`
 * says how many units it can gain at most and they fit under its stored
 * `ocupacion` (an upper bound): then that bound is what it holds, and the
 * room it shows is room it has. Missing warehouses are left out of the
 * answer (the caller decides what that means).
 */
export async function bloquearBodegas(
  trx: Knex.Transaction,
  bloqueos: ReadonlyMap<number, Bloqueo>,
  entrantes?: ReadonlyMap<number, number>,
): Promise<Map<number, BodegaBloqueada>> {
  const lecturas = lecturasDeBodegas(bloqueos);
  const filas = await enSerie(lecturas, async (l) => l.leidas(await filasDe<FilaBodega>(trx, l.consulta)));
  return plegarSiHaceFalta(trx, filas.flat(), entrantes);
}

type FilaBodega = BodegaActual & { eliminando_desde: Date | null };

/**
 * bloquearBodegas's locking reads, not sent (a write may send them with its other locking reads, in the
 * same order: issue 24), each with how to read its rows. One statement when every warehouse is held alike;
 * otherwise one per warehouse, still in id order.
 */
export function lecturasDeBodegas(
  bloqueos: ReadonlyMap<number, Bloqueo>,
): { consulta: SqlFija; leidas(rows: FilaBodega[]): BodegaBloqueada[] }[] {
  const ids = [...bloqueos.keys()].sort((a, b) => a - b);
  const modos = new Set(bloqueos.values());
  const leer = (grupo: number[], bloqueo: Bloqueo) => ({
    consulta: leerBodegas(grupo, bloqueo),
    leidas: (rows: FilaBodega[]): BodegaBloqueada[] =>
      rows.map((r) => ({
        id: r.id,
        capacidad: r.capacidad,
        ocupacion: Number(r.ocupacion),
        bloqueo,
        eliminando: r.eliminando_desde !== null,
      })),
  });
  return modos.size <= 1 ? [leer(ids, [...modos][0] ?? 'exclusivo')] : ids.map((id) => leer([id], bloqueos.get(id)!));
}

/**
 * The rest of bloquearBodegas once its rows are read: each exclusively held warehouse without room for its
 * `entrantes` under its stored occupancy has its stripes folded, so its `ocupacion` is exact.
 */
export async function plegarSiHaceFalta(
  trx: Knex.Transaction,
  filas: readonly BodegaBloqueada[],
  entrantes?: ReadonlyMap<number, number>,
): Promise<Map<number, BodegaBloqueada>> {
  const out = new Map(filas.map((b) => [b.id, b]));
  const caben = (b: BodegaBloqueada) => {
    const n = entrantes?.get(b.id);
    return n !== undefined && b.ocupacion + n <= b.capacidad;
  };
  const exclusivas = filas.filter((b) => b.bloqueo === 'exclusivo' && !caben(b)).map((b) => b.id);
  for (const [id, plegado] of await plegarSalidas(trx, exclusivas)) out.get(id)!.ocupacion -= plegado;
  return out;
}

async function enSerie<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (const item of items) out.push(await work(item));
  return out;
}

/**
 * Folds the stripes of warehouses whose rows this transaction holds
 * exclusively (no exit of theirs is in flight) into `bodegas.ocupacion`;
 * answers the units folded per warehouse. A locking read: a plain one would
 * read the transaction's snapshot and miss exits committed since.
 */
export async function plegarSalidas(trx: Knex.Transaction, ids: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (ids.length === 0) return out;
  const rows = await trx(SALIDAS)
    .whereIn('bodega_id', ids)
    .orderBy(['bodega_id', 'tramo'])
    .forUpdate()
    .select<{ bodega_id: number; unidades: number | string }[]>('bodega_id', 'unidades');
  for (const r of rows) out.set(r.bodega_id, (out.get(r.bodega_id) ?? 0) + Number(r.unidades));
  for (const [id, plegado] of out) {
    if (plegado === 0) continue;
    await trx('bodegas').where({ id }).decrement('ocupacion', plegado);
    await trx(SALIDAS).where({ bodega_id: id }).andWhere('unidades', '>', 0).update({ unidades: 0 });
  }
  return out;
}

/** Records a change of occupancy: in the row when held exclusively, else (units out only) in a random stripe. */
export async function moverOcupacion(trx: Knex.Transaction, bodega: BodegaBloqueada, delta: number): Promise<void> {
  const cambio = cambioDeOcupacion(bodega, delta);
  if (cambio) await enviarJuntas(trx, [cambio], false);
}

/**
 * moverOcupacion's UPDATE, not sent (a write sends it with its other last statements, issue 23), and
 * the check of the rows it changed. Undefined when nothing changes.
 */
export function cambioDeOcupacion(
  bodega: BodegaBloqueada,
  delta: number,
): { sentencia: SqlFija; comprobar(filas: number): void } | undefined {
  if (delta === 0) return undefined;
  if (bodega.bloqueo === 'exclusivo')
    return { sentencia: moverOcupacionBodega(bodega.id, delta), comprobar: () => undefined };
  if (delta > 0)
    throw new Error(`moverOcupacion: warehouse ${bodega.id} is held shared and cannot take ${delta} units`);
  const tramo = Math.floor(Math.random() * TRAMOS_SALIDAS);
  return {
    sentencia: sumarATramo(bodega.id, tramo, -delta),
    comprobar(filas) {
      if (filas !== 1) throw new Error(`moverOcupacion: warehouse ${bodega.id} has no stripe ${tramo}`);
    },
  };
}

/** The stripes of every warehouse: created with it (trigger) and removed with it (foreign key). */
export async function crearTramosSalidas(db: Knex): Promise<void> {
  await db.schema.createTable(SALIDAS, (t) => {
    t.engine('InnoDB');
    t.integer('bodega_id').unsigned().notNullable().references('id').inTable('bodegas').onDelete('CASCADE');
    t.tinyint('tramo').unsigned().notNullable();
    t.bigInteger('unidades').unsigned().notNullable().defaultTo(0);
    t.primary(['bodega_id', 'tramo']);
  });
  const tramos = Array.from({ length: TRAMOS_SALIDAS }, (_, i) => i);
  await db.raw(
    `INSERT INTO ${SALIDAS} (bodega_id, tramo, unidades) SELECT b.id, t.tramo, 0 FROM bodegas b CROSS JOIN ` +
      `(${tramos.map((i) => `SELECT ${i} AS tramo`).join(' UNION ALL ')}) t`,
  );
  await db.raw(
    `CREATE TRIGGER bodegas_tramos_salidas AFTER INSERT ON bodegas FOR EACH ROW
       INSERT INTO ${SALIDAS} (bodega_id, tramo, unidades) VALUES ${tramos.map((i) => `(NEW.id, ${i}, 0)`).join(', ')}`,
  );
}

/** Folds every stripe back into the rows before dropping them. */
export async function quitarTramosSalidas(db: Knex): Promise<void> {
  await db.raw(`UPDATE bodegas b SET b.ocupacion = ${ocupacionExactaSql('b')}`);
  await db.raw('DROP TRIGGER IF EXISTS bodegas_tramos_salidas');
  await db.schema.dropTableIfExists(SALIDAS);
}
