/**
 * The outbox relay with company: two relays (two pools, as two replicas of a
 * service) over one outbox while writers commit concurrently, and a relay
 * process killed with SIGKILL in the middle of a batch.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import {
  countPendingEvents,
  createDb,
  createOutboxRelay,
  createOutboxTables,
  enqueueEvent,
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
  deleteStream,
  readStream,
  TEST_NATS_URL,
  testEventNamespace,
  waitFor,
  type EventNamespace,
  type TestDatabase,
} from '@inventario/testkit';
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

const RELAY_CHILD = join(__dirname, 'fixtures', 'relay-child.js');

describe('two relays over one outbox', () => {
  const AGGREGATES = 3;
  const WRITES_PER_AGGREGATE = 40;
  const TOTAL = AGGREGATES * WRITES_PER_AGGREGATE;

  let testDb: TestDatabase;
  let writerDb: Knex;
  const relayDbs: Knex[] = [];
  const relayNcs: NatsConnection[] = [];
  const relays: OutboxRelay[] = [];
  const counters: CountingPublisher[] = [];
  let ns: EventNamespace;

  beforeAll(async () => {
    testDb = await createTestDatabase('outbox_two_relays');
    writerDb = createDb(testDb.url, { poolMax: 10 });
    await createOutboxTables(writerDb);
    // Stands for a service's table: a write locks its record's row, as updates do.
    await writerDb.schema.createTable('aggregate', (t) => {
      t.integer('id').primary();
      t.integer('version').notNullable();
    });
    await writerDb('aggregate').insert(Array.from({ length: AGGREGATES }, (_, i) => ({ id: i + 1, version: 0 })));

    ns = testEventNamespace();
    for (let r = 0; r < 2; r++) {
      const db = createDb(testDb.url, { poolMax: 2 });
      const nc = await connectTestNats();
      if (r === 0) await ensureStream(nc, { name: ns.stream, subjects: [`${ns.prefix}.>`] });
      const counter = countingPublisher(jetStreamPublisher(nc, 5000));
      // Small batches and a short poll, so the relays keep contending for the lease.
      relays.push(
        createOutboxRelay({ db, publish: counter.publish, logger: silentLogger, batchSize: 5, pollIntervalMs: 20 }),
      );
      relayDbs.push(db);
      relayNcs.push(nc);
      counters.push(counter);
    }
    relays.forEach((relay) => relay.start());
  });

  afterAll(async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    if (relayNcs[0]) await deleteStream(relayNcs[0], ns.stream);
    await Promise.all(relayNcs.map((nc) => nc.close()));
    await Promise.all(relayDbs.map((db) => db.destroy()));
    await writerDb?.destroy();
    await testDb?.drop();
  });

  /** One write to record `id`: bump its version under its row lock, enqueue its event. */
  async function write(id: number): Promise<void> {
    await writerDb.transaction(async (trx) => {
      await trx('aggregate').where({ id }).increment('version', 1);
      const row = await trx('aggregate').where({ id }).first<{ version: number }>('version');
      await enqueueEvent(trx, productoEvent(ns.prefix, id, row.version));
    });
    relays.forEach((relay) => relay.notify());
  }

  it('publishes every concurrently committed event exactly once and in commit order per record', async () => {
    // Round-robin over the records, all in flight at once.
    const writes = Array.from({ length: TOTAL }, (_, i) => write((i % AGGREGATES) + 1));
    await Promise.all(writes);
    await waitFor(async () => (await countPendingEvents(writerDb)) === 0, 'outbox drained', 30_000);

    const stored = await readStream(relayNcs[0]!, ns.stream);
    const ids = stored.map((m) => m.body.id);
    expect(stored).toHaveLength(TOTAL);
    expect(new Set(ids).size).toBe(TOTAL);
    // No row was handed to JetStream twice: the lease admits one relay at a time.
    expect(counters.flatMap((c) => c.attempts).sort()).toEqual([...ids].sort());

    const outboxOrder = await outboxEventIds(writerDb);
    for (let id = 1; id <= AGGREGATES; id++) {
      const ofRecord = stored.filter((m) => m.body.data.productoId === id);
      // Versions were taken under the record's row lock: they are its commit order.
      expect(ofRecord.map((m) => m.body.data.cantidadEnStock)).toEqual(
        Array.from({ length: WRITES_PER_AGGREGATE }, (_, i) => i + 1),
      );
      // And the stream order of the record is its insert order in the outbox.
      const recordIds = new Set(ofRecord.map((m) => m.body.id));
      expect(ofRecord.map((m) => m.body.id)).toEqual(outboxOrder.filter((eventId) => recordIds.has(eventId)));
    }
  });
});

describe('a relay killed in the middle of a batch', () => {
  const EVENTS = 20;
  const KILL_AFTER = 7;

  let fixture: OutboxFixture | undefined;
  let db: Knex;
  let nc: NatsConnection;
  let ns: EventNamespace;
  let child: ChildProcess | undefined;
  let relay: OutboxRelay | undefined;

  beforeAll(async () => {
    fixture = await startOutboxFixture('outbox_killed_relay');
    ({ db, nc, ns } = fixture);
  });

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await relay?.stop();
    await fixture?.close();
  });

  it('loses nothing and duplicates nothing when a fresh relay takes over', async () => {
    const events: OutboxEvent[] = Array.from({ length: EVENTS }, (_, i) => productoEvent(ns.prefix, i + 1, 1));
    for (let i = 0; i < EVENTS; i += 5) await commitEvents(db, events.slice(i, i + 5));

    // The child publishes KILL_AFTER rows of its one batch, then dies before marking any.
    const proc = spawn(process.execPath, [RELAY_CHILD, fixture!.testDb.url, TEST_NATS_URL, String(KILL_AFTER)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child = proc;
    let stderr = '';
    proc.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      proc.once('error', reject);
      // 'close', not 'exit': only then has all of its stderr been read.
      proc.once('close', (code, signal) => resolve({ code, signal }));
    });
    expect({ ...exit, stderr }).toEqual({ code: null, signal: 'SIGKILL', stderr: '' });

    const beforeTakeover = (await readStream(nc, ns.stream)).map((m) => m.body.id);
    expect(beforeTakeover).toEqual(events.slice(0, KILL_AFTER).map((e) => e.envelope.id));
    expect(await countPendingEvents(db)).toBe(EVENTS);

    const counter = countingPublisher(jetStreamPublisher(nc, 5000));
    // A short poll: the server may hold the dead child's lease until it notices the lost connection.
    relay = createOutboxRelay({ db, publish: counter.publish, logger: silentLogger, pollIntervalMs: 50 });
    relay.start();
    relay.notify();
    await waitFor(async () => (await countPendingEvents(db)) === 0, 'outbox drained by the fresh relay', 30_000);

    // The fresh relay re-published the child's rows; JetStream dropped them by Nats-Msg-Id.
    expect(counter.attempts).toEqual(events.map((e) => e.envelope.id));
    const ids = (await readStream(nc, ns.stream)).map((m) => m.body.id);
    expect(ids).toEqual(events.map((e) => e.envelope.id));
    expect(ids).toEqual(await outboxEventIds(db));
  });
});
