import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { createLogger, type EventType } from '@inventario/platform';
import { waitFor } from '@inventario/testkit';
import { startApp, type NotifierApp } from '../src/app';
import { DEAD_LETTER_HEADERS, MAX_DELIVERIES_REASON } from '../src/events/dead-letter';
import { MAX_DELIVERIES_CONSUMER } from '../src/events/max-deliveries';
import { openSentRegistry, type Claim, type SentRegistry } from '../src/events/sent-registry';
import { counterValue } from '../src/metrics';
import { sampleEnvelope } from '../src/sample-events';
import { handlerFor, startTestNotifier, type TestNotifier } from './support/test-notifier';

// Deliveries that run out because every process handling the event died
// (so no delivery ever failed in a way the notifier saw): JetStream's
// max-deliveries advisory, captured by the stream, becomes a dead letter,
// unless the event was emailed.

const MAX_DELIVER = 2;
const ACK_WAIT_MS = 1000;
let t: TestNotifier;
const apps: NotifierApp[] = [];

beforeAll(async () => {
  // Started once to create the stream, the bucket and the consumers, then stopped:
  // each test plays the dying processes itself, then starts a notifier.
  t = await startTestNotifier({ NOTIFIER_MAX_DELIVER: String(MAX_DELIVER), NOTIFIER_ACK_WAIT_MS: String(ACK_WAIT_MS) });
  await t.app.stop();
});

afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
});

afterAll(async () => {
  await t?.close();
});

async function startNotifier(): Promise<NotifierApp> {
  const app = await startApp(t.config, createLogger('notifier', t.config.logLevel));
  apps.push(app);
  return app;
}

/**
 * Takes every delivery of `type`'s next message and never settles one, as
 * processes killed mid-send do; then pulls once more, which (like a dead
 * process's pull still open) makes JetStream give up and publish the
 * advisory while no notifier runs.
 */
async function dieOnEveryDelivery(type: EventType): Promise<void> {
  const consumer = await jetstream(t.events.nc).consumers.get(t.events.namespace.stream, handlerFor(type));
  const before = await capturedAdvisories();
  for (let delivery = 1; delivery <= MAX_DELIVER; delivery++) {
    const msg = await waitFor(
      async () => (await consumer.next({ expires: 2000 })) ?? undefined,
      `delivery ${delivery}`,
      15_000,
    );
    expect(msg.info.deliveryCount).toBe(delivery);
  }
  await waitFor(
    async () => {
      if ((await capturedAdvisories()) > before) return true;
      // JetStream notices the last delivery expired when a pull waits; it delivers nothing more.
      expect(await consumer.next({ expires: 1000 })).toBeNull();
      return (await capturedAdvisories()) > before;
    },
    'the max-deliveries advisory in the stream',
    15_000,
  );
}

/** Max-deliveries advisories stored in the stream, handled or not (no runtime user deletes a message). */
async function capturedAdvisories(): Promise<number> {
  const jsm = await jetstreamManager(t.events.nc);
  const info = await jsm.streams.info(t.events.namespace.stream, { subjects_filter: '$JS.EVENT.ADVISORY.>' });
  return Object.values(info.state.subjects ?? {}).reduce((sum, n) => sum + n, 0);
}

/** MaxDeliveriesHandler acked every advisory the stream holds. */
async function advisoriesHandled(): Promise<boolean> {
  const info = await t.events.consumerInfo(MAX_DELIVERIES_CONSUMER);
  return info.num_pending === 0 && info.num_ack_pending === 0;
}

async function claimAsAnotherProcess(eventId: string, seq: number): Promise<{ claim: Claim; registry: SentRegistry }> {
  const registry = await openSentRegistry(t.events.nc, { bucket: t.events.bucket, staleAfterMs: ACK_WAIT_MS });
  const claimed = await registry.claim(eventId, { stream: t.events.namespace.stream, seq });
  if (claimed.status !== 'claimed') throw new Error(`expected a claim, got ${claimed.status}`);
  return { claim: claimed.claim, registry };
}

describe('an event whose deliveries ran out', () => {
  it('is dead-lettered by the next notifier, although JetStream gave up while none ran, and counted', async () => {
    const envelope = sampleEnvelope('ProductoCreado', { id: 1 });
    const seq = await t.events.publish('ProductoCreado', envelope);
    const lettersBefore = (await t.events.deadLetters()).length;
    await dieOnEveryDelivery('ProductoCreado');

    const app = await startNotifier();
    const letters = await waitFor(
      async () => {
        const all = (await t.events.deadLetters()).slice(lettersBefore);
        return all.length > 0 && all;
      },
      'the dead letter',
      30_000,
    );
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      subject: `${t.events.namespace.prefix}_dlq.producto.creado`,
      body: JSON.stringify(envelope),
      headers: {
        [DEAD_LETTER_HEADERS.reason]: MAX_DELIVERIES_REASON,
        [DEAD_LETTER_HEADERS.consumer]: 'ProductoCreatedHandler',
        [DEAD_LETTER_HEADERS.originalSequence]: String(seq),
        [DEAD_LETTER_HEADERS.deliveryCount]: String(MAX_DELIVER),
        [DEAD_LETTER_HEADERS.eventId]: envelope.id,
      },
    });
    expect(await counterValue(app.metrics.deadLettered, 'ProductoCreado')).toBe(1);
    await waitFor(advisoriesHandled, 'the advisory to be acked');
    expect(t.sink.attempts).toBe(0);
  });

  it('is dead-lettered for StockBajoHandler too, to the stock.bajo dead letters', async () => {
    const envelope = sampleEnvelope('StockBajo', { id: 4 });
    const seq = await t.events.publish('StockBajo', envelope);
    const lettersBefore = (await t.events.deadLetters()).length;
    await dieOnEveryDelivery('StockBajo');

    const app = await startNotifier();
    const letters = await waitFor(
      async () => {
        const all = (await t.events.deadLetters()).slice(lettersBefore);
        return all.length > 0 && all;
      },
      'the dead letter',
      30_000,
    );
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      subject: `${t.events.namespace.prefix}_dlq.stock.bajo`,
      body: JSON.stringify(envelope),
      headers: {
        [DEAD_LETTER_HEADERS.reason]: MAX_DELIVERIES_REASON,
        [DEAD_LETTER_HEADERS.consumer]: 'StockBajoHandler',
        [DEAD_LETTER_HEADERS.originalSequence]: String(seq),
        [DEAD_LETTER_HEADERS.eventId]: envelope.id,
      },
    });
    expect(await counterValue(app.metrics.deadLettered, 'StockBajo')).toBe(1);
    await waitFor(advisoriesHandled, 'the advisory to be acked');
  });

  it('is not dead-lettered again when MaxDeliveriesHandler is re-created and reads the advisories still in the stream', async () => {
    // The advisories of the tests above stay in the stream (no runtime user deletes a message).
    const advisories = await capturedAdvisories();
    expect(advisories).toBeGreaterThanOrEqual(2);
    const letters = (await t.events.deadLetters()).length;
    const jsm = await jetstreamManager(t.events.nc);
    await waitFor(
      () => jsm.consumers.delete(t.events.namespace.stream, MAX_DELIVERIES_CONSUMER),
      'the consumer deleted',
    );

    // Created anew, from the start of the stream: every advisory is handled again.
    const app = await startNotifier();
    await waitFor(
      async () =>
        (await t.events.consumerInfo(MAX_DELIVERIES_CONSUMER)).ack_floor.stream_seq > 0 && (await advisoriesHandled()),
      'every advisory handled again',
    );
    expect((await t.events.consumerInfo(MAX_DELIVERIES_CONSUMER)).ack_floor.stream_seq).toBeGreaterThan(0);
    // Their letters are written again under the same Nats-Msg-Id and dropped as repeats
    // (jetstream-setup.test.ts: by the dead letters' stream too, after the events' window).
    expect((await t.events.deadLetters()).length).toBe(letters);
    expect(await counterValue(app.metrics.deadLettered, 'ProductoCreado')).toBe(0);
  });

  it('is not dead-lettered when the sent registry says it was emailed (the process died between the sent mark and the ack)', async () => {
    const envelope = sampleEnvelope('BodegaCreada', { id: 2 });
    const seq = await t.events.publish('BodegaCreada', envelope);
    const { claim, registry } = await claimAsAnotherProcess(envelope.id, seq);
    await registry.markSent(claim, { messageId: `<${envelope.id}@inventario>` });
    const lettersBefore = (await t.events.deadLetters()).length;
    await dieOnEveryDelivery('BodegaCreada');

    const app = await startNotifier();
    await waitFor(advisoriesHandled, 'the advisory to be handled', 30_000);
    expect((await t.events.deadLetters()).length - lettersBefore).toBe(0);
    expect(await counterValue(app.metrics.deadLettered, 'BodegaCreada')).toBe(0);
  });

  it('waits while another delivery still refreshes its claim on the event, and dead-letters it once that one gave up', async () => {
    const envelope = sampleEnvelope('ProductoEliminado', { id: 3 });
    const seq = await t.events.publish('ProductoEliminado', envelope);
    const holder = await claimAsAnotherProcess(envelope.id, seq);
    let claim: Claim | undefined = holder.claim;
    // The other process is alive: it keeps its claim fresh.
    const beat = setInterval(() => {
      if (claim) void holder.registry.refresh(claim).then((next) => (claim = next ?? claim));
    }, ACK_WAIT_MS / 4);
    try {
      const lettersBefore = (await t.events.deadLetters()).length;
      await dieOnEveryDelivery('ProductoEliminado');

      const lookedAt = async () => (await t.events.consumerInfo(MAX_DELIVERIES_CONSUMER)).delivered.consumer_seq;
      const before = await lookedAt();
      await startNotifier();
      // Looked at, and left for later, at least twice while the claim is fresh.
      await waitFor(async () => (await lookedAt()) - before >= 2, 'the advisory to be looked at again', 30_000);
      expect((await t.events.deadLetters()).length - lettersBefore).toBe(0);

      // The holder fails and releases its claim: the event is dead-lettered.
      clearInterval(beat);
      const released = claim;
      claim = undefined;
      await holder.registry.release(released);
      await waitFor(async () => (await t.events.deadLetters()).length - lettersBefore === 1, 'the dead letter', 30_000);
    } finally {
      clearInterval(beat);
    }
  });
});
