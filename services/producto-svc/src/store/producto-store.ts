import {
  changedFields,
  claimResumableIdempotencyKey,
  enqueueEvent,
  enqueueEvents,
  executePrepared,
  jsonBytes,
  jsonResultCodec,
  NotFoundError,
  VersionMismatchError,
  nowToSecond,
  PRODUCTO_CAMPOS,
  recordIdempotentResult,
  withDbErrors,
  writeTransaction,
  type Knex,
} from '@inventario/platform';
import type { ProductoQuery } from '../domain/listing';
import { bodegaEliminadaError, type NewProducto, type Producto, type ProductoChanges, type WriteContext } from '../domain/producto';
import { addToReport, EMPTY_REPORT, type UnassignReport } from '../domain/unassign-report';
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
   * Unassigns the products of warehouse `bodegaId` in chunks of at most
   * UNASSIGN_CHUNK_ROWS rows and UNASSIGN_CHUNK_EVENT_BYTES of events, each
   * chunk one transaction with its events, until none is left or `maxChunks`
   * chunks are done (0: no limit), and reports them (a bounded sample and a
   * count). Idempotent: once none points at it, reports none and publishes nothing.
   *
   * With an idempotency key, every chunk also records the report so far
   * under the key, in the chunk's transaction: a call after a failure
   * half-way (or the next call of a limited one) resumes from the record
   * and reports the whole operation; once complete, a repeat replays it.
   */
  unassignBodega(bodegaId: number, context: WriteContext, maxChunks?: number): Promise<UnassignReport>;
  /**
   * Records that warehouse `bodegaId` was deleted (BodegaEliminada), in its own
   * transaction; idempotent. From its commit on, a create or update naming it
   * is refused (InvalidArgumentError on bodegaId), and a write that was
   * already under way is seen by an unassignment started afterwards (see
   * refuseBodegaEliminada): unassign after recording and none is missed.
   */
  recordBodegaEliminada(bodegaId: number): Promise<void>;
}

/**
 * Rows unassigned per transaction: each chunk's locks, its UPDATE and its
 * one INSERT of events stay small whatever the warehouse holds.
 */
export const UNASSIGN_CHUNK_ROWS = 500;
/**
 * Bytes of event JSON per chunk (a chunk ends early when its events would
 * pass it, keeping at least one): the INSERT of a chunk's events, escaped
 * for SQL (at most twice as long), stays well under the 16 MiB
 * max_allowed_packet of MariaDB's default, whatever the descriptions hold.
 */
export const UNASSIGN_CHUNK_EVENT_BYTES = 4 * 1024 * 1024;

export interface ProductoPage {
  productos: Producto[];
  /** True when more rows match after the last one returned. */
  hasMore: boolean;
  /** Every matching product, all pages together; only when the query asked (includeTotalSize). */
  totalSize?: number;
}

export interface ProductoStoreDeps {
  events: ProductoEvents;
  /** How long the result of a keyed write is replayed (IDEMPOTENCY_TTL_SECONDS). */
  idempotencyTtlSeconds: number;
  /** Called after a write transaction committed: wakes the outbox relay. */
  onCommitted?: () => void;
}

const TABLE = 'productos';
/** Ids of deleted warehouses (BodegaEliminada). */
const BODEGAS_ELIMINADAS = 'bodegas_eliminadas';
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

const SELECT_COLUMNS = `SELECT ${COLUMNS.map((c) => `\`${c}\``).join(', ')} FROM \`${TABLE}\``;

/**
 * A list page without id lists in its filters (a full list's pages, a
 * search, an offset) as one prepared statement, so a page costs no query
 * builder work and its rows come in MariaDB's binary form: about a third
 * less CPU per page than knex. Its text takes one of eight shapes, so each
 * connection prepares at most eight. Filters by ids or warehouses (lists of
 * any length, each length its own statement) stay with knex: prepared, they
 * would fill the server's `max_prepared_stmt_count`. LIMIT and OFFSET go as
 * decimal text, which MariaDB and MySQL 8 both take where a JS number (sent
 * as a DOUBLE) is refused by MySQL.
 */
function preparedListOf(query: ProductoQuery): { sql: string; values: string[] } | undefined {
  if (query.bodegaIds.length > 0 || query.ids.length > 0) return undefined;
  const where: string[] = [];
  const values: string[] = [];
  if (query.nombreContains !== null) {
    where.push("`nombre` LIKE ? ESCAPE '!'");
    values.push(containsPattern(query.nombreContains));
  }
  if (query.afterId !== null) {
    where.push('`id` > ?');
    values.push(String(query.afterId));
  }
  values.push(String(query.pageSize + 1));
  if (query.skip > 0) values.push(String(query.skip));
  const sql = `${SELECT_COLUMNS}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY \`id\` LIMIT ?${query.skip > 0 ? ' OFFSET ?' : ''}`;
  return { sql, values };
}

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

/**
 * The report an UnassignBodega record holds. A record written before
 * unassignments were chunked holds the whole list of products of a finished
 * operation: read as its complete report.
 */
function recordedReport(recorded: unknown): UnassignReport {
  return Array.isArray(recorded) ? addToReport(EMPTY_REPORT, recorded as Producto[], true) : (recorded as UnassignReport);
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

  /**
   * One chunk of an unassignment, in the caller's transaction: up to `limit`
   * rows of the warehouse (lowest ids first, locked), fewer when their events
   * would pass UNASSIGN_CHUNK_EVENT_BYTES. `complete` when fewer rows than
   * `limit` pointed at the warehouse and all of them were taken.
   */
  async function unassignChunk(
    trx: Knex.Transaction,
    bodegaId: number,
    context: WriteContext,
    limit: number,
  ): Promise<{ productos: Producto[]; complete: boolean }> {
    const rows = await trx<ProductoRow>(TABLE).select(...COLUMNS).where({ bodega_id: bodegaId }).orderBy('id').limit(limit).forUpdate();
    const at = nowToSecond();
    const productos: Producto[] = [];
    const chunkEvents = [];
    let bytes = 0;
    for (const row of rows) {
      const producto: Producto = { ...fromRow(row), bodegaId: null, fechaActualizacion: at, version: row.version + 1 };
      // Every row pointed at the warehouse (WHERE above), so bodegaId is the
      // one value that changed in each.
      const event = events.updated(producto, ['bodegaId'], context);
      bytes += jsonBytes(event.envelope);
      if (productos.length > 0 && bytes > UNASSIGN_CHUNK_EVENT_BYTES) break;
      productos.push(producto);
      chunkEvents.push(event);
    }
    if (productos.length > 0) {
      await trx(TABLE)
        .whereIn(
          'id',
          productos.map((producto) => producto.id),
        )
        .update({ bodega_id: null, fecha_actualizacion: at, version: trx.raw('version + 1') });
      await enqueueEvents(trx, chunkEvents);
    }
    return { productos, complete: rows.length < limit && productos.length === rows.length };
  }

  /**
   * Refuses a write that points a product at a deleted warehouse; called in
   * the write's transaction AFTER its INSERT/UPDATE of the product. That
   * order closes the race with recordBodegaEliminada + unassignBodega in any
   * isolation level: either this locking read sees the committed record (the
   * write rolls back), or the record commits after it, and then the
   * unassignment's locking scan meets this write's row (waiting for it while
   * uncommitted) and clears it.
   */
  async function refuseBodegaEliminada(trx: Knex.Transaction, bodegaId: number | null | undefined): Promise<void> {
    if (bodegaId === null || bodegaId === undefined) return;
    const row = await trx<{ bodega_id: number }>(BODEGAS_ELIMINADAS).select('bodega_id').where({ bodega_id: bodegaId }).forShare().first();
    if (row) throw bodegaEliminadaError(bodegaId);
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
        await refuseBodegaEliminada(trx, producto.bodegaId);
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
        /** The query's filters (not its position in the list). */
        const filtered = (q: Knex.QueryBuilder) => {
          if (query.bodegaIds.length > 0) q.whereIn('bodega_id', query.bodegaIds);
          if (query.ids.length > 0) q.whereIn('id', query.ids);
          if (query.nombreContains !== null) {
            q.whereRaw("nombre LIKE ? ESCAPE '!'", [containsPattern(query.nombreContains)]);
          }
          return q;
        };
        const prepared = preparedListOf(query);
        let rows: ProductoRow[];
        if (prepared) {
          rows = await executePrepared<ProductoRow>(db, prepared.sql, prepared.values);
        } else {
          const q = filtered(
            db<ProductoRow>(TABLE)
              .select(...COLUMNS)
              .orderBy('id')
              .limit(query.pageSize + 1),
          );
          if (query.skip > 0) q.offset(query.skip);
          if (query.afterId !== null) q.where('id', '>', query.afterId);
          rows = (await q) as ProductoRow[];
        }
        const page: ProductoPage = { productos: rows.slice(0, query.pageSize).map(fromRow), hasMore: rows.length > query.pageSize };
        if (query.includeTotalSize) {
          const [count] = (await filtered(db(TABLE).count({ n: '*' }))) as { n: number | string }[];
          page.totalSize = Number(count?.n ?? 0);
        }
        return page;
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
        await refuseBodegaEliminada(trx, changes.bodegaId);
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

    recordBodegaEliminada(bodegaId) {
      return withDbErrors(async () => {
        await db.raw(`INSERT IGNORE INTO ${BODEGAS_ELIMINADAS} (bodega_id) VALUES (?)`, [bodegaId]);
      });
    },

    async unassignBodega(bodegaId, context, maxChunks = 0) {
      const key = context.idempotency;
      // Without a key the report is this call's; with one, the record's.
      let report = EMPTY_REPORT;
      let unassigned = 0;
      for (let chunks = 1; ; chunks++) {
        const step = await writeTransaction(
          db,
          async (trx) => {
            let before = report;
            if (key) {
              const recorded = await claimResumableIdempotencyKey(trx, key);
              before = recorded === undefined ? EMPTY_REPORT : recordedReport(RESULTS.decode(recorded));
              if (before.complete) return { report: before, chunk: 0, replayed: true };
            }
            const chunk = await unassignChunk(trx, bodegaId, context, UNASSIGN_CHUNK_ROWS);
            const after = addToReport(before, chunk.productos, chunk.complete);
            if (key) await recordIdempotentResult(trx, key, RESULTS.encode(after), deps.idempotencyTtlSeconds);
            return { report: after, chunk: chunk.productos.length, replayed: false };
          },
          { onCommitted: deps.onCommitted },
        );
        // A replay only when this call changed nothing (another call with the key may have finished between two chunks).
        if (step.replayed && unassigned === 0 && key) key.replayed = true;
        report = step.report;
        unassigned += step.chunk;
        if (report.complete || chunks === maxChunks) return report;
      }
    },
  };
}
