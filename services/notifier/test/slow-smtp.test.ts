import type { EventType } from '@inventario/platform';
import { sampleEnvelope } from '../src/sample-events';
import { startSmtpSink, type SmtpSink } from '@inventario/testkit/smtp-sink';
import { startTestConsumers } from './support/test-consumers';
import {
  createTestEvents,
  handlerFor,
  startTestNotifier,
  type TestEvents,
  type TestNotifier,
} from './support/test-notifier';

// A slow mail provider and ack_wait: a message is held, with a heartbeat,
// from its pull to its ack, so an email that takes longer than ack_wait is
// neither redelivered nor sent twice; concurrency stays within its bound.

function emailsOf(sink: SmtpSink, eventId: string) {
  return sink.received.filter((e) => e.headers.get('x-inventario-event-id') === eventId);
}

/** Deliveries the consumer made so far, redeliveries included. */
async function deliveries(events: TestEvents, consumer: string): Promise<number> {
  return (await events.consumerInfo(consumer)).delivered.consumer_seq;
}

describe('an SMTP server slower than ack_wait', () => {
  const ACK_WAIT_MS = 2000;
  const SMTP_DELAY_MS = 5000;
  let t: TestNotifier;

  beforeAll(async () => {
    t = await startTestNotifier({ NOTIFIER_ACK_WAIT_MS: String(ACK_WAIT_MS), NOTIFIER_CONCURRENCY: '1' });
    t.sink.setDelay(SMTP_DELAY_MS);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('emails the event exactly once, and JetStream never redelivers it meanwhile', async () => {
    const envelope = sampleEnvelope('ProductoCreado', { id: 1 });
    const seq = await t.events.publish('ProductoCreado', envelope);

    await t.events.processedThrough('ProductoCreatedHandler', seq);
    expect(t.sink.attempts).toBe(1);
    expect(emailsOf(t.sink, envelope.id)).toHaveLength(1);
    expect(await deliveries(t.events, 'ProductoCreatedHandler')).toBe(1);
    expect(await t.events.sentEntry(envelope.id)).toMatchObject({ state: 'sent' });
  });

  it('holds a message that waits longer than ack_wait for a free slot, so it too is delivered once', async () => {
    // One slot: the second event waits a whole SMTP_DELAY_MS (> ack_wait) before it is sent.
    const producto = sampleEnvelope('ProductoEliminado', { id: 2 });
    const bodega = sampleEnvelope('BodegaEliminada', { id: 3 });
    const before = {
      producto: await deliveries(t.events, 'ProductoDeletedHandler'),
      bodega: await deliveries(t.events, 'BodegaDeletedHandler'),
    };
    const attemptsBefore = t.sink.attempts;
    const seqs = [
      await t.events.publish('ProductoEliminado', producto),
      await t.events.publish('BodegaEliminada', bodega),
    ];

    await t.events.processedThrough('ProductoDeletedHandler', seqs[0]!);
    await t.events.processedThrough('BodegaDeletedHandler', seqs[1]!);
    expect(t.sink.attempts - attemptsBefore).toBe(2);
    expect(emailsOf(t.sink, producto.id)).toHaveLength(1);
    expect(emailsOf(t.sink, bodega.id)).toHaveLength(1);
    expect((await deliveries(t.events, 'ProductoDeletedHandler')) - before.producto).toBe(1);
    expect((await deliveries(t.events, 'BodegaDeletedHandler')) - before.bodega).toBe(1);
  });
});

describe('a redelivery of a message this process still holds', () => {
  const ACK_WAIT_MS = 1000;
  let events: TestEvents;
  let sink: SmtpSink;

  beforeAll(async () => {
    events = await createTestEvents();
    sink = await startSmtpSink();
  });

  afterAll(async () => {
    await events?.dispose();
    await sink?.stop();
  });

  it('is ignored: the first delivery acks it, and the event is emailed once', async () => {
    // No heartbeat within ack_wait (as when NATS is unreachable for a while):
    // JetStream redelivers the message while its email is still being sent,
    // and the claim on the event goes stale meanwhile.
    const consumers = await startTestConsumers(events, sink, {
      types: ['ProductoCreado'],
      concurrency: 2,
      maxConnections: 2,
      ackWaitMs: ACK_WAIT_MS,
      heartbeatMs: 60_000,
    });
    try {
      sink.setDelay(3.5 * ACK_WAIT_MS);
      const envelope = sampleEnvelope('ProductoCreado', { id: 4 });
      const seq = await events.publish('ProductoCreado', envelope);

      await events.processedThrough(handlerFor('ProductoCreado'), seq);
      expect(await deliveries(events, 'ProductoCreatedHandler')).toBeGreaterThan(1);
      // Counted when the data reached the server: a second send would be on the wire by now.
      expect(sink.attempts).toBe(1);
      expect(emailsOf(sink, envelope.id)).toHaveLength(1);
    } finally {
      sink.setDelay(0);
      await consumers.stop();
    }
  });
});

describe('the concurrency limit', () => {
  let events: TestEvents;
  let sink: SmtpSink;

  beforeAll(async () => {
    events = await createTestEvents();
    sink = await startSmtpSink();
  });

  afterAll(async () => {
    await events?.dispose();
    await sink?.stop();
  });

  it('keeps at most NOTIFIER_CONCURRENCY emails on the wire over all consumers, and uses them all', async () => {
    // An SMTP pool larger than the limit: only the limit can hold the sends back.
    const consumers = await startTestConsumers(events, sink, {
      types: ['ProductoCreado', 'BodegaCreada', 'ProductoEliminado'],
      concurrency: 2,
      maxConnections: 6,
      ackWaitMs: 5000,
    });
    try {
      sink.setDelay(1500);
      const types: EventType[] = [
        'ProductoCreado',
        'ProductoCreado',
        'BodegaCreada',
        'BodegaCreada',
        'ProductoEliminado',
        'ProductoEliminado',
      ];
      const envelopes = [];
      for (const [i, type] of types.entries()) {
        const envelope = sampleEnvelope(type, { id: 10 + i });
        envelopes.push(envelope);
        await events.publish(type, envelope);
      }

      await sink.waitForEmails(envelopes.length, 60_000);
      for (const envelope of envelopes) expect(emailsOf(sink, envelope.id)).toHaveLength(1);
      // Exactly the limit: never more, and more than one (concurrent, not serial).
      expect(sink.maxConcurrentData).toBe(2);
    } finally {
      sink.setDelay(0);
      await consumers.stop();
    }
  });
});
