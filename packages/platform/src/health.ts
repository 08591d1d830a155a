import type { Knex } from './db';
import type { Logger } from './logger';

export interface DatabaseMonitorOptions {
  db: Knex;
  logger: Logger;
  intervalMs?: number;
  /** On every reachability change, and once at start. */
  onChange(up: boolean): void;
}

/** Drives the gRPC health status: NOT_SERVING while MySQL is unreachable. Returns the stop function. */
export function monitorDatabase(options: DatabaseMonitorOptions): () => void {
  const { db, logger } = options;
  let state: boolean | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const intervalMs = options.intervalMs ?? 2000;
  // A database that stops answering without closing the connection counts as down too.
  const pingTimeoutMs = Math.max(1000, intervalMs);

  async function check(): Promise<void> {
    let up: boolean;
    try {
      await db.raw('SELECT 1').timeout(pingTimeoutMs, { cancel: true });
      up = true;
    } catch {
      up = false;
    }
    if (stopped) return;
    if (up !== state) {
      state = up;
      logger[up ? 'info' : 'error']({ database: up ? 'up' : 'down' }, 'database reachability changed');
      options.onChange(up);
    }
    timer = setTimeout(() => void check(), intervalMs);
  }

  void check();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

/** A gRPC service's health status: SERVING while it accepts traffic and its database answers. */
export interface ServingHealth {
  /** Whether this process takes traffic; shutdown clears it first. */
  setServing: (serving: boolean) => void;
  /** Stops watching the database (the status stays as it is). */
  stop(): void;
}

/**
 * Turns `server`'s grpc.health.v1 status SERVING now, and keeps it SERVING
 * only while the database answers (pinged every `intervalMs`) and
 * `setServing(false)` was not called.
 */
export function startServingHealth(options: {
  server: { setServing(serving: boolean): void };
  db: Knex;
  logger: Logger;
  intervalMs: number;
}): ServingHealth {
  let accepting = true;
  let databaseUp = true;
  const apply = () => options.server.setServing(accepting && databaseUp);
  apply();
  const stopMonitor = monitorDatabase({
    db: options.db,
    logger: options.logger,
    intervalMs: options.intervalMs,
    onChange: (up) => {
      databaseUp = up;
      apply();
    },
  });
  return {
    setServing(serving) {
      accepting = serving;
      apply();
    },
    stop: stopMonitor,
  };
}
