import {
  changedFields,
  claimResumableIdempotencyKey,
  enqueueEvent,
  enqueueEvents,
  executePrepared,
  outboxInsert,
  jsonBytes,
  jsonResultCodec,
  NotFoundError,
  VersionMismatchError,
  nowToSecond,
  wasDeleted,
  PRODUCTO_CAMPOS,
  recordIdempotentResult,
  withDbErrors,
  writeTransaction,
  type Knex,
  type OutboxEvent,
} from '@inventario/platform';
import type { ProductoQuery } from '../domain/listing';
import {
  bodegaEliminadaError,
  type NewProducto,
  type Producto,
  type ProductoChanges,
  type WriteContext,
} from '../domain/producto';
import { addToReport, EMPTY_REPORT, type UnassignReport } from '../domain/unassign-report';
import type { ProductoEvents } from '../events/producto-events';

/** Each write commits with its event row (outbox): a committed write always gets its event, a rolled-back one never. */
export interface ProductoStore {
  create(producto: NewProducto, context: WriteContext): Promise<Producto>;
  get(id: number): Promise<Producto>;
  list(query: ProductoQuery): Promise<ProductoPage>;
  /**
   * VersionMismatchError when `expectedVersion` differs from the stored one.
   * The event lists the fields whose value differed from the locked row.
   */
  update(
    id: number,
    changes: ProductoChanges,
    context: WriteContext,
    expectedVersion?: number,
    conteo?: Conteo,
  ): Promise<Producto>;
  delete(id: number, context: WriteContext, expectedVersion?: number): Promise<void>;
  /**
   * In chunks of one transaction each (`maxChunks` 0: no limit); once no
   * product points at the warehouse it reports none and publishes nothing.
   * With an idempotency key each chunk records the report so far, so a call
   * after a failure half-way resumes and reports the whole operation.
   */
  unassignBodega(bodegaId: number, context: WriteContext, maxChunks?: number): Promise<UnassignReport>;
  /** Idempotent. From its commit on, writes naming the warehouse are refused; unassign after it and none is missed. */
  recordBodegaEliminada(bodegaId: number): Promise<void>;
  /**
   * Whether this service deleted product `id`: false for a live product and for an id never created (platform's
   * deletion record).
   */
  wasDeleted(id: number): Promise<boolean>;
}

/**
 * A PUT of cantidadEnStock records a count in bodega-svc's ledger (docs/contract.md §10.6). It runs
 * inside the update's transaction, with the product's row locked and before the commit: a client
 * that reads the product's new version reads the counted figure too, so concurrent read-then-PUT
 * writers under If-Match lose no count; and a count that fails rolls the update back (503, nothing
 * changed). Keyed by the new version, a retry of the same PUT records it once.
 */
export type Conteo = (producto: Producto) => Promise<void>;

/** Keeps each chunk's locks and statements small whatever the warehouse holds. */
export const UNASSIGN_CHUNK_ROWS = 500;
/** Event JSON per chunk: escaped for SQL it stays well under MariaDB's default 16 MiB max_allowed_packet. */
export const UNASSIGN_CHUNK_EVENT_BYTES = 4 * 1024 * 1024;

export interface ProductoPage {
  productos: Producto[];
  hasMore: boolean;
  /** Only when the query asked (includeTotalSize). */
  totalSize?: number;
}

export interface ProductoStoreDeps {
  events: ProductoEvents;
  idempotencyTtlSeconds: number;
  onCommitted?: () => void;
  /**
   * The pool takes several statements in one query (createDb's multipleStatements): a create sends its
   * warehouse check and its outbox row in one round trip (issue 23). Without it, one by one.
   */
  sentenciasJuntas?: boolean;
}

const TABLE = 'productos';
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
  /** Never a float. */
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

function toColumns(changes: ProductoChanges): Partial<ProductoRow> {
  const row: Partial<ProductoRow> = {};
  if (changes.nombre !== undefined) row.nombre = changes.nombre;
  if (changes.descripcion !== undefined) row.descripcion = changes.descripcion;
  if (changes.precio !== undefined) row.precio = changes.precio;
  if (changes.cantidadEnStock !== undefined) row.cantidad_en_stock = changes.cantidadEnStock;
  if (changes.bodegaId !== undefined) row.bodega_id = changes.bodegaId;
  return row;
}

/**
 * A PUT of cantidadEnStock records a count of the product in the ledger, which makes its total what
 * the client said: the old column needs no migration any more (stock-al-libro.ts).
 */
const conteoMigra = (changes: ProductoChanges): { stock_migrado?: boolean } =>
  changes.cantidadEnStock !== undefined ? { stock_migrado: true } : {};

/** Built once: the service's hottest query. */
const SELECT_BY_ID = `SELECT ${COLUMNS.map((c) => `\`${c}\``).join(', ')} FROM \`${TABLE}\` WHERE \`id\` = ? LIMIT 1`;

/** A list's columns: `descripcion` only when the caller reads it (ListProductosRequest.read_mask). */
const listColumns = (conDescripcion: boolean) =>
  COLUMNS.map((c) => (c === 'descripcion' && !conDescripcion ? 'NULL AS `descripcion`' : `\`${c}\``)).join(', ');

/**
 * A list page without id lists in its filters (a full list's pages, a
 * search, an offset) as one prepared statement, so a page costs no query
 * builder work and its rows come in MariaDB's binary form: about a third
 * less CPU per page than knex. Its text takes one of sixteen shapes (eight,
 * with or without `descripcion`), so each connection prepares at most
 * sixteen. Filters by ids or warehouses (lists of any length, each length its own statement) stay with knex: prepared,
 * they
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
  const sql = `SELECT ${listColumns(query.conDescripcion)} FROM \`${TABLE}\`${
    where.length > 0 ? ` ` + `WHERE ${where.join(' AND ')}` : ''
  } ORDER BY \`id\` LIMIT ?${query.skip > 0 ? ' OFFSET ?' : ''}`;
  return { sql, values };
}

/** LIKE pattern matching `text` anywhere, with its own `%`, `_` and `!` taken literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[!%_]/g, '!$&')}%`;
}

function notFound(id: number): NotFoundError {
  return new NotFoundError(`no existe el producto ${id}`);
}

function requireVersion(current: Producto, expectedVersion: number | undefined): void {
  if (expectedVersion !== undefined && current.version !== expectedVersion) {
    throw VersionMismatchError.of(current.version, expectedVersion);
  }
}

/** A record from before chunking holds a finished operation's whole list. */
function recordedReport(recorded: unknown): UnassignReport {
  return Array.isArray(recorded)
    ? addToReport(EMPTY_REPORT, recorded as Producto[], true)
    : (recorded as UnassignReport);
}

const RESULTS = jsonResultCodec(['fechaCreacion', 'fechaActualizacion']);

function write<T>(
  db: Knex,
  deps: ProductoStoreDeps,
  context: WriteContext,
  work: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  return writeTransaction(db, work, {
    onCommitted: deps.onCommitted,
    idempotency: { key: context.idempotency, codec: RESULTS, ttlSeconds: deps.idempotencyTtlSeconds },
    signal: context.signal,
  });
}

async function selectById(db: Knex, id: number): Promise<Producto | undefined> {
  const rows = await executePrepared<ProductoRow>(db, SELECT_BY_ID, [id]);
  return rows[0] ? fromRow(rows[0]) : undefined;
}

/** Concurrent writes of one product serialise, so their events enter the outbox in commit order. */
async function lockById(trx: Knex.Transaction, id: number): Promise<Producto> {
  const row = await trx<ProductoRow>(TABLE)
    .select(...COLUMNS)
    .where({ id })
    .forUpdate()
    .first();
  if (!row) throw notFound(id);
  return fromRow(row);
}

/** `complete` when fewer than `limit` rows pointed at the warehouse and all fit the event byte budget. */
async function unassignChunk(
  trx: Knex.Transaction,
  deps: ProductoStoreDeps,
  { bodegaId, context, limit }: { bodegaId: number; context: WriteContext; limit: number },
): Promise<{ productos: Producto[]; complete: boolean }> {
  const rows = await trx<ProductoRow>(TABLE)
    .select(...COLUMNS)
    .where({ bodega_id: bodegaId })
    .orderBy('id')
    .limit(limit)
    .forUpdate();
  const at = nowToSecond();
  const productos: Producto[] = [];
  const chunkEvents = [];
  let bytes = 0;
  for (const row of rows) {
    const producto: Producto = { ...fromRow(row), bodegaId: null, fechaActualizacion: at, version: row.version + 1 };
    // The WHERE above makes bodegaId the one value that changed.
    const event = deps.events.updated(producto, ['bodegaId'], context);
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
 * Called AFTER the write's INSERT/UPDATE, which closes the race with
 * recordBodegaEliminada + unassignBodega at any isolation level: either this
 * read sees the record, or the unassignment's locking scan meets the row.
 */
async function refuseBodegaEliminada(trx: Knex.Transaction, bodegaId: number | null | undefined): Promise<void> {
  if (bodegaId === null || bodegaId === undefined) return;
  const row = await trx<{ bodega_id: number }>(BODEGAS_ELIMINADAS)
    .select('bodega_id')
    .where({ bodega_id: bodegaId })
    .forShare()
    .first();
  if (row) throw bodegaEliminadaError(bodegaId);
}

/**
 * refuseBodegaEliminada, then the outbox row: with sentenciasJuntas both in one round trip. The row
 * is written before the check answers; a refusal throws, and the transaction (row included) rolls back.
 */
async function refuseBodegaEliminadaYEncolar(
  trx: Knex.Transaction,
  deps: ProductoStoreDeps,
  bodegaId: number | null | undefined,
  event: OutboxEvent,
): Promise<void> {
  if (bodegaId === null || bodegaId === undefined || !deps.sentenciasJuntas) {
    await refuseBodegaEliminada(trx, bodegaId);
    await enqueueEvent(trx, event);
    return;
  }
  const check = trx(BODEGAS_ELIMINADAS)
    .select('bodega_id')
    .where({ bodega_id: bodegaId })
    .limit(1)
    .forShare()
    .toSQL()
    .toNative();
  const insert = outboxInsert(trx, [event])!.toSQL().toNative();
  const [[eliminada]] = (await trx.raw(`${check.sql};\n${insert.sql}`, [
    ...(check.bindings as Knex.RawBinding[]),
    ...(insert.bindings as Knex.RawBinding[]),
  ])) as [[unknown[], unknown]];
  if (eliminada.length > 0) throw bodegaEliminadaError(bodegaId);
}

function create(
  db: Knex,
  deps: ProductoStoreDeps,
  { producto, context }: { producto: NewProducto; context: WriteContext },
): Promise<Producto> {
  return write(db, deps, context, async (trx) => {
    const at = nowToSecond();
    const [id] = await trx(TABLE).insert({
      ...toColumns(producto),
      fecha_creacion: at,
      fecha_actualizacion: at,
    });
    // Not read back: the domain gave precio and nombre their stored form, and `at` is whole seconds.
    const stored: Producto = { id: Number(id), ...producto, fechaCreacion: at, fechaActualizacion: at, version: 1 };
    await refuseBodegaEliminadaYEncolar(trx, deps, producto.bodegaId, deps.events.created(stored, context));
    return stored;
  });
}

async function get(db: Knex, id: number): Promise<Producto> {
  const producto = await withDbErrors(() => selectById(db, id));
  if (!producto) throw notFound(id);
  return producto;
}

function list(db: Knex, query: ProductoQuery): Promise<ProductoPage> {
  /**
   * The ids of each warehouse's first `max` products numbered by id from `desdeId` on, before the page's own
   * start applies: a warehouse's count does not depend on where a page ended. Only `id` and `bodega_id` are
   * numbered (the `bodega_id` index covers them); the page's columns are read for the page's rows alone.
   */
  const porBodega = (
    { max, desdeId }: { max: number; desdeId: number | null },
    filtered: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
  ): Knex.QueryBuilder => {
    const numbered = filtered(
      db(TABLE).select('id', db.raw('ROW_NUMBER() OVER (PARTITION BY `bodega_id` ORDER BY `id`) AS `n_de_bodega`')),
    );
    if (desdeId !== null) numbered.where('id', '>', desdeId);
    return db.from(numbered.as('numerados')).select('id').where('n_de_bodega', '<=', max);
  };
  return withDbErrors(async () => {
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
    if (query.porBodega) {
      const q: Knex.QueryBuilder = db(TABLE)
        .select(db.raw(listColumns(query.conDescripcion)))
        .whereIn('id', porBodega(query.porBodega, filtered))
        .orderBy('id')
        .limit(query.pageSize + 1);
      if (query.skip > 0) q.offset(query.skip);
      if (query.afterId !== null) q.where('id', '>', query.afterId);
      rows = (await q) as ProductoRow[];
    } else if (prepared) {
      rows = await executePrepared<ProductoRow>(db, prepared.sql, prepared.values);
    } else {
      const q = filtered(
        db<ProductoRow>(TABLE)
          .select(db.raw(listColumns(query.conDescripcion)))
          .orderBy('id')
          .limit(query.pageSize + 1),
      );
      if (query.skip > 0) q.offset(query.skip);
      if (query.afterId !== null) q.where('id', '>', query.afterId);
      rows = (await q) as ProductoRow[];
    }
    const page: ProductoPage = {
      productos: rows.slice(0, query.pageSize).map(fromRow),
      hasMore: rows.length > query.pageSize,
    };
    if (query.includeTotalSize) {
      const counted: Knex.QueryBuilder = query.porBodega
        ? db.from(porBodega(query.porBodega, filtered).as('de_bodega'))
        : filtered(db(TABLE));
      const [count] = await counted.count<{ n: number | string }[]>({ n: '*' });
      page.totalSize = Number(count?.n ?? 0);
    }
    return page;
  });
}

function update(
  db: Knex,
  deps: ProductoStoreDeps,
  {
    id,
    changes,
    context,
    expectedVersion,
    conteo,
  }: { id: number; changes: ProductoChanges; context: WriteContext; expectedVersion?: number; conteo?: Conteo },
): Promise<Producto> {
  return write(db, deps, context, async (trx) => {
    const current = await lockById(trx, id);
    requireVersion(current, expectedVersion);
    const stored: Producto = {
      ...current,
      ...changes,
      fechaActualizacion: nowToSecond(),
      version: current.version + 1,
    };
    await trx(TABLE)
      .where({ id })
      .update({
        ...toColumns(changes),
        ...conteoMigra(changes),
        fecha_actualizacion: stored.fechaActualizacion,
        version: stored.version,
      });
    await refuseBodegaEliminada(trx, changes.bodegaId);
    if (conteo) await conteo(stored);
    await enqueueEvent(trx, deps.events.updated(stored, changedFields(PRODUCTO_CAMPOS, current, stored), context));
    return stored;
  });
}

function deleteProducto(
  db: Knex,
  deps: ProductoStoreDeps,
  { id, context, expectedVersion }: { id: number; context: WriteContext; expectedVersion?: number },
): Promise<void> {
  return write(db, deps, context, async (trx) => {
    const current = await lockById(trx, id);
    requireVersion(current, expectedVersion);
    await trx(TABLE).where({ id }).del();
    await enqueueEvent(trx, deps.events.deleted(current, context, nowToSecond()));
  });
}

function productoWasDeleted(db: Knex, id: number): Promise<boolean> {
  return withDbErrors(() => wasDeleted(db, TABLE, id));
}

function recordBodegaEliminada(db: Knex, bodegaId: number): Promise<void> {
  return withDbErrors(async () => {
    await db.raw(`INSERT IGNORE INTO ${BODEGAS_ELIMINADAS} (bodega_id) VALUES (?)`, [bodegaId]);
  });
}

async function unassignBodega(
  db: Knex,
  deps: ProductoStoreDeps,
  { bodegaId, context, maxChunks = 0 }: { bodegaId: number; context: WriteContext; maxChunks?: number },
): Promise<UnassignReport> {
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
        const chunk = await unassignChunk(trx, deps, { bodegaId, context, limit: UNASSIGN_CHUNK_ROWS });
        const after = addToReport(before, chunk.productos, chunk.complete);
        if (key) await recordIdempotentResult(trx, key, RESULTS.encode(after), deps.idempotencyTtlSeconds);
        return { report: after, chunk: chunk.productos.length, replayed: false };
      },
      { onCommitted: deps.onCommitted },
    );
    // A replay only when this call changed nothing (another call may have finished between two chunks).
    if (step.replayed && unassigned === 0 && key) key.replayed = true;
    report = step.report;
    unassigned += step.chunk;
    if (report.complete || chunks === maxChunks) return report;
  }
}

export function createProductoStore(db: Knex, deps: ProductoStoreDeps): ProductoStore {
  return {
    create: (producto, context) => create(db, deps, { producto, context }),
    get: (id) => get(db, id),
    list: (query) => list(db, query),
    update: (id, changes, context, expectedVersion, conteo) =>
      update(db, deps, { id, changes, context, expectedVersion, conteo }),
    delete: (id, context, expectedVersion) => deleteProducto(db, deps, { id, context, expectedVersion }),
    wasDeleted: (id) => productoWasDeleted(db, id),
    recordBodegaEliminada: (bodegaId) => recordBodegaEliminada(db, bodegaId),
    unassignBodega: (bodegaId, context, maxChunks) => unassignBodega(db, deps, { bodegaId, context, maxChunks }),
  };
}
