import {
  AlreadyExistsError,
  BODEGA_CAMPOS,
  FailedPreconditionError,
  changedFields,
  NotFoundError,
  enqueueEvent,
  isDuplicateEntry,
  jsonResultCodec,
  VersionMismatchError,
  nowToSecond,
  withDbErrors,
  writeTransaction,
  type CallContext,
  type Knex,
} from '@inventario/platform';
import type { Bodega, BodegaChanges, NewBodega } from '../domain/bodega';
import type { BodegaQuery } from '../domain/listing';
import type { BodegaEvents } from '../events/bodega-events';
import type { ExistenciaStore } from './existencia-store';
import { NOMBRE_UNIQUE_INDEX } from './migrations';

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
  /** Ordered by id. */
  list(query: BodegaQuery): Promise<BodegaPage>;
  /**
   * NotFoundError, AlreadyExistsError, or VersionMismatchError when `expectedVersion` differs from the stored one.
   * The event lists the fields whose value differed from the locked row.
   */
  update(id: number, cambios: BodegaChanges, caller: CallContext, expectedVersion?: number): Promise<Bodega>;
  /** Refused while it holds stock (BODEGA_CON_EXISTENCIAS) unless `retirarExistencias`, which writes it out in the same transaction. */
  delete(id: number, caller: CallContext, options?: { expectedVersion?: number; retirarExistencias?: boolean }): Promise<{ niveles: number; unidades: number }>;
}

export interface BodegaStoreDeps {
  events: BodegaEvents;
  /** Wakes the outbox relay after commit, instead of its next poll. */
  onCommitted?: () => void;
  idempotencyTtlSeconds: number;
  existencias: Pick<ExistenciaStore, 'retirarBodega' | 'tieneExistencias'>;
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
    ocupacion: row.ocupacion,
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

export function createBodegaStore(db: Knex, deps: BodegaStoreDeps): BodegaStore {
  const { events } = deps;

  /** At a whole-second instant: the precision we store and publish. */
  function write<T>(caller: CallContext, work: (trx: Knex.Transaction, at: Date) => Promise<T>): Promise<T> {
    return writeTransaction(db, (trx) => work(trx, nowToSecond()), {
      onCommitted: deps.onCommitted,
      idempotency: { key: caller.idempotency, codec: RESULTS, ttlSeconds: deps.idempotencyTtlSeconds },
      signal: caller.signal,
    });
  }

  async function lockedRow(trx: Knex.Transaction, id: number): Promise<Bodega> {
    const row = await trx<BodegaRow>(TABLE).where({ id }).forUpdate().first();
    if (!row) throw notFound(id);
    return toBodega(row);
  }

  return {
    create(datos, caller) {
      return write(caller, async (trx, at) => {
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
        const q = db<BodegaRow>(TABLE)
          .orderBy('id')
          .limit(pageSize + 1);
        if (afterId !== null) q.where('id', '>', afterId);
        if (ids.length > 0) q.whereIn('id', ids);
        return q;
      });
      // One row beyond the page tells whether another page exists, without a COUNT.
      return { bodegas: rows.slice(0, pageSize).map(toBodega), hasMore: rows.length > pageSize };
    },

    update(id, cambios, caller, expectedVersion) {
      return write(caller, async (trx, at) => {
        // Serialises updates of one warehouse, so each event carries the state its own write produced.
        const actual = await lockedRow(trx, id);
        requireVersion(actual, expectedVersion);
        // The row lock holds the stock writes of this warehouse still, so the occupancy read is the one that counts.
        if (cambios.capacidad !== undefined && cambios.capacidad < actual.ocupacion) {
          throw new FailedPreconditionError(`la capacidad ${cambios.capacidad} es menor que lo que la bodega ya contiene (${actual.ocupacion} unidades)`, {
            reason: 'CAPACIDAD_INSUFICIENTE',
            datos: { capacidad: cambios.capacidad, ocupacion: actual.ocupacion },
          });
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
        await enqueueEvent(trx, events.actualizada(bodega, changedFields(BODEGA_CAMPOS, actual, bodega), { ...caller, at }));
        return bodega;
      });
    },

    delete(id, caller, { expectedVersion, retirarExistencias = false } = {}) {
      return write(caller, async (trx, at) => {
        const bodega = await lockedRow(trx, id);
        requireVersion(bodega, expectedVersion);
        let retirado = { niveles: 0, unidades: 0 };
        if (await deps.existencias.tieneExistencias(trx, id)) {
          if (!retirarExistencias) {
            throw new FailedPreconditionError(`la bodega ${id} tiene existencias; retírelas o elimínela con force`, {
              reason: 'BODEGA_CON_EXISTENCIAS',
              datos: { bodegaId: id, ocupacion: bodega.ocupacion },
            });
          }
          retirado = await deps.existencias.retirarBodega(trx, id, caller, at);
        }
        await trx(TABLE).where({ id }).delete();
        await enqueueEvent(trx, events.eliminada(bodega, { ...caller, at }));
        return retirado;
      });
    },
  };
}
