import { jetstreamManager } from '@nats-io/jetstream';
import { ensureStream } from '@inventario/platform';
import { waitFor } from '@inventario/testkit';
import { MAX_DELIVERIES_CONSUMER, maxDeliveriesSubjects } from '../src/events/max-deliveries';
import { HANDLERS } from '../src/handlers';
import { sampleEnvelope } from '../src/sample-events';
import { startTestNotifier, type TestNotifier } from './support/test-notifier';

// Consumers or the stream deleted underneath a running notifier: it notices,
// re-creates what it owns and goes on emailing.

let t: TestNotifier;

beforeAll(async () => {
  t = await startTestNotifier();
});

afterAll(async () => {
  await t?.close();
});

function emailFor(eventId: string) {
  return waitFor(
    () => t.sink.received.find((e) => e.headers.get('x-inventario-event-id') === eventId),
    `the email of event ${eventId}`,
    45_000,
  );
}

async function consumerExists(name: string): Promise<boolean> {
  return t.events.consumerInfo(name).then(
    () => true,
    () => false,
  );
}

describe('a running notifier', () => {
  it('re-creates a consumer deleted under it and emails the events published meanwhile', async () => {
    const jsm = await jetstreamManager(t.events.nc);
    await jsm.consumers.delete(t.events.namespace.stream, 'ProductoCreatedHandler');
    const envelope = sampleEnvelope('ProductoCreado', { id: 1 });
    await t.events.publish('ProductoCreado', envelope);

    await emailFor(envelope.id);
    expect((await t.events.consumerInfo('ProductoCreatedHandler')).config).toMatchObject({
      durable_name: 'ProductoCreatedHandler',
      max_deliver: t.config.maxDeliver,
    });
  });

  it('re-creates its consumers when the stream is deleted and a service creates it again, and captures the advisories again', async () => {
    const { stream, prefix } = t.events.namespace;
    const jsm = await jetstreamManager(t.events.nc);
    await jsm.streams.delete(stream);
    // What a service does at its start: it knows only the events' subjects.
    await ensureStream(t.events.nc, { name: stream, subjects: [`${prefix}.>`] });
    const envelope = sampleEnvelope('BodegaCreada', { id: 2 });
    await t.events.publish('BodegaCreada', envelope);

    await emailFor(envelope.id);
    for (const name of [...HANDLERS.map((h) => h.name), MAX_DELIVERIES_CONSUMER]) {
      await waitFor(() => consumerExists(name), `consumer ${name} to exist again`, 45_000);
    }
    const { config } = await jsm.streams.info(stream);
    expect(config.subjects).toEqual(
      expect.arrayContaining([`${prefix}.>`, ...maxDeliveriesSubjects(stream, HANDLERS)]),
    );
  });
});
