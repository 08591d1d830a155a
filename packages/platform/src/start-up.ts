import { setTimeout as sleep } from 'node:timers/promises';
import {
  appliedMigrations,
  compareMigrations,
  createDb,
  describeMysqlUrl,
  isTransientDbError,
  migrate,
  MigrationLockTimeoutError,
  MigrationsMissingError,
  type Knex,
  type Migration,
  type MigrationState,
} from './db';
import { backoffDelayMs } from './backoff';
import type { NatsCredentials } from './config';
import type { Logger } from './logger';
import { connectNats, type NatsConnection } from './nats';
import { redactUrlCredentials } from './redact';

/**
 * Waiting at start for what a process cannot work without, patiently and
 * abortably: an outage delays start-up instead of crash-looping the
 * process, and SIGTERM still stops it at once.
 */

/** Delays between set-up attempts: 250 ms, doubling, up to 10 s. */
const RETRY_BACKOFF = { baseMs: 250, maxMs: 10_000 };

/**
 * connectNats waits for a first server indefinitely; stop waiting when
 * `signal` aborts, and close the connection should it come up later.
 */
export async function connectNatsUnlessAborted(
  url: string,
  name: string,
  logger: Logger,
  signal: AbortSignal,
  credentials?: NatsCredentials,
): Promise<NatsConnection> {
  signal.throwIfAborted();
  const connecting = connectNats(url, name, logger, credentials);
  const aborted = new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(new Error('stopped before NATS was reachable')), { once: true });
  });
  try {
    const nc = await Promise.race([connecting, aborted]);
    logger.info({ nats: redactUrlCredentials(url) }, 'nats connected');
    return nc;
  } catch (err) {
    void connecting.then(
      (late) => late.close(),
      () => undefined,
    );
    throw err;
  }
}

/**
 * Runs `work` until it succeeds (or fails in a way `retryable` rejects),
 * backing off up to 10 s; rejects once `signal` aborts.
 */
export async function retrying<T>(
  what: string,
  work: () => Promise<T>,
  logger: Logger,
  signal: AbortSignal,
  retryable: (err: unknown) => boolean = () => true,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    signal.throwIfAborted();
    try {
      return await work();
    } catch (err) {
      signal.throwIfAborted();
      if (!retryable(err)) throw err;
      const delayMs = backoffDelayMs(attempt, RETRY_BACKOFF);
      logger.warn(
        { err: err instanceof Error ? err.message : String(err), retryInMs: delayMs },
        `${what} failed; will retry`,
      );
      await sleep(delayMs, undefined, { signal });
    }
  }
}

/**
 * Applies `migrations`, waiting (with retrying's back-off) while the
 * database is unreachable or another process holds the migration lock (a
 * replica or the migration Job); anything else, a migration that fails, is
 * thrown at once. Migrations of a newer release are named in a warning.
 */
export async function migrateWhenPossible(
  db: Knex,
  migrations: Record<string, Migration>,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  const state = await retrying(
    'migrations',
    () => migrate(db, migrations),
    logger,
    signal,
    (err) => isTransientDbError(err) || err instanceof MigrationLockTimeoutError,
  );
  warnUnknown(state, logger);
}

/**
 * For a process that must not run DDL (MIGRATE_ON_START=false): waits while
 * the database is unreachable, then resolves if every migration this version
 * knows is applied, and throws MigrationsMissingError naming the others.
 */
export async function requireMigrations(
  db: Knex,
  migrations: Record<string, Migration>,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  const applied = await retrying('migration check', () => appliedMigrations(db), logger, signal, isTransientDbError);
  const state = compareMigrations(migrations, applied);
  if (state.missing.length > 0) throw new MigrationsMissingError(state.missing);
  warnUnknown(state, logger);
}

function warnUnknown(state: MigrationState, logger: Logger): void {
  if (state.unknown.length === 0) return;
  logger.warn(
    { unknownMigrations: state.unknown },
    'the database has migrations this version does not know (applied by a newer release); starting on it, since ' +
      'migrations only add',
  );
}

/**
 * Start-up in steps, each of which may open something (a port, a pool, a
 * connection): if a step throws, what the earlier steps opened is closed,
 * newest first, a failing close ignored, and the error goes on. Nothing
 * stays open behind a start that failed (a bad URL, a port in use, an
 * aborted wait). Once start-up is done the guard is dropped: from then on
 * the shutdown sequence closes things.
 */
export interface StartupGuard {
  /** Runs `open`; on success remembers `close` (if any) for a later step's failure. */
  step<T>(open: () => T | Promise<T>, close?: (opened: T) => unknown): Promise<T>;
}

export function createStartupGuard(): StartupGuard {
  const closers: (() => unknown)[] = [];
  return {
    async step(open, close) {
      let opened;
      try {
        opened = await open();
      } catch (err) {
        for (const closeOne of closers.reverse()) {
          try {
            await closeOne();
          } catch {
            // the start already failed; that error is the one to report
          }
        }
        closers.length = 0;
        throw err;
      }
      if (close) closers.push(() => close(opened));
      return opened;
    },
  };
}

/**
 * A service's migrations at start: with MIGRATE_ON_START (`migrateOnStart`)
 * applied by migrateWhenPossible on a pool of their own, without the
 * service pool's statement limit (a migration of a big table may rightly
 * take minutes); without it, required by requireMigrations on `db`.
 */
export async function applyMigrationsAtStart(
  db: Knex,
  config: { databaseUrl: string; migrateOnStart: boolean },
  migrations: Record<string, Migration>,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  if (config.migrateOnStart) {
    const pool = createDb(config.databaseUrl, { logger });
    try {
      await migrateWhenPossible(pool, migrations, logger, signal);
    } finally {
      await pool.destroy();
    }
  } else {
    await requireMigrations(db, migrations, logger, signal);
  }
  logger.info({ database: describeMysqlUrl(config.databaseUrl) }, 'database migrated');
}
