/**
 * `npm run dlq:replay` on the chart's NATS (issue 21 item 4): the real built
 * command, authenticated with NATS_USER / NATS_PASSWORD, against the chart's
 * rendered authorization on a private nats-server. As `dlq-replay` it moves
 * a letter back and the notifier emails it; as the notifier (whose user may
 * not publish events), or without credentials, it is refused and the letter
 * stays.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { CHART_TARGET } from '@inventario/local-servers';
import { createLogger } from '@inventario/platform';
import { waitFor } from '@inventario/testkit';
import { startApp as startNotifier, type NotifierApp } from '../../services/notifier/src/app';
import { loadConfig as loadNotifierConfig } from '../../services/notifier/src/config';
import { DEAD_LETTER_HEADERS } from '../../services/notifier/src/events/dead-letter';
import type { ReplayReport } from '../../services/notifier/src/events/dead-letter-replay';
import { sampleEnvelope } from '../../services/notifier/src/sample-events';
import { startSmtpSink, type SmtpSink } from '@inventario/testkit/smtp-sink';
import {
  chartStreamEnv,
  INSPECTOR,
  provisionAs,
  runNotifierCommand,
  startChartNats,
  type ChartNats,
} from './support/chart-nats';

const DLQ_STREAM = `${CHART_TARGET.stream}_DLQ`;
let nats: ChartNats;
let sink: SmtpSink;
let notifier: NotifierApp;
const envelope = sampleEnvelope('ProductoCreado', { id: 41 });

async function letters(): Promise<{ seq: number; eventId: string }[]> {
  const jsm = await jetstreamManager(await nats.connectAs(INSPECTOR.user));
  const { state } = await jsm.streams.info(DLQ_STREAM);
  const out: { seq: number; eventId: string }[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(DLQ_STREAM, { seq }).catch(() => null);
    if (m) out.push({ seq, eventId: m.header?.get(DEAD_LETTER_HEADERS.eventId) ?? '' });
  }
  return out;
}

const replay = (env: Record<string, string>) =>
  runNotifierCommand('dlq-replay-main.js', ['--type', 'all'], { ...chartStreamEnv(nats.url), ...env });

beforeAll(async () => {
  nats = await startChartNats();
  expect((await provisionAs(nats)).code).toBe(0);
  sink = await startSmtpSink();
  notifier = await startNotifier(
    loadNotifierConfig({
      ...chartStreamEnv(nats.url),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      METRICS_PORT: '0',
      METRICS_HOST: '127.0.0.1',
      SMTP_URL: sink.url,
      SENDER_EMAIL: 'inventario@example.com',
      RECIPIENT_EMAIL: 'almacen@example.com',
      ...nats.credentials('notifier'),
    }),
    createLogger('notifier', 'silent'),
  );
  // A mailbox that does not exist (550): the event is dead-lettered at once.
  sink.setMode({ accept: false, code: 550, message: 'Buzón inexistente' });
  const producer = jetstream(await nats.connectAs('producto-svc'));
  await producer.publish('inventario.producto.creado', JSON.stringify(envelope), { msgID: envelope.id });
  await waitFor(async () => (await letters()).length === 1, 'the dead letter', 30_000);
  sink.setMode({ accept: true });
}, 60_000);

afterAll(async () => {
  await notifier?.stop();
  await sink?.stop();
  await nats?.dispose();
});

test('without credentials it is refused by the server: exit 1, the letter stays', async () => {
  const result = await replay({});
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/Authorization Violation/i);
  expect(await letters()).toHaveLength(1);
});

test("as the notifier's user, which may not publish events, it is refused: exit 1, the letter stays, nothing emailed", async () => {
  const result = await replay(nats.credentials('notifier'));
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/Permissions Violation/);
  expect(await letters()).toHaveLength(1);
  expect(sink.received).toHaveLength(0);
});

test('as dlq-replay it publishes the letter on its event subject, deletes it, and the notifier emails the event once', async () => {
  const result = await replay(nats.credentials('dlq-replay'));
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  const report = JSON.parse(result.stdout) as ReplayReport;
  expect(report).toMatchObject({
    dryRun: false,
    remaining: 0,
    replayed: [{ type: 'ProductoCreado', eventId: envelope.id }],
  });
  expect(await letters()).toEqual([]);
  const [email] = await sink.waitForEmails(1);
  expect(email?.headers.get('x-inventario-event-id')).toBe(envelope.id);
  expect(email?.subject.split(':')[0]).toBe('Nuevo Producto Creado');
});
