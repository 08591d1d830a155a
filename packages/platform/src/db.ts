import knex, { type Knex } from 'knex';
import { LockConflictError, ResourceExhaustedError, UnavailableError } from './errors';
import type { Logger } from './logger';

export type { Knex };

export interface MysqlTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/** One server of a DATABASE_URL's host list. */
export interface MysqlHost {
  host: string;
  port: number;
}

/**
 * `mysql://user:password@host1[:port],host2[:port],.../database`: the
 * authority, the user and password part (without the `@`) and the host list
 * as written. Undefined when there is no `mysql://...//` shape at all.
 */
function splitMysqlUrl(url: string): { userinfo: string | undefined; hostList: string; rest: string } | undefined {
  const match = /^mysql:\/\/([^/?#]*)(.*)$/s.exec(url);
  if (!match) return undefined;
  const authority = match[1] ?? '';
  const at = authority.lastIndexOf('@');
  return {
    userinfo: at >= 0 ? authority.slice(0, at) : undefined,
    hostList: at >= 0 ? authority.slice(at + 1) : authority,
    rest: match[2] ?? '',
  };
}

/**
 * The servers a DATABASE_URL names: one (`host[:port]`), or several,
 * comma-separated, for failover (a Galera cluster's nodes, a managed MySQL's
 * primary and standby); port 3306 where none is given. Errors never carry
 * the URL.
 */
export function parseMysqlHosts(url: string): MysqlHost[] {
  const parts = splitMysqlUrl(url);
  if (!parts) throw new Error('database URL must start with mysql://');
  const entries = parts.hostList.split(',');
  return entries.map((entry, i) => {
    // `mysql:///db` means the local server; in a list every host is named.
    if (!URL.canParse(`mysql://${entry}/x`) || (entries.length > 1 && entry === ''))
      throw new Error(`database URL: host ${i + 1} is not host[:port]`);
    const u = new URL(`mysql://${entry}/x`);
    return { host: u.hostname || '127.0.0.1', port: u.port ? Number(u.port) : 3306 };
  });
}

/**
 * Errors never carry the URL (Node's ERR_INVALID_URL keeps it as `input`, password included). With several hosts, the
 * first.
 */
export function parseMysqlUrl(url: string): MysqlTarget {
  const parts = splitMysqlUrl(url);
  // The URL parser takes one host: the others are parseMysqlHosts'.
  const firstHost = parts
    ? `mysql://${parts.userinfo !== undefined ? `${parts.userinfo}@` : ''}` +
      `${parts.hostList.split(',')[0] ?? ''}${parts.rest}`
    : url;
  let u: URL;
  try {
    u = new URL(firstHost);
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
  const hosts = parseMysqlHosts(url)
    .map((h) => `${h.host}:${h.port}`)
    .join(',');
  return `mysql://${hosts}/${t.database}`;
}

export interface DbOptions {
  poolMax?: number;
  /** Keep below the gRPC deadline. */
  acquireTimeoutMs?: number;
  connectTimeoutMs?: number;
  /**
   * Server-side, lock waits included; below the callers' deadline so a stuck query ends before they give up. 0: none.
   */
  statementTimeoutMs?: number;
  /** For knex's own warnings, which it would otherwise console.log into the JSON log stream. */
  logger?: Logger;
  /**
   * Every connection's isolation level, set as it opens (SET SESSION): a transaction that wants
   * this level then needs no SET TRANSACTION of its own, one round trip less per write (issue 23).
   * A transaction that asks for another level still gets it for itself alone.
   */
  transactionIsolation?: 'REPEATABLE READ' | 'READ COMMITTED';
  /**
   * Lets one query carry several statements (mysql2's multipleStatements), so a write can send the
   * statements of its tail in one round trip (issue 23). Only for a service whose SQL is all built
   * with bindings (parameterised), never by pasting request text in: a pasted `;` could then run a
   * second statement.
   */
  multipleStatements?: boolean;
  /**
   * A pool that only reads (a test reading every node of a cluster, a report): kept on any node that answers,
   * without the writable checks and Galera's writer claim (checkWritable).
   */
  readOnly?: boolean;
}

/** Dates are UTC; DECIMAL columns come back as strings so money is never a float. */
export function createDb(url: string, options: DbOptions = {}): Knex {
  const target = parseMysqlUrl(url);
  const hosts = parseMysqlHosts(url);
  const settings = {
    ...target,
    timezone: 'Z',
    charset: 'utf8mb4',
    decimalNumbers: false,
    supportBigNumbers: true,
    connectTimeout: options.connectTimeoutMs ?? 3000,
    // Detect a peer that vanished without closing the connection.
    enableKeepAlive: true,
    keepAliveInitialDelay: 10_000,
    ...(options.multipleStatements ? { multipleStatements: true } : {}),
  };
  const failover = hosts.length > 1 ? new HostFailover(hosts, options.logger) : undefined;
  const statements = chainOnOpen(
    options.statementTimeoutMs ? limitStatements(options.statementTimeoutMs) : undefined,
    options.transactionIsolation ? sessionIsolation(options.transactionIsolation) : undefined,
  );
  const db = knex({
    client: 'mysql2',
    connection: settings,
    pool: {
      min: 0,
      max: options.poolMax ?? 10,
      ...(options.readOnly
        ? statements && { afterCreate: statements }
        : { afterCreate: checkWritable(hosts, failover, statements) }),
    },
    acquireConnectionTimeout: options.acquireTimeoutMs ?? 3000,
    ...(options.logger ? { log: knexLog(options.logger) } : {}),
  });
  if (failover) {
    // knex's mysql2 client opens every new connection with client.connectionSettings: pointed at the chosen host.
    // (Not a connection provider: knex would then also retire every pooled connection at each acquire.)
    const client = db.client as {
      connectionSettings: typeof settings;
      pool?: { on(event: 'createFail', handler: (id: number, err: unknown) => void): void };
    };
    failover.onSwitch = (host) => (client.connectionSettings = { ...client.connectionSettings, ...host });
    client.pool?.on('createFail', (_id, err) => failover.failed(err));
  }
  return db;
}

/**
 * Which of DATABASE_URL's hosts new connections go to: the one that last
 * worked, until connecting to it fails or it says it may not take writes
 * (checkWritable); then the next in the list, round. Every replica of a
 * service thus writes through the same server while it is up (on Galera:
 * one writer node, so certification conflicts stay rare), and all of them
 * move on alike when it goes. Connections already open stay where they are
 * until they fail or the pool retires them.
 */
export class HostFailover {
  private index = 0;
  /** Told the host new connections go to from now on. */
  onSwitch?: (host: MysqlHost) => void;

  constructor(
    readonly hosts: readonly MysqlHost[],
    private readonly logger?: Logger,
  ) {}

  current(): MysqlHost {
    return this.hosts[this.index] as MysqlHost;
  }

  /** A connection failed: move on from the host it was meant for (the failure's own address when it has one), once. */
  failed(err: unknown): void {
    const failedHost = hostOfError(err, this.hosts) ?? this.current();
    if (failedHost !== this.current()) return;
    const from = this.current();
    this.index = (this.index + 1) % this.hosts.length;
    this.onSwitch?.(this.current());
    this.logger?.warn(
      {
        from: `${from.host}:${from.port}`,
        to: `${this.current().host}:${this.current().port}`,
        reason: errorCode(err) ?? (err instanceof Error ? err.name : 'unknown'),
      },
      'database host failed; new connections go to the next host',
    );
  }
}

function hostOfError(err: unknown, hosts: readonly MysqlHost[]): MysqlHost | undefined {
  const { address, port, host } = (err ?? {}) as { address?: unknown; port?: unknown; host?: unknown };
  return (
    hosts.find((h) => h.port === port && (h.host === address || h.host === host)) ??
    (err instanceof NotWritableError ? err.host : undefined)
  );
}

/** The code of NotWritableError: transient, like a refused connection. */
export const HOST_NOT_WRITABLE = 'INVENTARIO_HOST_NOT_WRITABLE';

/** A host that answered but may not take writes now. */
class NotWritableError extends Error {
  constructor(
    readonly host: MysqlHost,
    reason: string,
  ) {
    super(`database host ${host.host}:${host.port} may not take writes: ${reason}`);
    this.name = 'NotWritableError';
    Object.assign(this, { code: HOST_NOT_WRITABLE });
  }
}

/**
 * A new connection is kept only on a server that takes writes: not a
 * read-only one (a managed MySQL's standby, an old primary demoted; checked
 * with several hosts), not a Galera node outside the primary component
 * (`wsrep_ready` OFF), and on Galera only the cluster's writer node for this
 * database (claimGaleraWriter). Otherwise the host is failed over (with
 * several hosts) or the connection refused.
 */
function checkWritable(
  hosts: readonly MysqlHost[],
  failover: HostFailover | undefined,
  then: OnOpen | undefined,
): OnOpen {
  const run = (connection: RawConnection, sql: string, bindings: unknown[] = []) =>
    new Promise<unknown>((resolve, reject) =>
      connection.query(sql, bindings, (err, rows) => (err ? reject(err) : resolve(rows))),
    );
  return (connection, done) => {
    const { host: name, port } = (connection as { config?: { host?: string; port?: number } }).config ?? {};
    const host = hosts.find((h) => h.host === name && h.port === port) ?? failover?.current() ?? hosts[0]!;
    void (async () => {
      if (failover) {
        const [row] = (await run(connection, 'SELECT @@global.read_only AS readOnly')) as [{ readOnly: number }];
        if (Number(row.readOnly) === 1) throw new NotWritableError(host, 'read_only is ON');
      }
      // Only on a Galera node (wsrep_on): a plain MariaDB has the variable too, always OFF.
      const wsrep = (await run(connection, "SHOW GLOBAL VARIABLES LIKE 'wsrep_on'")) as { Value?: string }[];
      if (wsrep[0]?.Value !== 'ON') return;
      const ready = (await run(connection, "SHOW GLOBAL STATUS LIKE 'wsrep_ready'")) as { Value?: string }[];
      if (ready[0]?.Value !== 'ON') throw new NotWritableError(host, 'wsrep_ready is not ON');
      await claimGaleraWriter(host, (sql, bindings) => run(connection, sql, bindings));
    })().then(
      () => (then ? then(connection, done) : done(null, connection)),
      (err: unknown) => done(err instanceof Error ? err : new Error(String(err)), connection),
    );
  };
}

/** Where a database records its Galera writer node (claimGaleraWriter); created on first use, on Galera only. */
export const GALERA_WRITER_TABLE = 'galera_escritor';

/**
 * One writer node per database, enforced (docs/decisions.md, "Galera: one
 * writer node, enforced"). Writes through two nodes at once were seen to
 * commit part of a transaction when certification conflicts abort it (a
 * ledger line kept, its level's update lost), so the rule is not left to the
 * order of DATABASE_URL's hosts. The first node a service connects through
 * records itself in GALERA_WRITER_TABLE of the service's database; a
 * connection to any other node is refused while the recorded one is a member
 * of the cluster (mysql.wsrep_cluster_members: the service's user needs
 * SELECT on it), and a node takes the role over once the recorded one has
 * left. Two nodes claiming at once conflict at certification: one claim
 * fails and its connection is refused, to be tried again.
 */
async function claimGaleraWriter(
  host: MysqlHost,
  run: (sql: string, bindings?: unknown[]) => Promise<unknown>,
): Promise<void> {
  const [schema] = (await run('SELECT DATABASE() AS db')) as [{ db: string | null }];
  // A connection to no database (creating one, the migrator's first step) writes nothing of a service's.
  if (!schema?.db) return;
  const [node] = (await run(
    `SELECT (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'WSREP_GCOMM_UUID') ` +
      'AS uuid, @@wsrep_node_name AS name',
  )) as [{ uuid: string; name: string }];
  const recorded = await run(`SELECT nodo, nombre FROM ${GALERA_WRITER_TABLE} WHERE id = 1`).catch(
    async (err: unknown) => {
      if ((err as { errno?: number }).errno !== 1146) throw err;
      await run(
        `CREATE TABLE IF NOT EXISTS ${GALERA_WRITER_TABLE} (id TINYINT UNSIGNED PRIMARY KEY, nodo VARCHAR(64) NOT ` +
          'NULL, nombre VARCHAR(64) NOT NULL, desde DATETIME(3) NOT NULL) ENGINE=InnoDB',
      );
      return [];
    },
  );
  const writer = (recorded as { nodo: string; nombre: string }[])[0];
  if (writer?.nodo === node.uuid) return;
  if (writer) {
    const members = (await run('SELECT node_uuid FROM mysql.wsrep_cluster_members')) as { node_uuid: string }[];
    if (members.some((m) => m.node_uuid === writer.nodo))
      throw new NotWritableError(host, `the Galera writer node of ${schema.db} is ${writer.nombre}`);
  }
  await run(
    `INSERT INTO ${GALERA_WRITER_TABLE} (id, nodo, nombre, desde) VALUES (1, ?, ?, CURRENT_TIMESTAMP(3)) ` +
      'ON DUPLICATE KEY UPDATE nodo = VALUES(nodo), nombre = VALUES(nombre), desde = VALUES(desde)',
    [node.uuid, node.name],
  ).catch((err: unknown) => {
    throw new NotWritableError(host, `claiming the Galera writer role failed: ${(err as Error).message}`);
  });
}

interface RawConnection {
  query(sql: string, bindings: unknown[], callback: (err: Error | null, rows: unknown) => void): void;
}

/**
 * MariaDB bounds every statement; MySQL's `max_execution_time` bounds only
 * read-only SELECTs, so writes there are bounded by innodb_lock_wait_timeout
 * and by the rollback of a cancelled call.
 */
export function statementLimit(serverVersion: string, ms: number): string[] {
  if (/mariadb/i.test(serverVersion)) return [`SET SESSION max_statement_time = ${(ms / 1000).toFixed(3)}`];
  return [
    `SET SESSION max_execution_time = ${Math.ceil(ms)}`,
    `SET SESSION innodb_lock_wait_timeout = ${Math.max(1, Math.ceil(ms / 1000))}`,
  ];
}

type OnOpen = (connection: RawConnection, done: (err: Error | null, connection: RawConnection) => void) => void;

/** `first`, then `second`, on each new connection; either may be absent. */
function chainOnOpen(first: OnOpen | undefined, second: OnOpen | undefined): OnOpen | undefined {
  if (!first || !second) return first ?? second;
  return (connection, done) => first(connection, (err, conn) => (err ? done(err, conn) : second(conn, done)));
}

function sessionIsolation(level: 'REPEATABLE READ' | 'READ COMMITTED'): OnOpen {
  // A block, not an expression: mysql2's Query is a false thenable that refuses being awaited.
  return (connection, done) => {
    connection.query(`SET SESSION TRANSACTION ISOLATION LEVEL ${level}`, [], (err) =>
      done(err ? (err instanceof Error ? err : new Error(String(err))) : null, connection),
    );
  };
}

function limitStatements(
  ms: number,
): (connection: RawConnection, done: (err: Error | null, connection: RawConnection) => void) => void {
  const run = (connection: RawConnection, sql: string) =>
    new Promise<unknown>((resolve, reject) =>
      connection.query(sql, [], (err, rows) => (err ? reject(err) : resolve(rows))),
    );
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

/** Runs `sql` on the first of the URL's hosts that answers (a cluster replicates it to the others). */
async function onFirstHost(url: string, sql: string): Promise<void> {
  const { database, host: _host, port: _port, ...credentials } = parseMysqlUrl(url);
  let lastError: unknown;
  for (const host of parseMysqlHosts(url)) {
    const admin = adminConnection({ ...credentials, ...host });
    try {
      await admin.raw(sql, [database]);
      return;
    } catch (err) {
      if (!isTransientDbError(err)) throw err;
      lastError = err;
    } finally {
      await admin.destroy();
    }
  }
  throw lastError;
}

export async function ensureDatabase(url: string): Promise<void> {
  await onFirstHost(url, 'CREATE DATABASE IF NOT EXISTS ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
}

export async function dropDatabase(url: string): Promise<void> {
  await onFirstHost(url, 'DROP DATABASE IF EXISTS ??');
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
  return {
    missing: names.filter((name) => !applied.includes(name)),
    unknown: applied.filter((name) => !(name in known)),
  };
}

/** With MIGRATE_ON_START=false and migrations missing, the process must not serve. */
export class MigrationsMissingError extends Error {
  constructor(readonly missing: string[]) {
    super(
      `the database lacks the migrations ${missing.join(', ')}; apply them first (the migration job, ` +
        `dist/migrate-main.js) or start with MIGRATE_ON_START=true`,
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
export async function migrate(
  db: Knex,
  migrations: Record<string, Migration>,
  lockWaitSeconds = 2,
): Promise<MigrationState> {
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
    const [[row]] = (await session.raw(`SELECT GET_LOCK(${lock}, ?) AS got`, [lockWaitSeconds])) as [
      [{ got: number | null }],
    ];
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
  HOST_NOT_WRITABLE,
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

/** A lock wait past innodb_lock_wait_timeout (a plain one; NOWAIT reads are isLockBusy's), or a deadlock victim. */
export function isLockConflict(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'ER_LOCK_WAIT_TIMEOUT' || code === 'ER_LOCK_DEADLOCK';
}

/**
 * A connection, pool or server problem, or a statement stopped at its time limit: worth retrying later (start-up,
 * launcher).
 */
export function isTransientDbError(err: unknown): boolean {
  const code = errorCode(err);
  // A Galera node outside the primary component ("WSREP has not yet prepared node for application use").
  if ((err as { errno?: number } | null)?.errno === 1047) return true;
  if (code !== undefined && CONNECTION_CODES.has(code)) return true;
  if (isStatementTimeout(err)) return true;
  return err instanceof Error && err.name === 'KnexTimeoutError';
}

export function isPacketTooLarge(err: unknown): boolean {
  return errorCode(err) === 'ER_NET_PACKET_TOO_LARGE' || (err as { errno?: number } | null)?.errno === 1153;
}

/**
 * No driver message reaches a client. What is about this request (docs/contract.md §7.8) is told
 * apart from what is about the database's health: a statement stopped at its time limit is
 * ResourceExhaustedError (STATEMENT_TIMEOUT), a lock wait or deadlock LockConflictError, oversize
 * ResourceExhaustedError; only the rest of the transient failures (connections, the pool, a server
 * shutting down) are UnavailableError, which callers retry and breakers count.
 */
export async function withDbErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isStatementTimeout(err)) {
      throw new ResourceExhaustedError('a statement ran past the database time limit; nothing was written', {
        cause: err,
        reason: 'STATEMENT_TIMEOUT',
      });
    }
    if (isLockConflict(err)) throw new LockConflictError({ cause: err });
    if (isTransientDbError(err)) throw new UnavailableError('database unavailable', { cause: err });
    if (isPacketTooLarge(err))
      throw new ResourceExhaustedError('the request is too large for one database statement', { cause: err });
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
