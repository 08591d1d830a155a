import { setTimeout as sleep } from 'node:timers/promises';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { backoffDelayMs } from './backoff';
import { isLockBusy, type Knex } from './db';
import type { EventEnvelope } from './events';
import type { Logger } from './logger';
import { inPublishSpan } from './tracing-nats';
import type { OutboxRelayMetrics } from './metrics/outbox-metrics';

/**
 * Transactional outbox. A write and its event row commit in one transaction
 * (`enqueueEvent` inside the write's transaction); the relay publishes
 * pending rows to JetStream afterwards, so a committed write always produces
 * its event, and a rolled-back one never does.
 */

const OUTBOX = 'outbox';
const LEASE = 'outbox_relay_lease';
/** (published_at, id): the pending rows in id order, and published ones by age for pruning. */
const PENDING_INDEX = 'outbox_pending_idx';

/** Creates the outbox tables; call from a service migration. */
export async function createOutboxTables(db: Knex): Promise<void> {
  await db.schema.createTable(OUTBOX, (t) => {
    t.bigIncrements('id').primary();
    t.string('event_id', 36).notNullable().unique();
    t.string('subject', 255).notNullable();
    t.text('payload', 'longtext').notNullable();
    t.text('headers').nullable();
    t.dateTime('created_at', { precision: 3 }).notNullable().defaultTo(db.raw('CURRENT_TIMESTAMP(3)'));
    t.dateTime('published_at', { precision: 3 }).nullable();
    t.index(['published_at', 'id'], PENDING_INDEX);
  });
  // One row whose lock elects the single active relay of a database, so events
  // of one record are published in commit order even with several replicas.
  await db.schema.createTable(LEASE, (t) => {
    t.string('name', 64).primary();
  });
  await db(LEASE).insert({ name: 'relay' });
}

export async function dropOutboxTables(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists(LEASE);
  await db.schema.dropTableIfExists(OUTBOX);
}

export interface OutboxEvent {
  /** NATS subject, e.g. `inventario.producto.creado`. */
  subject: string;
  envelope: EventEnvelope;
  /** Extra NATS headers, e.g. `traceparent`. */
  headers?: Record<string, string>;
}

/** Adds an event row inside the caller's transaction. */
export function enqueueEvent(trx: Knex.Transaction, event: OutboxEvent): Promise<void> {
  return enqueueEvents(trx, [event]);
}

/**
 * Adds event rows inside the caller's transaction with one INSERT; their ids,
 * and so their publication order, follow the array's order.
 */
export async function enqueueEvents(trx: Knex.Transaction, events: OutboxEvent[]): Promise<void> {
  const insert = outboxInsert(trx, events);
  if (insert) await insert;
}

/**
 * enqueueEvents's INSERT, not sent: for a write that sends it with other statements in one round trip
 * (issue 23). Undefined when there is no event.
 */
export function outboxInsert(trx: Knex.Transaction, events: OutboxEvent[]): Knex.QueryBuilder | undefined {
  if (events.length === 0) return undefined;
  return trx(OUTBOX).insert(
    events.map((event) => ({
      event_id: event.envelope.id,
      subject: event.subject,
      payload: JSON.stringify(event.envelope),
      headers: event.headers && Object.keys(event.headers).length > 0 ? JSON.stringify(event.headers) : null,
    })),
  );
}

/** Rows committed but not yet acknowledged by JetStream. */
export async function countPendingEvents(db: Knex): Promise<number> {
  const row = await db(OUTBOX).whereNull('published_at').count<{ n: number | string }[]>({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/**
 * The unpublished rows and the age of the oldest, 0 when none is pending;
 * the age is measured from the row's INSERT (created_at), by the database
 * clock that wrote it. Two queries, both on outbox_pending_idx
 * (published_at, id): the count reads the index only, and the oldest is the
 * first pending id in index order, one row read. One query with
 * MIN(created_at) would read every pending row (created_at is not in the
 * index), and with a large backlog (a NATS outage) MariaDB then prefers a
 * scan of the whole table, 7 days of published rows included, every few
 * seconds per replica.
 */
export async function pendingOutboxSummary(db: Knex): Promise<{ pending: number; oldestAgeSeconds: number }> {
  const pending = await countPendingEvents(db);
  if (pending === 0) return { pending, oldestAgeSeconds: 0 };
  const [oldest] = (await db.raw(
    `SELECT TIMESTAMPDIFF(MICROSECOND, created_at, CURRENT_TIMESTAMP(3)) AS age_us
     FROM ${OUTBOX} FORCE INDEX (${PENDING_INDEX}) WHERE published_at IS NULL ORDER BY id LIMIT 1`,
  )) as [{ age_us: number | string }[]];
  // None left when all were published since the count: age 0.
  return { pending, oldestAgeSeconds: Math.max(0, Number(oldest[0]?.age_us ?? 0) / 1e6) };
}

/** Publishes one outbox row; resolves once JetStream has stored it (or dropped it as a duplicate). */
export type PublishFn = (row: {
  eventId: string;
  subject: string;
  payload: string;
  headers: Record<string, string>;
}) => Promise<void>;

/**
 * The production PublishFn: JetStream publish with `Nats-Msg-Id` = event id,
 * in a `publish <subject>` span whose `traceparent` the message carries
 * (child of the row's, see tracing-nats.ts).
 */
export function jetStreamPublisher(nc: NatsConnection, timeoutMs: number): PublishFn {
  const js = jetstream(nc, { timeout: timeoutMs });
  return ({ eventId, subject, payload, headers }) =>
    inPublishSpan({ subject, eventId, headers }, async (traced) => {
      const h = natsHeaders();
      for (const [k, v] of Object.entries(traced)) h.set(k, v);
      await js.publish(subject, payload, { msgID: eventId, headers: h, timeout: timeoutMs });
    });
}

export interface OutboxRelayOptions {
  db: Knex;
  publish: PublishFn;
  logger: Logger;
  batchSize?: number;
  /** How often to look for rows when nobody called notify(). */
  pollIntervalMs?: number;
  /** Ceiling of the exponential back-off after a failed publish. */
  maxBackoffMs?: number;
  /** Published rows at least this old are deleted. */
  retentionMs?: number;
  /** How often to delete old published rows (default hourly). */
  pruneIntervalMs?: number;
  /**
   * Fault injection for tests only, set by a test's options, never from the
   * environment: wait this long between JetStream's acks and marking the
   * rows, so a test can kill the process in that window. Default 0.
   */
  faultMarkDelayMs?: number;
  /** Where published events, their lag and failed rounds are counted. */
  metrics?: OutboxRelayMetrics;
}

export interface OutboxRelay {
  start(): void;
  /** Wake the relay now (call after committing a write). */
  notify(): void;
  /**
   * NATS is back (the connection reconnected): end the back-off and try now. Without it the
   * relay slept up to maxBackoffMs after the server returned, and every write in that window
   * reached the other BFF replicas' caches that much later (docs/contract.md §11).
   */
  retryNow(): void;
  /** Finish the current batch and stop. */
  stop(): Promise<void>;
}

/** The outcome of one relay round; `failure` is set when a publish or the database failed. */
interface Round {
  published: number;
  /** Per published row: seconds from its INSERT (created_at) to JetStream's ack. */
  lagsSeconds?: number[];
  /** The row whose publication failed (absent when the round failed before publishing). */
  failure?: { error: unknown; eventId?: string; subject?: string };
}

interface PendingRow {
  id: number | string;
  event_id: string;
  subject: string;
  payload: string;
  headers: string | null;
  /** Microseconds since the row's INSERT (created_at) when it was read (database clock). */
  age_us: number | string;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Takes the relay lease for the rest of `trx`; false when another relay holds it. */
async function takeLease(trx: Knex.Transaction): Promise<boolean> {
  try {
    await trx.raw(`SELECT name FROM ${LEASE} WHERE name = 'relay' FOR UPDATE NOWAIT`);
    return true;
  } catch (err) {
    if (isLockBusy(err)) return false;
    throw err;
  }
}

/**
 * Record locks only, no gap locks: writers inserting new rows never wait for
 * the relay. (Under the server default, REPEATABLE READ, the prune's DELETE
 * would lock index gaps where new rows go, blocking every write's insert.)
 */
const RELAY_TRX = { isolationLevel: 'read committed' } as const;

/** Rows deleted per prune transaction, so the lease is never held for long. */
const PRUNE_CHUNK = 1000;
/** Consecutive failed rounds after which the relay logs at error level. */
const STUCK_AFTER_FAILURES = 10;

/**
 * Publishes pending outbox rows in id order. Guarantees:
 * - at least once into JetStream, exactly once in the stream: a row is marked
 *   only after JetStream acknowledged it, and a re-publication after a crash
 *   carries the same Nats-Msg-Id, which JetStream drops as a duplicate (within
 *   the stream's duplicate window);
 * - one active relay per database (a NOWAIT lock on the lease row), so a
 *   record's events keep commit order whatever the replica count;
 * - a failed publish backs off exponentially (no hot loop while NATS is down),
 *   and never affects the writes, which only insert rows.
 *
 * Callers keep per-record order by writing the record (taking its row lock)
 * before enqueueing its event in the same transaction: two writes of one
 * record then get outbox ids in their commit order.
 *
 * One closure: the round, the prune and the four methods share the relay's state (running, wake, back-off,
 * notified), whose interplay is the guarantees above.
 */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { db, publish, logger } = options;
  const batchSize = options.batchSize ?? 100;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const maxBackoffMs = options.maxBackoffMs ?? 5000;
  const retentionMs = options.retentionMs ?? 7 * 24 * 3600_000;
  const pruneIntervalMs = options.pruneIntervalMs ?? 3600_000;
  const faultMarkDelayMs = options.faultMarkDelayMs ?? 0;

  let running = false;
  let loop: Promise<void> | undefined;
  let wake: AbortController = new AbortController();
  let backoff = 0;
  let failures = 0;
  /** notify() was called since the current round started. */
  let notified = false;
  let lastPrune: number | undefined;

  async function relayBatch(): Promise<Round> {
    return db.transaction(async (trx) => {
      if (!(await takeLease(trx))) return { published: 0 };
      // The lease makes this relay the only reader and writer of published_at,
      // so a plain consistent read suffices. Its snapshot (per statement in
      // READ COMMITTED) cannot hold a record's later event without the
      // earlier one: the later write waited for the earlier one's commit on
      // the record's row lock. A locking read (FOR UPDATE SKIP LOCKED) could:
      // it sees the latest commits row by row while it scans.
      const [rows] = (await trx.raw(
        `SELECT id, event_id, subject, payload, headers, TIMESTAMPDIFF(MICROSECOND, created_at, ` +
          `CURRENT_TIMESTAMP(3)) AS age_us FROM ${OUTBOX}
         WHERE published_at IS NULL ORDER BY id LIMIT ?`,
        [batchSize],
      )) as [PendingRow[]];
      // Lag = the row's age when read (database clock) + time since (this process's monotonic clock): no clock skew.
      const readAt = performance.now();
      const lagsSeconds: number[] = [];
      const done: Array<number | string> = [];
      let failure: Round['failure'];
      for (const row of rows) {
        try {
          await publish({
            eventId: row.event_id,
            subject: row.subject,
            payload: row.payload,
            headers: row.headers ? (JSON.parse(row.headers) as Record<string, string>) : {},
          });
          done.push(row.id);
          lagsSeconds.push(Number(row.age_us) / 1e6 + (performance.now() - readAt) / 1000);
        } catch (error) {
          failure = { error, eventId: row.event_id, subject: row.subject };
          break;
        }
      }
      if (done.length > 0) {
        if (faultMarkDelayMs > 0) await sleep(faultMarkDelayMs);
        await trx(OUTBOX)
          .whereIn('id', done)
          .update({ published_at: trx.raw('CURRENT_TIMESTAMP(3)') });
      }
      return { published: done.length, lagsSeconds, failure };
    }, RELAY_TRX);
  }

  /**
   * Deletes old published rows in chunks, each in a READ COMMITTED
   * transaction holding the lease. In (published_at, id) index order the
   * DELETE reads published rows only, so it never waits on a write in
   * flight; READ COMMITTED takes no gap locks, which would block every
   * write's insert while the DELETE runs.
   */
  async function pruneIfDue(): Promise<void> {
    if (lastPrune !== undefined && Date.now() - lastPrune < pruneIntervalMs) return;
    let deleted = 0;
    for (;;) {
      const n = await db.transaction(async (trx) => {
        if (!(await takeLease(trx))) return undefined;
        // Cut-off computed by the server, in the clock that wrote published_at.
        const [result] = (await trx.raw(
          `DELETE FROM ${OUTBOX} WHERE published_at <= CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND
           ORDER BY published_at, id LIMIT ?`,
          [retentionMs * 1000, PRUNE_CHUNK],
        )) as [{ affectedRows: number }];
        return result.affectedRows;
      }, RELAY_TRX);
      if (n === undefined) return; // another relay is busy: try again next round
      deleted += n;
      if (n < PRUNE_CHUNK) break;
    }
    lastPrune = Date.now();
    if (deleted > 0) logger.info({ deleted }, 'pruned published outbox rows');
  }

  async function run(): Promise<void> {
    while (running) {
      if (wake.signal.aborted) wake = new AbortController();
      notified = false;
      const round = await relayBatch().catch((error: unknown): Round => ({ published: 0, failure: { error } }));
      if (round.published > 0) logger.debug({ published: round.published }, 'outbox rows published');
      // Counted once the rows are marked (committed), so a failed mark is not counted twice.
      options.metrics?.published.inc(round.published);
      for (const lag of round.lagsSeconds ?? []) options.metrics?.lag.observe(lag);
      if (round.failure) {
        failures += 1;
        backoff = backoffDelayMs(failures, { baseMs: pollIntervalMs, maxMs: maxBackoffMs });
        options.metrics?.failures.inc();
        const { error, ...row } = round.failure;
        // A row that keeps failing holds back every later event: past a few
        // rounds this needs a person (NATS down for long, or a row no stream captures).
        logger[failures >= STUCK_AFTER_FAILURES ? 'error' : 'warn'](
          { err: errorText(error), ...row, consecutiveFailures: failures, retryInMs: backoff },
          failures >= STUCK_AFTER_FAILURES
            ? 'outbox relay stuck; later events wait behind this row'
            : 'outbox relay failed; will retry',
        );
      } else {
        backoff = 0;
        failures = 0;
      }
      const full = !round.failure && round.published === batchSize;
      if (!running) break;
      try {
        await pruneIfDue();
      } catch (err) {
        logger.warn({ err: errorText(err) }, 'outbox prune failed; will retry');
      }
      // A notify() during a round that ended the back-off was not allowed to
      // wake us (see notify); honour it now instead of sleeping a poll interval.
      if (full || (notified && backoff === 0)) continue;
      try {
        await sleep(backoff || pollIntervalMs, undefined, { signal: wake.signal });
      } catch {
        // woken by notify() or stop()
      }
    }
  }

  return {
    start() {
      if (running) return;
      if (faultMarkDelayMs > 0) {
        logger.warn(
          { faultMarkDelayMs },
          'fault injection: the relay waits after each publish before marking the rows',
        );
      }
      running = true;
      wake = new AbortController();
      loop = run();
    },
    notify() {
      notified = true;
      // While backing off, new writes must not turn the back-off into a hot loop. Once woken, a round is
      // coming: another abort() would only build its DOMException (a stack capture per commit, issue 23).
      if (backoff === 0 && !wake.signal.aborted) wake.abort();
    },
    retryNow() {
      backoff = 0;
      failures = 0;
      wake.abort();
    },
    async stop() {
      running = false;
      wake.abort();
      await loop;
    },
  };
}
