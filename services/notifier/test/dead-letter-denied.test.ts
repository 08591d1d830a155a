import { jetstreamManager } from '@nats-io/jetstream';
import { createLogger } from '@inventario/platform';
import { startPrivateNatsServer, testEventNamespace, waitFor, type PrivateNatsServer } from '@inventario/testkit';
import { startApp, type NotifierApp } from '../src/app';
import { DEAD_LETTER_HEADERS, MAX_DELIVERIES_REASON } from '../src/events/dead-letter';
import { MAX_DELIVERIES_CONSUMER } from '../src/events/max-deliveries';
import { counterValue } from '../src/metrics';
import { startSmtpSink, type SmtpSink } from '@inventario/testkit/smtp-sink';
import { createTestEvents, testConfig, type TestEvents } from './support/test-notifier';

// A dead letter JetStream does not store is never lost (issue 16, item 9).
// Here a private nats-server denies the notifier's user every publish on the
// dead-letter subjects, as a too narrow NATS permission would. The original
// event is nak'ed instead of terminated; once its deliveries ran out,
// JetStream's max-deliveries advisory hands it to MaxDeliveriesHandler, which
// keeps trying (it never gives up) until the letter is stored: here, once the
// permission is granted and the server reloads its configuration.

/** One account with JetStream; whoever connects without credentials is `notifier`. */
function serverConfig(options: { deadLettersDenied: boolean }): string {
  const permissions = options.deadLettersDenied
    ? `, permissions: { publish: { deny: ["${namespace.prefix}_dlq.>"] } }`
    : '';
  return `
accounts {
  APP {
    jetstream: enabled
    users: [ { user: notifier, password: notifier${permissions} } ]
  }
}
no_auth_user: notifier
`;
}

/** The test's stream and subject prefix, known before the server starts: its permissions name them. */
const namespace = testEventNamespace();
const MAX_DELIVER = 2;
let nats: PrivateNatsServer;
let sink: SmtpSink;
let events: TestEvents;
let app: NotifierApp;

beforeAll(async () => {
  nats = await startPrivateNatsServer({ config: serverConfig({ deadLettersDenied: true }) });
  sink = await startSmtpSink();
  events = await createTestEvents(nats.url, namespace);
  const config = testConfig(events, sink, { NOTIFIER_MAX_DELIVER: String(MAX_DELIVER), NOTIFIER_BACKOFF_MS: '200' });
  app = await startApp(config, createLogger('notifier', config.logLevel));
});

afterAll(async () => {
  await app?.stop();
  await events?.dispose();
  await sink?.stop();
  await nats?.dispose();
});

describe('a dead letter the stream refuses', () => {
  it('is not dropped: the event is nak-ed until its deliveries run out, then retried from the advisory until the letter is stored, once', async () => {
    const seq = await events.publish('ProductoCreado', 'not an event');
    const jsm = await jetstreamManager(events.nc);

    // Both deliveries failed to dead-letter; MaxDeliveriesHandler took the
    // advisory and failed too, and will look at it again.
    await waitFor(
      async () => (await jsm.consumers.info(events.namespace.stream, MAX_DELIVERIES_CONSUMER)).num_redelivered > 0,
      'MaxDeliveriesHandler to retry the advisory',
      30_000,
    );
    const handler = await jsm.consumers.info(events.namespace.stream, 'ProductoCreatedHandler');
    expect(handler.delivered.stream_seq).toBeGreaterThanOrEqual(seq);
    expect(await events.deadLetters()).toEqual([]);
    expect(await counterValue(app.metrics.deadLettered, 'ProductoCreado')).toBe(0);
    expect((await jsm.streams.getMessage(events.namespace.stream, { seq }))?.string()).toBe('not an event');

    nats.reconfigure(serverConfig({ deadLettersDenied: false }));

    const letters = await waitFor(
      async () => {
        const stored = await events.deadLetters();
        return stored.length > 0 ? stored : undefined;
      },
      'the dead letter, once publishing is allowed',
      60_000,
    );
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      subject: `${events.namespace.prefix}_dlq.producto.creado`,
      body: 'not an event',
      headers: expect.objectContaining({
        [DEAD_LETTER_HEADERS.reason]: MAX_DELIVERIES_REASON,
        [DEAD_LETTER_HEADERS.originalSequence]: String(seq),
        [DEAD_LETTER_HEADERS.deliveryCount]: String(MAX_DELIVER),
      }),
    });
    expect(await counterValue(app.metrics.deadLettered, 'ProductoCreado')).toBe(1);
    // The advisory is handled (deleted from the stream) and nothing else is pending.
    await waitFor(
      async () => {
        const info = await jsm.consumers.info(events.namespace.stream, MAX_DELIVERIES_CONSUMER);
        return info.num_ack_pending === 0 && info.num_pending === 0;
      },
      'MaxDeliveriesHandler to finish',
      30_000,
    );
    expect(await events.deadLetters()).toHaveLength(1);
    expect(sink.attempts).toBe(0);
  });
});
