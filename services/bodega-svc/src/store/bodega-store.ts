import {
  AlreadyExistsError,
  BODEGA_CAMPOS,
  claimResumableIdempotencyKey,
  FailedPreconditionError,
  changedFields,
  NotFoundError,
  enqueueEvent,
  isDuplicateEntry,
  jsonResultCodec,
  VersionMismatchError,
  nowToSecond,
  recordIdempotentResult,
  wasDeleted,
  withDbErrors,
  writeTransaction,
  type CallContext,
  type Knex,
} from '@inventario/platform';
import { bodegaEliminandose, type Bodega, type BodegaChanges, type NewBodega } from '../domain/bodega';
import type { BodegaQuery } from '../domain/listing';
import type { BodegaEvents } from '../events/bodega-events';
import type { ExistenciaStore } from './existencia-store';
import { NOMBRE_UNIQUE_INDEX } from './migrations';
import { ocupacionExactaSql, plegarSalidas } from './ocupacion';

const TABLE = 'bodegas';

export interface BodegaPage {
  bodegas: Bodega[];
  hasMore: boolean;
}

/**
 * Every write commits with its event row (outbox): a committed write always
 * produces its event, a rejected one never. Driver errors never escape.
 */
export interface BodegaStore {
  create(bodega: NewBodega, caller: CallContext): Promise<Bodega>;
  get(id: number): Promise<Bodega>;
  /**
   * Whether this service deleted warehouse `id`: false for a live warehouse and for an id never created (platform's
   * deletion record).
   */
  wasDeleted(id: number): Promise<boolean>;
  /** Ordered by id. */
  list(query: BodegaQuery): Promise<BodegaPage>;
  /**
   * NotFoundError, AlreadyExistsError, or VersionMismatchError when `expectedVersion` differs from the stored one.
   * The event lists the fields whose value differed from the locked row.
   */
  update(id: number, cambios: BodegaChanges, caller: CallContext, expectedVersion?: number): Promise<Bodega>;
  /**
   * Refused while it holds stock (BODEGA_CON_EXISTENCIAS) unless
   * `retirarExistencias`: then a forced delete in bounded transactions
   * (marcarEliminacion's mark under `expectedVersion`, at most
   * RETIRO_POR_TRAMO levels written out in each, the row deleted by the one
   * that finds none left), at most `maxChunks` of them per call (0: all).
   */
  delete(
    id: number,
    caller: CallContext,
    options?: { expectedVersion?: number; retirarExistencias?: boolean; maxChunks?: number },
  ): Promise<Retiro>;
  /**
   * Marks the warehouse as being deleted under `expectedVersion`, in one
   * transaction: from its commit on, updates and stock writes of it are
   * refused (BODEGA_ELIMINANDOSE), so its version holds until a forced
   * delete completes. Idempotent.
   */
  marcarEliminacion(id: number, expectedVersion?: number): Promise<Bodega>;
}

/** What a forced delete has written out so far, the whole deletion's (the progress is kept with the row). */
export interface Retiro {
  niveles: number;
  unidades: number;
  /** The warehouse is still there: call again to go on. */
  pendiente: boolean;
}

/**
 * Levels written out per transaction of a forced delete: one operation of the ledger, its locks and statements bounded.
 */
export const RETIRO_POR_TRAMO = 500;

export interface BodegaStoreDeps {
  events: BodegaEvents;
  /** Wakes the outbox relay after commit, instead of its next poll. */
  onCommitted?: () => void;
  idempotencyTtlSeconds: number;
  existencias: Pick<ExistenciaStore, 'retirarDeBodega' | 'tieneExistencias'>;
}

interface BodegaRow {
  id: number;
  nombre: string;
  ubicacion: string | null;
  capacidad: number;
  fecha_creacion: Date;
  fecha_actualizacion: Date;
  version: number;
  ocupacion: number;
  /** Set by marcarEliminacion: a forced delete is under way. */
  eliminando_desde: Date | null;
  retiradas_niveles: number;
  retiradas_unidades: number | string;
  /** Reads add the exits not yet folded into `ocupacion` (ocupacion.ts). */
  ocupacion_exacta?: number | string;
}

function toBodega(row: BodegaRow): Bodega {
  return {
    id: Number(row.id),
    nombre: row.nombre,
    ubicacion: row.ubicacion,
    capacidad: row.capacidad,
    fechaCreacion: row.fecha_creacion,
    fechaActualizacion: row.fecha_actualizacion,
    version: row.version,
    ocupacion: Number(row.ocupacion_exacta ?? row.ocupacion),
  };
}

function notFound(id: number): NotFoundError {
  return new NotFoundError(`No existe la bodega con id ${id}`);
}

/** Only the unique index on nombre can collide; anything else is not ours to explain. */
function isDuplicateNombre(err: unknown): boolean {
  return isDuplicateEntry(err) && err instanceof Error && err.message.includes(NOMBRE_UNIQUE_INDEX);
}

function duplicateNombre(nombre: string): AlreadyExistsError {
  return new AlreadyExistsError(`Ya existe una bodega con el nombre '${nombre}'`);
}

function requireVersion(actual: Bodega, expectedVersion: number | undefined): void {
  if (expectedVersion !== undefined && actual.version !== expectedVersion) {
    throw VersionMismatchError.of(actual.version, expectedVersion);
  }
}

const RESULTS = jsonResultCodec(['fechaCreacion', 'fechaActualizacion']);

/** At a whole-second instant: the precision we store and publish. */
function write<T>(
  db: Knex,
  deps: BodegaStoreDeps,
  caller: CallContext,
  work: (trx: Knex.Transaction, at: Date) => Promise<T>,
): Promise<T> {
  return writeTransaction(db, (trx) => work(trx, nowToSecond()), {
    onCommitted: deps.onCommitted,
    idempotency: { key: caller.idempotency, codec: RESULTS, ttlSeconds: deps.idempotencyTtlSeconds },
    signal: caller.signal,
  });
}

async function lockedRow(trx: Knex.Transaction, id: number): Promise<BodegaRow> {
  const row = await trx<BodegaRow>(TABLE).where({ id }).forUpdate().first();
  if (!row) throw notFound(id);
  // Held exclusively, no exit is in flight: folding its stripes makes `ocupacion` exact (and a capacity check against
  // it).
  const plegado = (await plegarSalidas(trx, [id])).get(id) ?? 0;
  return { ...row, ocupacion: row.ocupacion - plegado };
}

/** The mark under the version check, in the caller's transaction; a marked warehouse keeps its mark. */
async function marcar(trx: Knex.Transaction, id: number, expectedVersion: number | undefined): Promise<BodegaRow> {
  const row = await lockedRow(trx, id);
  requireVersion(toBodega(row), expectedVersion);
  if (row.eliminando_desde === null) {
    row.eliminando_desde = nowToSecond();
    await trx(TABLE).where({ id }).update({ eliminando_desde: row.eliminando_desde });
  }
  return row;
}

/**
 * One transaction of a forced delete: the mark (taken here when the
 * caller did not take it first), at most RETIRO_POR_TRAMO levels written
 * out, the figures kept with the row; the row deleted, with its event,
 * once no level is left. With a key, each transaction records the
 * deletion so far (so a key reused for another request is refused before
 * anything changes) and a completed one replays it.
 */
function tramoDeEliminacion(
  db: Knex,
  deps: BodegaStoreDeps,
  { id, caller, expectedVersion }: { id: number; caller: CallContext; expectedVersion: number | undefined },
): Promise<{ retiro: Retiro; replayed: boolean }> {
  const key = caller.idempotency;
  return writeTransaction(
    db,
    async (trx) => {
      if (key) {
        const recorded = await claimResumableIdempotencyKey(trx, key);
        const previo = recorded === undefined ? undefined : (RESULTS.decode(recorded) as Retiro);
        if (previo && !previo.pendiente) return { retiro: previo, replayed: true };
      }
      const row = await marcar(trx, id, expectedVersion);
      const at = nowToSecond();
      const tramo = await deps.existencias.retirarDeBodega(trx, id, caller, at, RETIRO_POR_TRAMO);
      const retiro: Retiro = {
        niveles: row.retiradas_niveles + tramo.niveles,
        unidades: Number(row.retiradas_unidades) + tramo.unidades,
        pendiente: tramo.niveles === RETIRO_POR_TRAMO,
      };
      if (retiro.pendiente) {
        await trx(TABLE)
          .where({ id })
          .update({ retiradas_niveles: retiro.niveles, retiradas_unidades: retiro.unidades });
      } else {
        // The row last: what referred to it is gone, and its event tells the other services.
        await trx(TABLE).where({ id }).delete();
        await enqueueEvent(trx, deps.events.eliminada(toBodega(row), { ...caller, at }));
      }
      if (key) await recordIdempotentResult(trx, key, RESULTS.encode(retiro), deps.idempotencyTtlSeconds);
      return { retiro, replayed: false };
    },
    { onCommitted: deps.onCommitted, signal: caller.signal },
  );
}

/** The row with its exact occupancy. */
const conOcupacion = (conn: Knex) =>
  conn<BodegaRow>(TABLE).select<BodegaRow[]>(
    `${TABLE}.*`,
    conn.raw(`${ocupacionExactaSql(TABLE)} AS ocupacion_exacta`),
  );

function create(
  db: Knex,
  deps: BodegaStoreDeps,
  { datos, caller }: { datos: NewBodega; caller: CallContext },
): Promise<Bodega> {
  return write(db, deps, caller, async (trx, at) => {
    let id: number;
    try {
      const [insertId] = await trx(TABLE).insert({
        nombre: datos.nombre,
        ubicacion: datos.ubicacion,
        capacidad: datos.capacidad,
        fecha_creacion: at,
        fecha_actualizacion: at,
      });
      id = Number(insertId);
    } catch (err) {
      if (isDuplicateNombre(err)) throw duplicateNombre(datos.nombre);
      throw err;
    }
    // Both dates are equal on creation (docs/contract.md §2.1).
    const bodega: Bodega = { id, ...datos, fechaCreacion: at, fechaActualizacion: at, version: 1, ocupacion: 0 };
    await enqueueEvent(trx, deps.events.creada(bodega, { ...caller, at }));
    return bodega;
  });
}

async function get(db: Knex, id: number): Promise<Bodega> {
  const row = await withDbErrors(() => conOcupacion(db).where({ id }).first<BodegaRow | undefined>());
  if (!row) throw notFound(id);
  return toBodega(row);
}

function bodegaWasDeleted(db: Knex, id: number): Promise<boolean> {
  return withDbErrors(() => wasDeleted(db, TABLE, id));
}

async function list(db: Knex, { pageSize, afterId, ids }: BodegaQuery): Promise<BodegaPage> {
  const rows = await withDbErrors(() => {
    const q = conOcupacion(db)
      .orderBy('id')
      .limit(pageSize + 1);
    if (afterId !== null) q.where('id', '>', afterId);
    if (ids.length > 0) q.whereIn('id', ids);
    return q;
  });
  // One row beyond the page tells whether another page exists, without a COUNT.
  return { bodegas: rows.slice(0, pageSize).map(toBodega), hasMore: rows.length > pageSize };
}

function update(
  db: Knex,
  deps: BodegaStoreDeps,
  {
    id,
    cambios,
    caller,
    expectedVersion,
  }: { id: number; cambios: BodegaChanges; caller: CallContext; expectedVersion?: number },
): Promise<Bodega> {
  return write(db, deps, caller, async (trx, at) => {
    // Serialises updates of one warehouse, so each event carries the state its own write produced.
    const row = await lockedRow(trx, id);
    const actual = toBodega(row);
    requireVersion(actual, expectedVersion);
    if (row.eliminando_desde !== null) throw bodegaEliminandose(id);
    // The row lock holds the stock writes of this warehouse still, so the occupancy read is the one that counts.
    if (cambios.capacidad !== undefined && cambios.capacidad < actual.ocupacion) {
      throw new FailedPreconditionError(
        `la capacidad ${cambios.capacidad} es menor que lo que la bodega ya contiene ` +
          `(${actual.ocupacion} unidades)`,
        {
          reason: 'CAPACIDAD_INSUFICIENTE',
          datos: { capacidad: cambios.capacidad, ocupacion: actual.ocupacion },
        },
      );
    }
    const bodega: Bodega = { ...actual, ...cambios, fechaActualizacion: at, version: actual.version + 1 };
    try {
      await trx(TABLE).where({ id }).update({
        nombre: bodega.nombre,
        ubicacion: bodega.ubicacion,
        capacidad: bodega.capacidad,
        fecha_actualizacion: at,
        version: bodega.version,
      });
    } catch (err) {
      if (isDuplicateNombre(err)) throw duplicateNombre(bodega.nombre);
      throw err;
    }
    await enqueueEvent(
      trx,
      deps.events.actualizada(bodega, changedFields(BODEGA_CAMPOS, actual, bodega), { ...caller, at }),
    );
    return bodega;
  });
}

async function deleteBodega(
  db: Knex,
  deps: BodegaStoreDeps,
  {
    id,
    caller,
    expectedVersion,
    retirarExistencias = false,
    maxChunks = 0,
  }: {
    id: number;
    caller: CallContext;
    expectedVersion?: number;
    retirarExistencias?: boolean;
    maxChunks?: number;
  },
): Promise<Retiro> {
  if (retirarExistencias) {
    for (let tramos = 1; ; tramos++) {
      const { retiro, replayed } = await tramoDeEliminacion(db, deps, { id, caller, expectedVersion });
      // A replay only when this call changed nothing (a concurrent call under the key may have finished it).
      if (replayed && tramos === 1 && caller.idempotency) caller.idempotency.replayed = true;
      if (replayed || !retiro.pendiente || tramos === maxChunks) return retiro;
    }
  }
  return write(db, deps, caller, async (trx, at) => {
    const bodega = toBodega(await lockedRow(trx, id));
    requireVersion(bodega, expectedVersion);
    if (await deps.existencias.tieneExistencias(trx, id)) {
      throw new FailedPreconditionError(`la bodega ${id} tiene existencias; retírelas o elimínela con force`, {
        reason: 'BODEGA_CON_EXISTENCIAS',
        datos: { bodegaId: id, ocupacion: bodega.ocupacion },
      });
    }
    await trx(TABLE).where({ id }).delete();
    await enqueueEvent(trx, deps.events.eliminada(bodega, { ...caller, at }));
    return { niveles: 0, unidades: 0, pendiente: false };
  });
}

function marcarEliminacion(
  db: Knex,
  deps: BodegaStoreDeps,
  { id, expectedVersion }: { id: number; expectedVersion?: number },
): Promise<Bodega> {
  return writeTransaction(db, async (trx) => toBodega(await marcar(trx, id, expectedVersion)), {
    onCommitted: deps.onCommitted,
  });
}

export function createBodegaStore(db: Knex, deps: BodegaStoreDeps): BodegaStore {
  return {
    create: (datos, caller) => create(db, deps, { datos, caller }),
    get: (id) => get(db, id),
    wasDeleted: (id) => bodegaWasDeleted(db, id),
    list: (query) => list(db, query),
    update: (id, cambios, caller, expectedVersion) => update(db, deps, { id, cambios, caller, expectedVersion }),
    delete: (id, caller, options) => deleteBodega(db, deps, { id, caller, ...options }),
    marcarEliminacion: (id, expectedVersion) => marcarEliminacion(db, deps, { id, expectedVersion }),
  };
}
