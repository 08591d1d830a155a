/**
 * A NATS outage: writes keep committing (they only insert outbox rows), the
 * relay backs off instead of hammering the broker, and once the broker is back
 * every event held in the outbox reaches the stream exactly once.
 *
 * The broker is a private nats-server (its own port and store dir) that the
 * test stops and restarts; the relay's connection reconnects by itself.
 */
import {
  connectNats,
  countPendingEvents,
  createDb,
  createOutboxRelay,
  createOutboxTables,
  ensureStream,
  jetStreamPublisher,
  type Knex,
  type NatsConnection,
  type OutboxEvent,
  type OutboxRelay,
} from '@inventario/platform';
import {
  connectTestNats,
  createTestDatabase,
  readStream,
  startPrivateNatsServer,
  testEventNamespace,
  waitFor,
  type EventNamespace,
  type PrivateNatsServer,
  type TestDatabase,
} from '@inventario/testkit';
import {
  commitEvents,
  countingPublisher,
  type CountingPublisher,
  outboxEventIds,
  productoEvent,
  silentLogger,
} from './outbox-support';

const POLL_INTERVAL_MS = 250;
// Shorter than the poll interval, so a relay that retried without backing off
// would exceed the attempt bound below even though every attempt waits this long.
const PUBLISH_TIMEOUT_MS = 100;
const FAILURES_TO_OBSERVE = 4;

describe('outbox relay during a NATS outage', () => {
  let testDb: TestDatabase;
  let db: Knex;
  let server: PrivateNatsServer;
  let relayNc: NatsConnection;
  let adminNc: NatsConnection;
  let ns: EventNamespace;
  let counter: CountingPublisher;
  let relay: OutboxRelay;

  beforeAll(async () => {
    testDb = await createTestDatabase('outbox_outage');
    db = createDb(testDb.url);
    await createOutboxTables(db);
    server = await startPrivateNatsServer();
    ns = testEventNamespace();
    relayNc = await connectNats(server.url, 'outbox-outage-relay', silentLogger);
    adminNc = await connectTestNats(server.url);
    await ensureStream(adminNc, { name: ns.stream, subjects: [`${ns.prefix}.>`] });
    counter = countingPublisher(jetStreamPublisher(relayNc, PUBLISH_TIMEOUT_MS));
    relay = createOutboxRelay({
      db,
      publish: counter.publish,
      logger: silentLogger,
      pollIntervalMs: POLL_INTERVAL_MS,
      maxBackoffMs: 2000,
    });
    relay.start();
  });

  afterAll(async () => {
    await relay?.stop();
    await relayNc?.close();
    await adminNc?.close();
    await server?.dispose(); // the stream goes with the server's store dir
    await db?.destroy();
    await testDb?.drop();
  });

  it('keeps committed writes pending while NATS is down, without a hot loop, and publishes each exactly once after it returns', async () => {
    await server.stop();
    const outageStart = Date.now();
    const attemptsBefore = counter.attempts.length;
    const failuresBefore = counter.failures;

    // Writes keep coming during the outage and succeed: committing never
    // touches NATS. They go on until the relay has failed a few rounds, so its
    // back-off, not the writes' notify() calls, is what paces it.
    const events: OutboxEvent[] = [];
    const deadline = Date.now() + 30_000;
    while (counter.failures - failuresBefore < FAILURES_TO_OBSERVE) {
      if (Date.now() > deadline) throw new Error('the relay never failed a publish during the outage');
      const event = productoEvent(ns.prefix, events.length + 1, 1);
      await commitEvents(db, [event]);
      events.push(event);
      relay.notify(); // as a service does after each commit
    }
    expect(await countPendingEvents(db)).toBe(events.length);
    const outageAttempts = counter.attempts.length - attemptsBefore;
    const outageMs = Date.now() - outageStart;

    await server.start();
    await waitFor(async () => (await countPendingEvents(db)) === 0, 'outbox drained after the outage', 30_000);

    // Fewer attempts than plain polling would make: the relay backed off, and
    // the writes' notify() calls did not cut the back-off short.
    expect(outageAttempts).toBeLessThan(outageMs / POLL_INTERVAL_MS);
    // One row at a time: a failed publish stops the round, so only the head row was tried.
    expect(new Set(counter.attempts.slice(attemptsBefore, attemptsBefore + outageAttempts))).toEqual(
      new Set([events[0]!.envelope.id]),
    );

    const stored = await readStream(adminNc, ns.stream);
    const ids = stored.map((m) => m.body.id);
    expect(stored).toHaveLength(events.length);
    expect(new Set(ids).size).toBe(events.length);
    expect(ids).toEqual(events.map((e) => e.envelope.id));
    expect(ids).toEqual(await outboxEventIds(db));
  });
});
