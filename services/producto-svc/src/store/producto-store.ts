import {
  changedFields,
  enqueueEvent,
  enqueueEvents,
  executePrepared,
  jsonResultCodec,
  NotFoundError,
  VersionMismatchError,
  nowToSecond,
  PRODUCTO_CAMPOS,
  withDbErrors,
  writeTransaction,
  type Knex,
} from '@inventario/platform';
import type { ProductoQuery } from '../domain/listing';
import type { NewProducto, Producto, ProductoChanges, WriteContext } from '../domain/producto';
import type { ProductoEvents } from '../events/producto-events';

/**
 * The `productos` table. Owns its SQL (knex, parameterised). Each write and
 * its event row commit in one transaction (outbox), so a committed write
 * always gets its event and a rolled-back one never does. Transient driver
 * failures surface as UnavailableError; no driver message leaves this file.
 */
export interface ProductoStore {
  create(producto: NewProducto, context: WriteContext): Promise<Producto>;
  /** NotFoundError when the id does not exist. */
  get(id: number): Promise<Producto>;
  list(query: ProductoQuery): Promise<ProductoPage>;
  /**
   * Sets the fields present in `changes` and bumps the version; NotFoundError
   * when the id does not exist, VersionMismatchError when `expectedVersion`
   * is given and differs from the stored one. The event lists the fields
   * whose value differed from the locked row.
   */
  update(id: number, changes: ProductoChanges, context: WriteContext, expectedVersion?: number): Promise<Producto>;
  /** NotFoundError when the id does not exist; VersionMismatchError as for update. */
  delete(id: number, context: WriteContext, expectedVersion?: number): Promise<void>;
  /**
   * Unassigns every product of warehouse `bodegaId` and returns them as they
   * are now. Idempotent: once none points at it, returns [] and publishes nothing.
   */
  unassignBodega(bodegaId: number, context: WriteContext): Promise<Producto[]>;
}

export interface ProductoPage {
  productos: Producto[];
  /** True when more rows match after the last one returned. */
  hasMore: boolean;
}

export interface ProductoStoreDeps {
  events: ProductoEvents;
  /** How long the result of a keyed write is replayed (IDEMPOTENCY_TTL_SECONDS). */
  idempotencyTtlSeconds: number;
  /** Called after a write transaction committed: wakes the outbox relay. */
  onCommitted?: () => void;
}

const TABLE = 'productos';
const COLUMNS = [
  'id',
  'nombre',
  'descripcion',
  'precio',
  'cantidad_en_stock',
  'bodega_id',
  'fecha_creacion',
  'fecha_actualizacion',
  'version',
] as const;

interface ProductoRow {
  id: number;
  nombre: string;
  descripcion: string | null;
  /** DECIMAL read as a string (createDb): never a float. */
  precio: string;
  cantidad_en_stock: number;
  bodega_id: number | null;
  fecha_creacion: Date;
  fecha_actualizacion: Date;
  version: number;
}

function fromRow(row: ProductoRow): Producto {
  return {
    id: row.id,
    nombre: row.nombre,
    descripcion: row.descripcion,
    precio: row.precio,
    cantidadEnStock: row.cantidad_en_stock,
    bodegaId: row.bodega_id,
    fechaCreacion: row.fecha_creacion,
    fechaActualizacion: row.fecha_actualizacion,
    version: row.version,
  };
}

/** The columns of the fields present in `changes`. */
function toColumns(changes: ProductoChanges): Partial<ProductoRow> {
  const row: Partial<ProductoRow> = {};
  if (changes.nombre !== undefined) row.nombre = changes.nombre;
  if (changes.descripcion !== undefined) row.descripcion = changes.descripcion;
  if (changes.precio !== undefined) row.precio = changes.precio;
  if (changes.cantidadEnStock !== undefined) row.cantidad_en_stock = changes.cantidadEnStock;
  if (changes.bodegaId !== undefined) row.bodega_id = changes.bodegaId;
  return row;
}

/** The by-id read, built once: the hottest query of the service (every GET by id). */
const SELECT_BY_ID = `SELECT ${COLUMNS.map((c) => `\`${c}\``).join(', ')} FROM \`${TABLE}\` WHERE \`id\` = ? LIMIT 1`;

/** LIKE pattern matching `text` anywhere, with its own `%`, `_` and `!` taken literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[!%_]/g, '!$&')}%`;
}

function notFound(id: number): NotFoundError {
  return new NotFoundError(`no existe el producto ${id}`);
}

/** A conditional write applies only to the version the client last read. */
function requireVersion(current: Producto, expectedVersion: number | undefined): void {
  if (expectedVersion !== undefined && current.version !== expectedVersion) {
    throw VersionMismatchError.of(current.version, expectedVersion);
  }
}

/** How keyed writes record their results (the dates revive as Dates). */
const RESULTS = jsonResultCodec(['fechaCreacion', 'fechaActualizacion']);

export function createProductoStore(db: Knex, deps: ProductoStoreDeps): ProductoStore {
  const { events } = deps;

  /**
   * Runs one write transaction (claiming the call's idempotency key in it,
   * when there is one), then wakes the relay for the events it committed.
   */
  function write<T>(context: WriteContext, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return writeTransaction(db, work, {
      onCommitted: deps.onCommitted,
      idempotency: { key: context.idempotency, codec: RESULTS, ttlSeconds: deps.idempotencyTtlSeconds },
      signal: context.signal,
    });
  }

  /** SELECT_BY_ID as a prepared statement (platform's executePrepared): no query builder work per call. */
  async function selectById(id: number): Promise<Producto | undefined> {
    const rows = await executePrepared<ProductoRow>(db, SELECT_BY_ID, [id]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  /**
   * Reads and locks the row until the transaction ends, so concurrent writes
   * of one product serialise and their events enter the outbox in commit order.
   */
  async function lockById(trx: Knex.Transaction, id: number): Promise<Producto> {
    const row = await trx<ProductoRow>(TABLE).select(...COLUMNS).where({ id }).forUpdate().first();
    if (!row) throw notFound(id);
    return fromRow(row);
  }

  return {
    create(producto, context) {
      return write(context, async (trx) => {
        const at = nowToSecond();
        const [id] = await trx(TABLE).insert({
          ...toColumns(producto),
          fecha_creacion: at,
          fecha_actualizacion: at,
        });
        // What was written, without reading it back: the domain already gave
        // precio and nombre their stored form, and `at` is whole seconds.
        const stored: Producto = { id: Number(id), ...producto, fechaCreacion: at, fechaActualizacion: at, version: 1 };
        await enqueueEvent(trx, events.created(stored, context));
        return stored;
      });
    },

    async get(id) {
      const producto = await withDbErrors(() => selectById(id));
      if (!producto) throw notFound(id);
      return producto;
    },

    list(query) {
      return withDbErrors(async () => {
        const q = db<ProductoRow>(TABLE)
          .select(...COLUMNS)
          .orderBy('id')
          .limit(query.pageSize + 1);
        if (query.skip > 0) q.offset(query.skip);
        if (query.afterId !== null) q.where('id', '>', query.afterId);
        if (query.bodegaIds.length > 0) q.whereIn('bodega_id', query.bodegaIds);
        if (query.nombreContains !== null) {
          q.whereRaw("nombre LIKE ? ESCAPE '!'", [containsPattern(query.nombreContains)]);
        }
        const rows = await q;
        return { productos: rows.slice(0, query.pageSize).map(fromRow), hasMore: rows.length > query.pageSize };
      });
    },

    update(id, changes, context, expectedVersion) {
      return write(context, async (trx) => {
        const current = await lockById(trx, id);
        requireVersion(current, expectedVersion);
        const stored: Producto = { ...current, ...changes, fechaActualizacion: nowToSecond(), version: current.version + 1 };
        await trx(TABLE)
          .where({ id })
          .update({ ...toColumns(changes), fecha_actualizacion: stored.fechaActualizacion, version: stored.version });
        await enqueueEvent(trx, events.updated(stored, changedFields(PRODUCTO_CAMPOS, current, stored), context));
        return stored;
      });
    },

    delete(id, context, expectedVersion) {
      return write(context, async (trx) => {
        const current = await lockById(trx, id);
        requireVersion(current, expectedVersion);
        await trx(TABLE).where({ id }).del();
        await enqueueEvent(trx, events.deleted(current, context, nowToSecond()));
      });
    },

    unassignBodega(bodegaId, context) {
      return write(context, async (trx) => {
        const rows = await trx<ProductoRow>(TABLE).select(...COLUMNS).where({ bodega_id: bodegaId }).orderBy('id').forUpdate();
        if (rows.length === 0) return [];
        const at = nowToSecond();
        await trx(TABLE)
          .whereIn(
            'id',
            rows.map((row) => row.id),
          )
          .update({ bodega_id: null, fecha_actualizacion: at, version: trx.raw('version + 1') });
        const productos = rows.map((row) => ({ ...fromRow(row), bodegaId: null, fechaActualizacion: at, version: row.version + 1 }));
        // Every row pointed at the warehouse (WHERE above), so bodegaId is the
        // one value that changed in each.
        await enqueueEvents(
          trx,
          productos.map((producto) => events.updated(producto, ['bodegaId'], context)),
        );
        return productos;
      });
    },
  };
}
