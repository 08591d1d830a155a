import knex, { type Knex } from 'knex';
import { ResourceExhaustedError, UnavailableError } from './errors';
import type { Logger } from './logger';

export type { Knex };

export interface MysqlTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/** Errors never carry the URL (Node's ERR_INVALID_URL keeps it as `input`, password included). */
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

/** Safe to log. */
export function describeMysqlUrl(url: string): string {
  const t = parseMysqlUrl(url);
  return `mysql://${t.host}:${t.port}/${t.database}`;
}

export interface DbOptions {
  poolMax?: number;
  /** Keep below the gRPC deadline. */
  acquireTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Server-side, lock waits included; below the callers' deadline so a stuck query ends before they give up. 0: none. */
  statementTimeoutMs?: number;
  /** For knex's own warnings, which it would otherwise console.log into the JSON log stream. */
  logger?: Logger;
}

/** Dates are UTC; DECIMAL columns come back as strings so money is never a float. */
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

interface RawConnection {
  query(sql: string, callback: (err: Error | null, rows: unknown) => void): void;
}

/**
 * MariaDB bounds every statement; MySQL's `max_execution_time` bounds only
 * read-only SELECTs, so writes there are bounded by innodb_lock_wait_timeout
 * and by the rollback of a cancelled call.
 */
export function statementLimit(serverVersion: string, ms: number): string[] {
  if (/mariadb/i.test(serverVersion)) return [`SET SESSION max_statement_time = ${(ms / 1000).toFixed(3)}`];
  return [`SET SESSION max_execution_time = ${Math.ceil(ms)}`, `SET SESSION innodb_lock_wait_timeout = ${Math.max(1, Math.ceil(ms / 1000))}`];
}

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

/** Failures reach the caller, not the console. */
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

export async function ensureDatabase(url: string): Promise<void> {
  const { database, ...server } = parseMysqlUrl(url);
  const admin = adminConnection(server);
  try {
    await admin.raw('CREATE DATABASE IF NOT EXISTS ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci', [database]);
  } finally {
    await admin.destroy();
  }
}

export async function dropDatabase(url: string): Promise<void> {
  const { database, ...server } = parseMysqlUrl(url);
  const admin = adminConnection(server);
  try {
    await admin.raw('DROP DATABASE IF EXISTS ??', [database]);
  } finally {
    await admin.destroy();
  }
}

/** In code, so compiled services need no migration folder. */
export interface Migration {
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

const MIGRATIONS_TABLE = 'knex_migrations';

export async function appliedMigrations(db: Knex): Promise<string[]> {
  if (!(await db.schema.hasTable(MIGRATIONS_TABLE))) return [];
  const rows = (await db(MIGRATIONS_TABLE).select('name').orderBy('name')) as { name: string }[];
  return rows.map((row) => row.name);
}

export interface MigrationState {
  missing: string[];
  /** Applied by a newer release (after a rollback, or old pods mid-rollout). */
  unknown: string[];
}

export function compareMigrations(known: Record<string, Migration>, applied: string[]): MigrationState {
  const names = Object.keys(known).sort();
  return { missing: names.filter((name) => !applied.includes(name)), unknown: applied.filter((name) => !(name in known)) };
}

/** With MIGRATE_ON_START=false and migrations missing, the process must not serve. */
export class MigrationsMissingError extends Error {
  constructor(readonly missing: string[]) {
    super(
      `the database lacks the migrations ${missing.join(', ')}; apply them first (the migration job, dist/migrate-main.js) or start with MIGRATE_ON_START=true`,
    );
    this.name = 'MigrationsMissingError';
  }
}

export class MigrationLockTimeoutError extends Error {
  constructor(seconds: number) {
    super(`another process kept the migration lock for more than ${seconds} s`);
    this.name = 'MigrationLockTimeoutError';
  }
}

/**
 * Replicas take turns on a GET_LOCK named lock: knex's lock table cannot
 * serialise the first run, and the named lock dies with its connection, so a
 * killed process cannot leave it held (knex's lock row it can, so it is freed
 * under ours). The wait is short (MigrationLockTimeoutError) so a stopping
 * process is never stuck here. Applied migrations this version does not know
 * are reported, not refused as knex would: migrations only add.
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

/** A NOWAIT read found the row locked (MariaDB 1205, MySQL 8 3572). */
export function isLockBusy(err: unknown): boolean {
  const errno = (err as { errno?: number } | null)?.errno;
  return errno === 1205 || errno === 3572;
}

export function isDuplicateEntry(err: unknown): boolean {
  return errorCode(err) === 'ER_DUP_ENTRY';
}

export function isStatementTimeout(err: unknown): boolean {
  const errno = (err as { errno?: number } | null)?.errno;
  return errno === 1969 || errno === 3024;
}

export function isTransientDbError(err: unknown): boolean {
  const code = errorCode(err);
  if (code !== undefined && CONNECTION_CODES.has(code)) return true;
  if (isStatementTimeout(err)) return true;
  return err instanceof Error && err.name === 'KnexTimeoutError';
}

export function isPacketTooLarge(err: unknown): boolean {
  return errorCode(err) === 'ER_NET_PACKET_TOO_LARGE' || (err as { errno?: number } | null)?.errno === 1153;
}

/** No driver message reaches a client: transient failures become UnavailableError, oversize ResourceExhaustedError. */
export async function withDbErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isTransientDbError(err)) throw new UnavailableError('database unavailable', { cause: err });
    if (isPacketTooLarge(err)) throw new ResourceExhaustedError('the request is too large for one database statement', { cause: err });
    throw err;
  }
}

interface PreparingConnection {
  execute(sql: string, values: unknown[], callback: (err: Error | null, rows: unknown) => void): void;
}

/** knex types its client `any`. */
interface KnexConnectionPool {
  acquireConnection(): Promise<PreparingConnection>;
  releaseConnection(connection: PreparingConnection): Promise<void>;
}

/**
 * A prepared statement on knex's own pool, for hot reads: no query builder
 * and no server-side parsing per call. Driver errors keep their codes for
 * the caller's mapping. Only for a db created by createDb (mysql2).
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
