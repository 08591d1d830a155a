import { setTimeout as sleep } from 'node:timers/promises';
import {
  connectNats,
  createOutboxRelay,
  ensureStream,
  jetStreamPublisher,
  type Knex,
  type Logger,
  type NatsConnection,
  type OutboxRelay,
} from '@inventario/platform';

/**
 * Brings up the publishing side of the outbox in the background: connect to
 * NATS, make sure the stream exists, then run the relay. Writes never wait
 * for any of this: while NATS is down they keep committing and their events
 * wait in the outbox until the relay is running.
 */

export interface EventRelayOptions {
  db: Knex;
  natsUrl: string;
  /** Connection name shown by the NATS server. */
  clientName: string;
  stream: string;
  subjectPrefix: string;
  logger: Logger;
}

export interface EventRelay {
  /** Resolves once the relay runs; rejects only when stopped before that. */
  ready: Promise<void>;
  /** Wakes the relay after a commit (no-op until it runs). */
  notify(): void;
  /** Finishes the current batch and stops publishing. */
  stopRelay(): Promise<void>;
  /** Flushes and closes the NATS connection. */
  drainNats(): Promise<void>;
}

/** How long one JetStream publish may wait for its ack before the relay backs off. */
const PUBLISH_TIMEOUT_MS = 5000;
/** Ceiling of the retry delay while the stream cannot be set up. */
const MAX_RETRY_MS = 5000;

export function startEventRelay(options: EventRelayOptions): EventRelay {
  const { db, logger } = options;
  const stopping = new AbortController();
  let nc: NatsConnection | undefined;
  let relay: OutboxRelay | undefined;

  /** Retries `step` with exponential back-off until it succeeds or we stop. */
  async function persist<T>(what: string, step: () => Promise<T>): Promise<T> {
    for (let delay = 250; ; delay = Math.min(MAX_RETRY_MS, delay * 2)) {
      if (stopping.signal.aborted) throw new Error(`stopped before ${what}`);
      try {
        return await step();
      } catch (err) {
        logger.warn({ err: err instanceof Error ? err.message : String(err), retryInMs: delay }, `${what} failed; will retry`);
        await sleep(delay, undefined, { signal: stopping.signal }).catch(() => undefined);
      }
    }
  }

  const ready = (async () => {
    // connectNats itself waits (forever) for a first server to answer.
    logger.info({ stream: options.stream }, 'connecting to NATS in the background; events wait in the outbox until then');
    const conn = await persist('nats connect', () => connectNats(options.natsUrl, options.clientName, logger));
    if (stopping.signal.aborted) {
      await conn.close();
      throw new Error('stopped before the event relay started');
    }
    nc = conn;
    await persist('stream setup', () =>
      ensureStream(conn, { name: options.stream, subjects: [`${options.subjectPrefix}.>`] }),
    );
    relay = createOutboxRelay({ db, publish: jetStreamPublisher(conn, PUBLISH_TIMEOUT_MS), logger });
    relay.start();
    logger.info({ stream: options.stream }, 'event relay started');
  })();
  // The caller may never await `ready`; a stop before start-up is not an error to report.
  ready.catch(() => undefined);

  return {
    ready,
    notify() {
      relay?.notify();
    },
    async stopRelay() {
      stopping.abort();
      await relay?.stop();
    },
    async drainNats() {
      stopping.abort();
      if (nc && !nc.isClosed()) await nc.drain();
    },
  };
}
