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
import { createNameLookup } from '../src/names/name-lookup';
import { sampleEnvelope } from '../src/sample-events';
import { startSmtpSink, type SmtpSink } from '@inventario/testkit/smtp-sink';
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
  return waitFor(
    async () => (await consumer.next({ expires: 1000 })) ?? undefined,
    'a message from the test consumer',
    15_000,
  );
}

async function ackedThrough(seq: number) {
  await waitFor(async () => {
    const info = await events.consumerInfo(CONSUMER);
    return info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0;
  }, `stream sequence ${seq} to be acked`);
}

describe('the names an email shows (looked up before it is sent)', () => {
  it("names the product's warehouse, found by its id, in the body; sent once", async () => {
    const asked: number[] = [];
    const names = {
      producto: () => Promise.resolve(undefined),
      bodega: (id: number) => (asked.push(id), Promise.resolve('Bodega Central')),
    };
    const envelope = sampleEnvelope('ProductoCreado', { nombre: 'Tornillo nombrado' });
    const seq = await events.publish('ProductoCreado', envelope);
    const emailsBefore = sink.received.length;

    expect(await handle(deliveryWith({ names }).deliver, await nextMessage())).toBe('sent');
    await ackedThrough(seq);
    const sent = sink.received.slice(emailsBefore);
    expect(sent.map((e) => e.subject)).toEqual(['Nuevo Producto Creado: Tornillo nombrado']);
    expect(asked).toEqual([(envelope.data as { bodegaId: number }).bodegaId]);
    expect(sent[0]!.text).toContain(`\nBodega: Bodega Central (${asked[0]})\n`);
  });

  it('sends the email once, with the id, when the owner cannot be asked (the real lookup, at an address that refuses)', async () => {
    const names = createNameLookup({ productoSvcAddr: '127.0.0.1:1', bodegaSvcAddr: '127.0.0.1:1' }, logger);
    try {
      const envelope = sampleEnvelope('ProductoCreado', { nombre: 'Tornillo sin nombres' });
      const seq = await events.publish('ProductoCreado', envelope);
      const emailsBefore = sink.received.length;

      expect(await handle(deliveryWith({ names }).deliver, await nextMessage())).toBe('sent');
      await ackedThrough(seq);
      const sent = sink.received.slice(emailsBefore);
      expect(sent.map((e) => e.subject)).toEqual(['Nuevo Producto Creado: Tornillo sin nombres']);
      expect(sent[0]!.text).toContain(`\nBodega: ${(envelope.data as { bodegaId: number }).bodegaId}\n`);
    } finally {
      names.close();
    }
  });
});

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

  it('naks and counts a retry when the sent registry cannot be reached within claimWithinMs, sending nothing', async () => {
    const unreachable: SentRegistry = { ...registry, claim: () => Promise.reject(new Error('TIMEOUT')) };
    const { deps, deliver } = deliveryWith({ sent: unreachable, claimWithinMs: 300 });
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

  it('keeps claiming while the sent registry does not answer (a bucket leader changing), then emails once on this delivery', async () => {
    let failures = 2;
    const flaky: SentRegistry = {
      ...registry,
      claim: (eventId, holder) =>
        failures-- > 0 ? Promise.reject(new Error('TIMEOUT')) : registry.claim(eventId, holder),
    };
    const { deps, deliver } = deliveryWith({ sent: flaky });
    const seq = await events.publish('ProductoCreado', sampleEnvelope('ProductoCreado'));
    const emailsBefore = sink.received.length;
    const msg = await nextMessage();

    expect(await handle(deliver, msg)).toBe('sent');
    expect(msg.info.deliveryCount).toBe(1);
    await ackedThrough(seq);
    expect(failures).toBe(-1);
    expect(await counterValue(deps.metrics.retried, 'ProductoCreado')).toBe(0);
    expect(sink.received.length - emailsBefore).toBe(1);
  });

  it('emails once when its claim was written but the answer lost: claiming again finds its own claim, not another holder', async () => {
    let lost = 1;
    const lossy: SentRegistry = {
      ...registry,
      claim: async (eventId, holder) => {
        const result = await registry.claim(eventId, holder);
        if (lost-- > 0) throw new Error('TIMEOUT');
        return result;
      },
    };
    const envelope = sampleEnvelope('ProductoCreado');
    const seq = await events.publish('ProductoCreado', envelope);
    const emailsBefore = sink.received.length;

    expect(await handle(deliveryWith({ sent: lossy }).deliver, await nextMessage())).toBe('sent');
    await ackedThrough(seq);
    expect(await registry.lookup(envelope.id)).toMatchObject({ state: 'sent' });
    expect(sink.received.length - emailsBefore).toBe(1);
  });

  it('acks an email the server accepted even when recording it as sent keeps failing (past recordSentWithinMs)', async () => {
    const forgetful: SentRegistry = { ...registry, markSent: () => Promise.reject(new Error('TIMEOUT')) };
    const { deps, deliver } = deliveryWith({ sent: forgetful, recordSentWithinMs: 300 });
    const seq = await events.publish('ProductoCreado', sampleEnvelope('ProductoCreado'));
    const emailsBefore = sink.received.length;

    expect(await handle(deliver, await nextMessage())).toBe('sent');
    await ackedThrough(seq);
    expect(sink.received.length - emailsBefore).toBe(1);
    expect(await counterValue(deps.metrics.sent, 'ProductoCreado')).toBe(1);
  });

  it('does not email again when an email it could not record as sent is redelivered to it (its ack lost), and records it then', async () => {
    let failing = true;
    const forgetful: SentRegistry = {
      ...registry,
      markSent: (claim, sent) => (failing ? Promise.reject(new Error('TIMEOUT')) : registry.markSent(claim, sent)),
    };
    const { deliver } = deliveryWith({ sent: forgetful, recordSentWithinMs: 300 });
    const envelope = sampleEnvelope('ProductoCreado');
    const seq = await events.publish('ProductoCreado', envelope);
    const emailsBefore = sink.received.length;
    const first = await nextMessage();
    expect(await handle(deliver, first)).toBe('sent');

    // The same message again (as after an ack lost with the consumer's leader), the registry back, its claim stale.
    failing = false;
    expect(await handle(deliver, first)).toBe('duplicate');
    await ackedThrough(seq);
    expect(sink.received.length - emailsBefore).toBe(1);
    expect(await registry.lookup(envelope.id)).toMatchObject({ state: 'sent' });
  });

  it('records an email as sent when the registry fails at first (a bucket leader changing), so a redelivery does not send it again', async () => {
    let failures = 2;
    const flaky: SentRegistry = {
      ...registry,
      markSent: (claim, sent) =>
        failures-- > 0 ? Promise.reject(new Error('TIMEOUT')) : registry.markSent(claim, sent),
    };
    const envelope = sampleEnvelope('ProductoCreado');
    const seq = await events.publish('ProductoCreado', envelope);
    const emailsBefore = sink.received.length;
    expect(await handle(deliveryWith({ sent: flaky }).deliver, await nextMessage())).toBe('sent');
    await ackedThrough(seq);
    expect(failures).toBe(-1);
    expect(await registry.lookup(envelope.id)).toMatchObject({ state: 'sent' });
    expect(sink.received.length - emailsBefore).toBe(1);
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
      expect(await quick.claim(envelope.id, { stream: msg.info.stream, seq: msg.seq + 1_000_000 })).toMatchObject({
        status: 'busy',
        sameMessage: false,
      });
      expect(await sending).toBe('sent');
    } finally {
      sink.setDelay(0);
    }
    await ackedThrough(seq);
    expect(await quick.lookup(envelope.id)).toMatchObject({ state: 'sent' });
  });
});
