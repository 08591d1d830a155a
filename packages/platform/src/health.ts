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
