import { setTimeout as sleep } from 'node:timers/promises';
import { connectNats, type Logger, type NatsConnection } from '@inventario/platform';

/**
 * Waiting at start for what the notifier cannot work without (NATS with
 * JetStream), patiently and abortably: an outage delays emails, it does not
 * crash-loop the process, and SIGTERM still stops it at once.
 */

/** Ceiling of the delay between set-up attempts. */
const RETRY_MAX_MS = 10_000;

/** connectNats waits for a first server indefinitely; give up when `signal` aborts. */
export async function connectNatsUnlessAborted(url: string, name: string, logger: Logger, signal: AbortSignal): Promise<NatsConnection> {
  signal.throwIfAborted();
  const connecting = connectNats(url, name, logger);
  const aborted = new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(new Error('stopped before NATS was reachable')), { once: true });
  });
  try {
    return await Promise.race([connecting, aborted]);
  } catch (err) {
    // Should it connect after all, close that connection.
    void connecting.then(
      (late) => late.close(),
      () => undefined,
    );
    throw err;
  }
}

/** Runs `work` until it succeeds, backing off from 250 ms to 10 s; rejects once `signal` aborts. */
export async function retrying<T>(what: string, work: () => Promise<T>, logger: Logger, signal: AbortSignal): Promise<T> {
  for (let delayMs = 250; ; delayMs = Math.min(RETRY_MAX_MS, delayMs * 2)) {
    signal.throwIfAborted();
    try {
      return await work();
    } catch (err) {
      signal.throwIfAborted();
      logger.warn({ err: err instanceof Error ? err.message : String(err), retryInMs: delayMs }, `${what} failed; will retry`);
      await sleep(delayMs, undefined, { signal });
    }
  }
}
