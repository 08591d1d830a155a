import knex, { type Knex } from 'knex';
import { ResourceExhaustedError, UnavailableError } from './errors';
import type { Logger } from './logger';

export type { Knex };

/** The parts of a `mysql://user:password@host:port/database` URL. */
export interface MysqlTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/**
 * The parts of a database URL. Its errors never carry the URL (Node's
 * ERR_INVALID_URL keeps it as `input`, which a logged error would print,
 * password included): each names the problem only.
 */
export function parseMysqlUrl(url: string): MysqlTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error('database URL is not a valid URL (mysql://user[:password]@host[:port]/database)');
  }
  if (u.protocol !== 'mysql:') throw new Error('database URL must start with mysql://');
  const decode = (part: string, what: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      throw new Error(`database URL: the ${what} holds a malformed %-escape`);
    }
  };
  const database = decode(u.pathname.replace(/^\//, ''), 'database name');
  if (!/^[A-Za-z0-9_]+$/.test(database)) throw new Error('database name must be letters, digits or _');
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 3306,
    user: decode(u.username || 'root', 'user'),
    password: decode(u.password, 'password'),
    database,
  };
}

/** Where a URL points, without its credentials: safe to log. */
export function describeMysqlUrl(url: string): string {
  const t = parseMysqlUrl(url);
  return `mysql://${t.host}:${t.port}/${t.database}`;
}

export interface DbOptions {
  poolMax?: number;
  /** How long a query waits for a pooled connection; keep below the gRPC deadline. */
  acquireTimeoutMs?: number;
  connectTimeoutMs?: number;
  /**
   * The server's time limit on each statement of every pooled connection,
   * lock waits included (see statementLimit); unset or 0: none. A service
   * keeps it below the deadline its callers set, so a query stuck on a lock
   * or a slow plan ends, rolled back, before the caller gives up.
   */
  statementTimeoutMs?: number;
  /**
   * Receives knex's own warnings (e.g. "Acquire connection error" while the
   * database is down). Without it knex writes them with console.log, which
   * breaks the one-JSON-object-per-line log stream.
   */
  logger?: Logger;
}

/**
 * A knex pool on mysql2. Dates are read and written as UTC (`timezone: 'Z'`),
 * DECIMAL columns come back as strings so money is never a float.
 */
export function createDb(url: string, options: DbOptions = {}): Knex {
  const target = parseMysqlUrl(url);
  return knex({
    client: 'mysql2',
    connection: {
      ...target,
      timezone: 'Z',
      charset: 'utf8mb4',
      decimalNumbers: false,
      supportBigNumbers: true,
      connectTimeout: options.connectTimeoutMs ?? 3000,
      // Detect a peer that vanished without closing the connection.
      enableKeepAlive: true,
      keepAliveInitialDelay: 10_000,
    },
    pool: {
      min: 0,
      max: options.poolMax ?? 10,
      ...(options.statementTimeoutMs ? { afterCreate: limitStatements(options.statementTimeoutMs) } : {}),
    },
    acquireConnectionTimeout: options.acquireTimeoutMs ?? 3000,
    ...(options.logger ? { log: knexLog(options.logger) } : {}),
  });
}

/** The part of a raw mysql2 connection (callback API) the pool's afterCreate hook uses. */
interface RawConnection {
  query(sql: string, callback: (err: Error | null, rows: unknown) => void): void;
}

/**
 * The session statements that bound each statement to `ms` on this server.
 * MariaDB (10.1+): `max_statement_time`, for every statement, lock waits
 * included. MySQL (5.7.8+) has no such limit for writes: `max_execution_time`
 * bounds read-only SELECTs only, so a write's lock wait is bounded by
 * `innodb_lock_wait_timeout` (whole seconds) instead, and a write stuck in
 * anything else by the rollback of a cancelled call (writeTransaction).
 */
export function statementLimit(serverVersion: string, ms: number): string[] {
  if (/mariadb/i.test(serverVersion)) return [`SET SESSION max_statement_time = ${(ms / 1000).toFixed(3)}`];
  return [`SET SESSION max_execution_time = ${Math.ceil(ms)}`, `SET SESSION innodb_lock_wait_timeout = ${Math.max(1, Math.ceil(ms / 1000))}`];
}

/** knex's pool hook: sets the statement limit on each new connection before it is used. */
function limitStatements(ms: number): (connection: RawConnection, done: (err: Error | null, connection: RawConnection) => void) => void {
  const run = (connection: RawConnection, sql: string) =>
    new Promise<unknown>((resolve, reject) => connection.query(sql, (err, rows) => (err ? reject(err) : resolve(rows))));
  return (connection, done) => {
    void (async () => {
      const [row] = (await run(connection, 'SELECT VERSION() AS version')) as [{ version: string }];
      for (const sql of statementLimit(row.version, ms)) await run(connection, sql);
    })().then(
      () => done(null, connection),
      (err: unknown) => done(err instanceof Error ? err : new Error(String(err)), connection),
    );
  };
}

function knexLog(logger: Logger): Knex.Config['log'] {
  const text = (message: unknown) => (typeof message === 'string' ? message : JSON.stringify(message));
  return {
    debug: (message: unknown) => logger.debug({ knex: text(message) }, 'knex debug'),
    warn: (message: unknown) => logger.warn({ knex: text(message) }, 'knex warning'),
    error: (message: unknown) => logger.error({ knex: text(message) }, 'knex error'),
    deprecate: (message: unknown) => logger.warn({ knex: text(message) }, 'knex deprecation'),
  };
}

/** A one-connection pool on the server itself; failures reach the caller, not the console. */
function adminConnection(server: Omit<MysqlTarget, 'database'>): Knex {
  const quiet = () => undefined;
  return knex({
    client: 'mysql2',
    connection: { ...server, connectTimeout: 3000 },
    pool: { min: 0, max: 1 },
    acquireConnectionTimeout: 5000,
    log: { warn: quiet, error: quiet, debug: quiet, deprecate: quiet },
  });
}

/** Creates the database of `url` when it does not exist (dev launcher, tests). */
export async function ensureDatabase(url: string): Promise<void> {
  const { database, ...server } = parseMysqlUrl(url);
  const admin = adminConnection(server);
  try {
    await admin.raw('CREATE DATABASE IF NOT EXISTS ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci', [database]);
  } finally {
    await admin.destroy();
  }
}

/** Drops the database of `url` if it exists (tests). */
export async function dropDatabase(url: string): Promise<void> {
  const { database, ...server } = parseMysqlUrl(url);
  const admin = adminConnection(server);
  try {
    await admin.raw('DROP DATABASE IF EXISTS ??', [database]);
  } finally {
    await admin.destroy();
  }
}

/** A migration kept in code, so compiled services need no migration folder. */
export interface Migration {
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

/** knex's table of applied migrations (its default name). */
const MIGRATIONS_TABLE = 'knex_migrations';

/** The names of the migrations recorded as applied, in name order; none before knex's table exists. */
export async function appliedMigrations(db: Knex): Promise<string[]> {
  if (!(await db.schema.hasTable(MIGRATIONS_TABLE))) return [];
  const rows = (await db(MIGRATIONS_TABLE).select('name').orderBy('name')) as { name: string }[];
  return rows.map((row) => row.name);
}

/** How the database's applied migrations compare with the ones this version knows. */
export interface MigrationState {
  /** Known here and not applied. */
  missing: string[];
  /** Applied and not known here: a newer release applied them (a rollback, or old pods mid-rollout). */
  unknown: string[];
}

export function compareMigrations(known: Record<string, Migration>, applied: string[]): MigrationState {
  const names = Object.keys(known).sort();
  return { missing: names.filter((name) => !applied.includes(name)), unknown: applied.filter((name) => !(name in known)) };
}

/**
 * The database lacks migrations this version needs, and this process was
 * told not to apply them (MIGRATE_ON_START=false): it must not serve.
 */
export class MigrationsMissingError extends Error {
  constructor(readonly missing: string[]) {
    super(
      `the database lacks the migrations ${missing.join(', ')}; apply them first (the migration job, dist/migrate-main.js) or start with MIGRATE_ON_START=true`,
    );
    this.name = 'MigrationsMissingError';
  }
}

/** Another process held the migration lock for longer than we were willing to wait. */
export class MigrationLockTimeoutError extends Error {
  constructor(seconds: number) {
    super(`another process kept the migration lock for more than ${seconds} s`);
    this.name = 'MigrationLockTimeoutError';
  }
}

/**
 * Applies every pending migration, in name order. Replicas starting together
 * take turns on a MySQL named lock (GET_LOCK, per database) held by one
 * pinned connection: knex's own lock table cannot serialise the very first
 * run, when several processes race to create knex_migrations itself.
 *
 * The wait for the lock is short (MigrationLockTimeoutError, for the caller
 * to retry), so a process asked to stop is never stuck here for long. The
 * named lock dies with its connection, so a process killed mid-migration
 * cannot leave it held; knex's lock row it can, which is why it is freed
 * while we hold the named lock (nobody else can be migrating then).
 *
 * Forward-compatible: applied migrations this version does not know (a
 * newer release's, seen after a rollback or by old pods mid-rollout) are
 * left alone and reported, instead of knex's refusal ("The migration
 * directory is corrupt"). That is safe because migrations only add.
 */
export async function migrate(db: Knex, migrations: Record<string, Migration>, lockWaitSeconds = 2): Promise<MigrationState> {
  const names = Object.keys(migrations).sort();
  const lock = "CONCAT('inventario.migrate.', DATABASE())";
  const config = {
    tableName: MIGRATIONS_TABLE,
    disableMigrationsListValidation: true,
    migrationSource: {
      getMigrations: () => Promise.resolve(names),
      getMigrationName: (name: string) => name,
      getMigration: (name: string) => Promise.resolve(migrations[name] as Migration),
    },
  };
  return db.transaction(async (session) => {
    const [[row]] = (await session.raw(`SELECT GET_LOCK(${lock}, ?) AS got`, [lockWaitSeconds])) as [[{ got: number | null }]];
    if (row?.got !== 1) throw new MigrationLockTimeoutError(lockWaitSeconds);
    let failure: Error | undefined;
    let state: MigrationState | undefined;
    try {
      await db.migrate.forceFreeMigrationsLock(config);
      await db.migrate.latest(config);
      state = compareMigrations(migrations, await appliedMigrations(db));
    } catch (err) {
      failure = err instanceof Error ? err : new Error(String(err));
    }
    try {
      await session.raw(`SELECT RELEASE_LOCK(${lock})`);
    } catch (releaseErr) {
      // A dead connection released the lock already; keep the migration's own error.
      failure ??= releaseErr instanceof Error ? releaseErr : new Error(String(releaseErr));
    }
    if (failure !== undefined || state === undefined) throw failure ?? new Error('migrations did not finish');
    return state;
  });
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK',
]);

function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = err.code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** A NOWAIT locking read found the row locked: MariaDB answers 1205, MySQL 8 3572. */
export function isLockBusy(err: unknown): boolean {
  const errno = (err as { errno?: number } | null)?.errno;
  return errno === 1205 || errno === 3572;
}

export function isDuplicateEntry(err: unknown): boolean {
  return errorCode(err) === 'ER_DUP_ENTRY';
}

/** The statement outlived its time limit (statementLimit): MariaDB ER_STATEMENT_TIMEOUT, MySQL ER_QUERY_TIMEOUT. */
export function isStatementTimeout(err: unknown): boolean {
  const errno = (err as { errno?: number } | null)?.errno;
  return errno === 1969 || errno === 3024;
}

/** True when the database could not be reached, or a lock or an answer could not be had in time. */
export function isTransientDbError(err: unknown): boolean {
  const code = errorCode(err);
  if (code !== undefined && CONNECTION_CODES.has(code)) return true;
  if (isStatementTimeout(err)) return true;
  return err instanceof Error && err.name === 'KnexTimeoutError';
}

/** A statement larger than the server's max_allowed_packet (ER_NET_PACKET_TOO_LARGE). */
export function isPacketTooLarge(err: unknown): boolean {
  return errorCode(err) === 'ER_NET_PACKET_TOO_LARGE' || (err as { errno?: number } | null)?.errno === 1153;
}

/**
 * Runs `work`, turning a transient driver failure into UnavailableError and a
 * statement too large for the server into ResourceExhaustedError (about the
 * request, not the database's health), so no driver message reaches a
 * client; other errors pass through unchanged.
 */
export async function withDbErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isTransientDbError(err)) throw new UnavailableError('database unavailable', { cause: err });
    if (isPacketTooLarge(err)) throw new ResourceExhaustedError('the request is too large for one database statement', { cause: err });
    throw err;
  }
}

/** The part of a pooled mysql2 connection (knex's mysql2 client) executePrepared uses. */
interface PreparingConnection {
  execute(sql: string, values: unknown[], callback: (err: Error | null, rows: unknown) => void): void;
}

/** The part of knex's client (typed `any` by knex) executePrepared uses: its pool. */
interface KnexConnectionPool {
  acquireConnection(): Promise<PreparingConnection>;
  releaseConnection(connection: PreparingConnection): Promise<void>;
}

/**
 * Runs `sql` (built once by the caller, `?` placeholders) as a prepared
 * statement (mysql2 `execute`, cached per connection) on a connection of
 * knex's own pool, and resolves its rows: for a hot read, no query builder
 * work and no SQL parsing by the server per call. Pool limits, the acquire
 * timeout (KnexTimeoutError) and the dropping of broken connections stay
 * knex's; driver errors keep their codes (ER_..., ECONNREFUSED) for the
 * caller's error mapping. Only for a db created by createDb (mysql2).
 */
export async function executePrepared<Row>(db: Knex, sql: string, values: unknown[]): Promise<Row[]> {
  const pool = db.client as KnexConnectionPool;
  const connection = await pool.acquireConnection();
  try {
    return await new Promise<Row[]>((resolve, reject) => {
      connection.execute(sql, values, (err, rows) => (err ? reject(err) : resolve(rows as Row[])));
    });
  } finally {
    await pool.releaseConnection(connection);
  }
}
