/**
 * The outbox relay against real MariaDB and NATS JetStream: what a committed
 * transaction enqueues reaches the stream once, in id order, with its
 * de-duplication id and headers; what a rolled-back one enqueued never does.
 *
 * The relay polls once an hour here, so anything it publishes after its first
 * (empty) round was woken by notify().
 */
import {
  countPendingEvents,
  createOutboxRelay,
  enqueueEvent,
  jetStreamPublisher,
  type Knex,
  type NatsConnection,
  type OutboxRelay,
  type PublishFn,
} from '@inventario/platform';
import { readStream, waitFor, type EventNamespace } from '@inventario/testkit';
import {
  commitEvents,
  countingPublisher,
  type CountingPublisher,
  type OutboxFixture,
  outboxEventIds,
  productoEvent,
  silentLogger,
  startOutboxFixture,
} from './outbox-support';

/** A promise and its resolver, for holding a publish until the test lets it go. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('outbox relay', () => {
  let fixture: OutboxFixture | undefined;
  let db: Knex;
  let nc: NatsConnection;
  let ns: EventNamespace;
  let counter: CountingPublisher;
  let relay: OutboxRelay;

  beforeAll(async () => {
    fixture = await startOutboxFixture('outbox_relay');
    ({ db, nc, ns } = fixture);
    counter = countingPublisher(jetStreamPublisher(nc, 5000));
    relay = createOutboxRelay({ db, publish: counter.publish, logger: silentLogger, pollIntervalMs: 3600_000 });
    relay.start();
  });

  afterAll(async () => {
    await relay?.stop();
    await fixture?.close();
  });

  /** Waits until every committed row is marked published. */
  async function drained(): Promise<void> {
    await waitFor(async () => (await countPendingEvents(db)) === 0, 'outbox drained');
  }

  it('publishes committed rows once each, in id order, with Nats-Msg-Id = envelope id and the stored headers', async () => {
    const events = [
      productoEvent(ns.prefix, 1, 1, TRACEPARENT),
      productoEvent(ns.prefix, 2, 1, TRACEPARENT),
      productoEvent(ns.prefix, 1, 2),
      productoEvent(ns.prefix, 3, 1, TRACEPARENT),
    ];
    await commitEvents(db, events.slice(0, 1));
    await commitEvents(db, events.slice(1, 3)); // two events in one transaction
    await commitEvents(db, events.slice(3));
    relay.notify();
    await drained();

    const stored = await readStream(nc, ns.stream);
    expect(stored.map((m) => m.body.id)).toEqual(await outboxEventIds(db));
    expect(stored.map((m) => m.body.id)).toEqual(events.map((e) => e.envelope.id));
    stored.forEach((message, i) => {
      const event = events[i]!;
      expect(message.subject).toBe(event.subject);
      expect(message.body).toEqual(event.envelope);
      expect(message.headers['Nats-Msg-Id']).toBe(event.envelope.id);
      expect(message.headers.traceparent).toBe(event.headers?.traceparent);
    });
    expect(counter.attempts).toEqual(events.map((e) => e.envelope.id));
  });

  it('never publishes the row of a rolled-back transaction', async () => {
    const rolledBack = productoEvent(ns.prefix, 4, 1);
    await expect(
      db.transaction(async (trx) => {
        await enqueueEvent(trx, rolledBack);
        throw new Error('write rejected after enqueueing');
      }),
    ).rejects.toThrow('write rejected after enqueueing');
    // A later committed row: once it is in the stream, the relay has been past the rolled-back one.
    const committed = productoEvent(ns.prefix, 5, 1);
    await commitEvents(db, [committed]);
    relay.notify();
    await waitFor(
      async () => (await readStream(nc, ns.stream)).some((m) => m.body.id === committed.envelope.id),
      'later event',
    );

    const ids = (await readStream(nc, ns.stream)).map((m) => m.body.id);
    expect(ids).not.toContain(rolledBack.envelope.id);
    expect(counter.attempts).not.toContain(rolledBack.envelope.id);
    expect(await outboxEventIds(db)).not.toContain(rolledBack.envelope.id);
  });

  it('leaves a committed row pending until notify() wakes the relay', async () => {
    await drained();
    // The relay's last round has committed; it now sleeps for its hour-long poll interval.
    const event = productoEvent(ns.prefix, 6, 1);
    await commitEvents(db, [event]);
    expect(await countPendingEvents(db)).toBe(1);

    relay.notify();
    await drained();
    const stored = await readStream(nc, ns.stream);
    expect(stored.at(-1)?.body.id).toBe(event.envelope.id);
  });

  it('publishes each row once across rounds: nothing is re-published and the pending count drops to 0', async () => {
    const before = counter.attempts.length;
    relay.notify(); // a round with nothing pending
    const event = productoEvent(ns.prefix, 7, 1);
    await commitEvents(db, [event]);
    relay.notify();
    await drained();

    expect(await countPendingEvents(db)).toBe(0);
    expect(counter.attempts.slice(before)).toEqual([event.envelope.id]);
    const ids = (await readStream(nc, ns.stream)).map((m) => m.body.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(counter.attempts).size).toBe(counter.attempts.length);
    expect(ids).toEqual(await outboxEventIds(db));
  });
});

describe('outbox relay after failed publishes', () => {
  let fixture: OutboxFixture | undefined;
  let db: Knex;
  let nc: NatsConnection;
  let ns: EventNamespace;
  let relay: OutboxRelay;
  /** Event ids whose next publish fails once. */
  const failOnce = new Set<string>();
  /** Event ids whose publish fails until removed. */
  const failing = new Set<string>();
  /** Event ids whose publish waits: `entered` resolves when it starts, `release` lets it go on. */
  const held = new Map<string, { entered: () => void; release: Promise<void> }>();

  beforeAll(async () => {
    fixture = await startOutboxFixture('outbox_relay_retry');
    ({ db, nc, ns } = fixture);
    const inner = jetStreamPublisher(nc, 5000);
    const publish: PublishFn = async (row) => {
      if (failOnce.delete(row.eventId) || failing.has(row.eventId)) throw new Error('broker unavailable');
      const hold = held.get(row.eventId);
      if (hold) {
        held.delete(row.eventId);
        hold.entered();
        await hold.release;
      }
      await inner(row);
    };
    relay = createOutboxRelay({
      db,
      publish,
      logger: silentLogger,
      // Rounds come from notify() or from the back-off, never from polling.
      pollIntervalMs: 3600_000,
      maxBackoffMs: 50,
      // Every round deletes what is published.
      retentionMs: 0,
      pruneIntervalMs: 0,
    });
    relay.start();
  });

  afterAll(async () => {
    await relay?.stop();
    await fixture?.close();
  });

  it('honours a notify() that arrives while the retry of a failed publish is under way', async () => {
    const first = productoEvent(ns.prefix, 1, 1);
    const retryStarted = signal();
    const retryRelease = signal();
    failOnce.add(first.envelope.id);
    held.set(first.envelope.id, { entered: retryStarted.resolve, release: retryRelease.promise });
    await commitEvents(db, [first]);
    relay.notify();
    await retryStarted.promise; // the first attempt failed; the relay is in its retry round

    const second = productoEvent(ns.prefix, 2, 1);
    await commitEvents(db, [second]); // committed after the retry round read its rows
    relay.notify();
    retryRelease.resolve();

    await waitFor(async () => (await countPendingEvents(db)) === 0, 'both events published');
    const ids = (await readStream(nc, ns.stream)).map((m) => m.body.id);
    expect(ids).toEqual([first.envelope.id, second.envelope.id]);
  });

  it('deletes published rows once past the retention and never a pending one', async () => {
    const published = productoEvent(ns.prefix, 3, 1);
    const stuck = productoEvent(ns.prefix, 4, 1);
    failing.add(stuck.envelope.id);
    await commitEvents(db, [published]);
    await commitEvents(db, [stuck]);
    relay.notify();

    await waitFor(async () => {
      const ids = await outboxEventIds(db);
      return ids.length === 1 && ids[0] === stuck.envelope.id;
    }, 'only the unpublished row left');
    expect(await countPendingEvents(db)).toBe(1);

    failing.delete(stuck.envelope.id);
    await waitFor(async () => (await outboxEventIds(db)).length === 0, 'outbox emptied');
    const ids = (await readStream(nc, ns.stream)).map((m) => m.body.id);
    expect(ids.slice(-2)).toEqual([published.envelope.id, stuck.envelope.id]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('outbox relay when NATS comes back', () => {
  let fixture: OutboxFixture | undefined;
  let db: Knex;
  let nc: NatsConnection;
  let ns: EventNamespace;
  let relay: OutboxRelay;
  let brokerDown = true;
  /** Publishes refused while the broker was down. */
  let refused = 0;

  beforeAll(async () => {
    fixture = await startOutboxFixture('outbox_relay_reconnect');
    ({ db, nc, ns } = fixture);
    const inner = jetStreamPublisher(nc, 5000);
    relay = createOutboxRelay({
      db,
      publish: async (row) => {
        if (brokerDown) {
          refused++;
          throw new Error('broker unavailable');
        }
        await inner(row);
      },
      logger: silentLogger,
      // One failure backs off for an hour: only retryNow() can bring the next round sooner.
      pollIntervalMs: 3600_000,
      maxBackoffMs: 3600_000,
    });
    relay.start();
  });

  afterAll(async () => {
    await relay?.stop();
    await fixture?.close();
  });

  it('retryNow() ends the back-off at once; notify() alone does not', async () => {
    const event = productoEvent(ns.prefix, 1, 1);
    await commitEvents(db, [event]);
    relay.notify();
    await waitFor(() => Promise.resolve(refused >= 1), 'the first publish to fail');
    brokerDown = false;
    relay.notify(); // a write committed while backing off: must not end the back-off (no hot loop)
    await new Promise((r) => setTimeout(r, 300));
    expect(await countPendingEvents(db)).toBe(1);

    relay.retryNow();
    await waitFor(async () => (await countPendingEvents(db)) === 0, 'the event published after retryNow()');
    expect((await readStream(nc, ns.stream)).map((m) => m.body.id)).toEqual([event.envelope.id]);
  });
});
