import {
  AlreadyExistsError,
  BODEGA_CAMPOS,
  changedFields,
  NotFoundError,
  enqueueEvent,
  isDuplicateEntry,
  nowToSecond,
  withDbErrors,
  writeTransaction,
  type CallContext,
  type Knex,
} from '@inventario/platform';
import type { Bodega, BodegaChanges, NewBodega } from '../domain/bodega';
import type { BodegaQuery } from '../domain/listing';
import type { BodegaEvents } from '../events/bodega-events';
import { NOMBRE_UNIQUE_INDEX } from './migrations';

const TABLE = 'bodegas';

export interface BodegaPage {
  bodegas: Bodega[];
  /** True when more rows match after the last one returned. */
  hasMore: boolean;
}

/**
 * Warehouses in MySQL. Takes input the domain rules have validated; every
 * write commits the row and its event (outbox) in one transaction, so a
 * committed write always produces its event and a rejected one never does.
 * Driver errors never escape: duplicates become AlreadyExistsError, an
 * unreachable database UnavailableError.
 */
export interface BodegaStore {
  create(bodega: NewBodega, caller: CallContext): Promise<Bodega>;
  /** NotFoundError when `id` does not exist. */
  get(id: number): Promise<Bodega>;
  /** Ordered by id. */
  list(query: BodegaQuery): Promise<BodegaPage>;
  /**
   * Changes only the keys present in `cambios`; NotFoundError,
   * AlreadyExistsError. The event lists the fields whose value differed from
   * the locked row.
   */
  update(id: number, cambios: BodegaChanges, caller: CallContext): Promise<Bodega>;
  /** NotFoundError when `id` does not exist. */
  delete(id: number, caller: CallContext): Promise<void>;
}

export interface BodegaStoreDeps {
  events: BodegaEvents;
  /** Called after each committed write, so the outbox relay publishes at once instead of at its next poll. */
  onCommitted?: () => void;
}

interface BodegaRow {
  id: number;
  nombre: string;
  ubicacion: string | null;
  capacidad: number;
  fecha_creacion: Date;
  fecha_actualizacion: Date;
}

function toBodega(row: BodegaRow): Bodega {
  return {
    id: Number(row.id),
    nombre: row.nombre,
    ubicacion: row.ubicacion,
    capacidad: row.capacidad,
    fechaCreacion: row.fecha_creacion,
    fechaActualizacion: row.fecha_actualizacion,
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

export function createBodegaStore(db: Knex, deps: BodegaStoreDeps): BodegaStore {
  const { events } = deps;

  /** Runs one write transaction at a whole-second instant; notifies the relay after commit. */
  function write<T>(work: (trx: Knex.Transaction, at: Date) => Promise<T>): Promise<T> {
    return writeTransaction(db, (trx) => work(trx, nowToSecond()), deps.onCommitted);
  }

  async function lockedRow(trx: Knex.Transaction, id: number): Promise<Bodega> {
    const row = await trx<BodegaRow>(TABLE).where({ id }).forUpdate().first();
    if (!row) throw notFound(id);
    return toBodega(row);
  }

  return {
    create(datos, caller) {
      return write(async (trx, at) => {
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
        // fechaActualizacion equals fechaCreacion on creation (ARCHITECTURE §2).
        const bodega: Bodega = { id, ...datos, fechaCreacion: at, fechaActualizacion: at };
        await enqueueEvent(trx, events.creada(bodega, { ...caller, at }));
        return bodega;
      });
    },

    async get(id) {
      const row = await withDbErrors(() => db<BodegaRow>(TABLE).where({ id }).first());
      if (!row) throw notFound(id);
      return toBodega(row);
    },

    async list({ pageSize, afterId, ids }) {
      const rows = await withDbErrors(() => {
        const q = db<BodegaRow>(TABLE).orderBy('id').limit(pageSize + 1);
        if (afterId !== null) q.where('id', '>', afterId);
        if (ids.length > 0) q.whereIn('id', ids);
        return q;
      });
      // One row beyond the page tells whether another page exists, without a COUNT.
      return { bodegas: rows.slice(0, pageSize).map(toBodega), hasMore: rows.length > pageSize };
    },

    update(id, cambios, caller) {
      return write(async (trx, at) => {
        // The row lock serialises concurrent updates of one warehouse, so each
        // event carries the state its own write produced.
        const actual = await lockedRow(trx, id);
        const bodega: Bodega = { ...actual, ...cambios, fechaActualizacion: at };
        try {
          await trx(TABLE).where({ id }).update({
            nombre: bodega.nombre,
            ubicacion: bodega.ubicacion,
            capacidad: bodega.capacidad,
            fecha_actualizacion: at,
          });
        } catch (err) {
          if (isDuplicateNombre(err)) throw duplicateNombre(bodega.nombre);
          throw err;
        }
        await enqueueEvent(trx, events.actualizada(bodega, changedFields(BODEGA_CAMPOS, actual, bodega), { ...caller, at }));
        return bodega;
      });
    },

    async delete(id, caller) {
      await write(async (trx, at) => {
        const bodega = await lockedRow(trx, id);
        await trx(TABLE).where({ id }).delete();
        await enqueueEvent(trx, events.eliminada(bodega, { ...caller, at }));
      });
    },
  };
}
