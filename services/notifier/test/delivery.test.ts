import { AckPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { createLogger, ensureStream, eventSubject } from '@inventario/platform';
import { waitFor } from '@inventario/testkit';
import { createMailer, type Mailer } from '../src/email/mailer';
import { createEmailRenderer } from '../src/email/templates';
import { createDeadLetterPublisher } from '../src/events/dead-letter';
import { createDelivery, type Deliver, type DeliveryDeps } from '../src/events/delivery';
import { startHeartbeat } from '../src/events/message-heartbeat';
import { EMAIL_HORIZON_MS, openSentRegistry, type SentRegistry } from '../src/events/sent-registry';
import { HANDLERS, handlerFor } from '../src/handlers';
import { counterValue, createNotifierMetrics } from '../src/metrics';
import { sampleEnvelope } from '../src/sample-events';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink';
import { createTestEvents, RECIPIENT, SENDER, type TestEvents } from './support/test-notifier';

// The ack policy for one real JetStream message at a time, with one
// dependency failing on purpose where the whole service cannot show it.

const CONSUMER = 'delivery-test';
const productoCreatedHandler = handlerFor('ProductoCreado');
let events: TestEvents;
let sink: SmtpSink;
let mailer: Mailer;
let registry: SentRegistry;

beforeAll(async () => {
  events = await createTestEvents();
  sink = await startSmtpSink();
  mailer = createMailer({ smtpUrl: sink.url, from: SENDER, to: [RECIPIENT], maxConnections: 1 });
  await ensureStream(events.nc, { name: events.namespace.stream, subjects: [`${events.namespace.prefix}.>`] });
  registry = await openSentRegistry(events.nc, { bucket: events.bucket, staleAfterMs: 5000 });
  await (
    await jetstreamManager(events.nc)
  ).consumers.add(events.namespace.stream, {
    durable_name: CONSUMER,
    filter_subject: eventSubject(events.namespace.prefix, 'ProductoCreado'),
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(5000),
  });
});

afterAll(async () => {
  mailer?.close();
  await events?.dispose();
  await sink?.stop();
});

const logger = createLogger('notifier', process.env.TEST_LOG_LEVEL ?? 'silent');

/** Delivers `msg` as the consumer runner does: with a heartbeat from now until it settles. */
async function handle(deliver: Deliver, msg: JsMsg) {
  const heartbeat = startHeartbeat(msg, 1000, logger);
  try {
    return await deliver(productoCreatedHandler, msg, heartbeat);
  } finally {
    heartbeat.stop();
  }
}

function deliveryWith(overrides: Partial<DeliveryDeps> = {}) {
  const deps: DeliveryDeps = {
    namespace: 'Service',
    prefix: events.namespace.prefix,
    renderer: createEmailRenderer(HANDLERS.map((h) => h.template)),
    mailer,
    sent: registry,
    deadLetters: createDeadLetterPublisher(events.nc, events.namespace.prefix),
    metrics: createNotifierMetrics(),
    logger,
    retry: { maxDeliver: 5, backoffMs: [200] },
    ...overrides,
  };
  return { deps, deliver: createDelivery(deps) };
}

/** Publishes a ProductoCreado and pulls it (or its next redelivery) from the test consumer. */
async function nextMessage(): Promise<JsMsg> {
  const consumer = await jetstream(events.nc).consumers.get(events.namespace.stream, CONSUMER);
  return waitFor(async () => (await consumer.next({ expires: 1000 })) ?? undefined, 'a message from the test consumer', 15_000);
}

async function ackedThrough(seq: number) {
  await waitFor(async () => {
    const info = await events.consumerInfo(CONSUMER);
    return info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0;
  }, `stream sequence ${seq} to be acked`);
}

describe('delivery of one message', () => {
  it('acks without emailing an event stored longer ago than the sent registry remembers', async () => {
    const { deliver } = deliveryWith({ now: () => Date.now() + EMAIL_HORIZON_MS + 60_000 });
    const attemptsBefore = sink.attempts;
    const seq = await events.publish('ProductoCreado', sampleEnvelope('ProductoCreado'));
    const msg = await nextMessage();
    expect(msg.seq).toBe(seq);

    expect(await handle(deliver, msg)).toBe('too-old');
    await ackedThrough(seq);
    expect(sink.attempts - attemptsBefore).toBe(0);
  });

  it('naks and counts a retry when the sent registry cannot be reached, sending nothing', async () => {
    const unreachable: SentRegistry = { ...registry, claim: () => Promise.reject(new Error('TIMEOUT')) };
    const { deps, deliver } = deliveryWith({ sent: unreachable });
    const attemptsBefore = sink.attempts;
    const seq = await events.publish('ProductoCreado', sampleEnvelope('ProductoCreado'));
    const msg = await nextMessage();

    expect(await handle(deliver, msg)).toBe('retry');
    expect(await counterValue(deps.metrics.retried, 'ProductoCreado')).toBe(1);
    expect(sink.attempts - attemptsBefore).toBe(0);

    // JetStream delivers it again after the backoff; with the registry back it is emailed once.
    const again = await nextMessage();
    expect([again.seq, again.info.deliveryCount]).toEqual([seq, 2]);
    const emailsBefore = sink.received.length;
    expect(await handle(deliveryWith().deliver, again)).toBe('sent');
    await ackedThrough(seq);
    expect(sink.received.length - emailsBefore).toBe(1);
  });

  it('acks an email the server accepted even when recording it as sent fails', async () => {
    const forgetful: SentRegistry = { ...registry, markSent: () => Promise.reject(new Error('TIMEOUT')) };
    const { deps, deliver } = deliveryWith({ sent: forgetful });
    const seq = await events.publish('ProductoCreado', sampleEnvelope('ProductoCreado'));
    const emailsBefore = sink.received.length;

    expect(await handle(deliver, await nextMessage())).toBe('sent');
    await ackedThrough(seq);
    expect(sink.received.length - emailsBefore).toBe(1);
    expect(await counterValue(deps.metrics.sent, 'ProductoCreado')).toBe(1);
  });

  it("leaves a message alone, neither acked nor nak'ed, while another process still sends that very message", async () => {
    const envelope = sampleEnvelope('ProductoCreado');
    const seq = await events.publish('ProductoCreado', envelope);
    const msg = await nextMessage();
    // The other process: it claimed the event for this stream message and keeps the claim fresh.
    const other = await registry.claim(envelope.id, { stream: msg.info.stream, seq: msg.seq });
    expect(other).toMatchObject({ status: 'claimed' });
    const attemptsBefore = sink.attempts;

    expect(await handle(deliveryWith().deliver, msg)).toBe('held-elsewhere');
    expect(sink.attempts - attemptsBefore).toBe(0);
    expect((await events.consumerInfo(CONSUMER)).num_ack_pending).toBe(1);

    // The holder settles it (JetStream takes an ack by stream sequence).
    msg.ack();
    await ackedThrough(seq);
  });

  it('keeps its claim fresh on the heartbeat while a slow SMTP server takes longer than ack_wait, so no replica takes it over', async () => {
    const staleAfterMs = 1000;
    const quick = await openSentRegistry(events.nc, { bucket: events.bucket, staleAfterMs });
    const { deliver } = deliveryWith({ sent: quick });
    const envelope = sampleEnvelope('ProductoCreado');
    const seq = await events.publish('ProductoCreado', envelope);
    const msg = await nextMessage();
    sink.setDelay(6 * staleAfterMs);
    try {
      const heartbeat = startHeartbeat(msg, staleAfterMs / 4, logger);
      const sending = deliver(productoCreatedHandler, msg, heartbeat).finally(() => heartbeat.stop());
      await waitFor(async () => (await quick.lookup(envelope.id))?.state === 'sending', 'the claim');
      // Well past staleAfterMs since the claim, a replica with a copy of the event still finds it busy.
      await new Promise((resolve) => setTimeout(resolve, 2 * staleAfterMs));
      expect(await quick.claim(envelope.id, { stream: msg.info.stream, seq: msg.seq + 1_000_000 })).toMatchObject({ status: 'busy', sameMessage: false });
      expect(await sending).toBe('sent');
    } finally {
      sink.setDelay(0);
    }
    await ackedThrough(seq);
    expect(await quick.lookup(envelope.id)).toMatchObject({ state: 'sent' });
  });
});
