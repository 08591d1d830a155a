/**
 * Shared fixtures of the outbox tests: event rows shaped like the services'
 * ones, committed through `enqueueEvent`, and a PublishFn wrapper that counts
 * what the relay attempted.
 */
import {
  buildEnvelope,
  createDb,
  createLogger,
  createOutboxTables,
  enqueueEvent,
  ensureStream,
  eventAudit,
  eventSubject,
  type Knex,
  type Logger,
  type NatsConnection,
  type OutboxEvent,
  type ProductoEventData,
  type PublishFn,
} from '@inventario/platform';
import {
  connectTestNats,
  createTestDatabase,
  deleteStream,
  testEventNamespace,
  type EventNamespace,
  type TestDatabase,
} from '@inventario/testkit';

export const silentLogger: Logger = createLogger('outbox-test', 'silent');

/** A fresh database with the outbox tables, and a private stream on the shared NATS. */
export interface OutboxFixture {
  testDb: TestDatabase;
  db: Knex;
  nc: NatsConnection;
  ns: EventNamespace;
  /** Deletes the stream and the database, closes the connections. */
  close(): Promise<void>;
}

export async function startOutboxFixture(label: string): Promise<OutboxFixture> {
  const testDb = await createTestDatabase(label);
  const db = createDb(testDb.url);
  await createOutboxTables(db);
  const ns = testEventNamespace();
  const nc = await connectTestNats();
  await ensureStream(nc, { name: ns.stream, subjects: [`${ns.prefix}.>`] });
  return {
    testDb,
    db,
    nc,
    ns,
    async close() {
      await deleteStream(nc, ns.stream);
      await nc.close();
      await db.destroy();
      await testDb.drop();
    },
  };
}

/** A ProductoActualizado event of product `productoId`; `version` travels as the stock. */
export function productoEvent(prefix: string, productoId: number, version: number, traceparent?: string): OutboxEvent {
  const at = new Date();
  const data: ProductoEventData = {
    productoId,
    nombre: `Producto ${productoId}`,
    descripcion: null,
    precio: 10.5,
    cantidadEnStock: version,
    cantidad: version,
    bodegaId: null,
    ...eventAudit('UPDATE', 'tester', at),
    version,
  };
  return {
    subject: eventSubject(prefix, 'ProductoActualizado'),
    envelope: buildEnvelope({
      namespace: 'Service',
      type: 'ProductoActualizado',
      source: 'producto-svc',
      subject: `/productos/${productoId}`,
      data,
      at,
    }),
    ...(traceparent ? { headers: { traceparent } } : {}),
  };
}

/** Commits `events` in one transaction, as a service write does. */
export async function commitEvents(db: Knex, events: OutboxEvent[]): Promise<void> {
  await db.transaction(async (trx) => {
    for (const event of events) await enqueueEvent(trx, event);
  });
}

/** The event ids of the outbox, in id (insert) order. */
export async function outboxEventIds(db: Knex): Promise<string[]> {
  const rows = await db('outbox').orderBy('id').select<{ event_id: string }[]>('event_id');
  return rows.map((r) => r.event_id);
}

export interface CountingPublisher {
  publish: PublishFn;
  /** Event ids handed to the inner PublishFn, in call order. */
  attempts: string[];
  /** Event ids whose publish resolved, in order. */
  succeeded: string[];
  failures: number;
}

/** Wraps `inner`, recording every attempt and its outcome. */
export function countingPublisher(inner: PublishFn): CountingPublisher {
  const counter: CountingPublisher = {
    attempts: [],
    succeeded: [],
    failures: 0,
    publish: async (row) => {
      counter.attempts.push(row.eventId);
      try {
        await inner(row);
      } catch (err) {
        counter.failures += 1;
        throw err;
      }
      counter.succeeded.push(row.eventId);
    },
  };
  return counter;
}
