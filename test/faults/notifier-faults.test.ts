/**
 * The built notifier against a private nats-server and a real SMTP sink:
 * SIGKILLed after the SMTP server accepted emails but before their acks
 * (no second email after the restart); poison messages published straight
 * to the stream (dead-lettered, later messages still emailed); the SMTP
 * server down for two minutes under the notifier's default retry settings
 * (every email sent once it is back, none dead-lettered); SIGTERM while
 * events flow (emails in flight finish and are acked, exit 0 within 30 s,
 * and a new notifier sends each remaining event once).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventEnvelope, EventType } from '@inventario/platform';
import { startPrivateNatsServer, waitFor, type PrivateNatsServer } from '@inventario/testkit';
import { DEAD_LETTER_HEADERS } from '../../services/notifier/src/events/dead-letter';
import { HANDLERS } from '../../services/notifier/src/handlers';
import { sampleEnvelope } from '../../services/notifier/src/sample-events';
import { startSmtpSink, type SmtpSink } from '@inventario/testkit/smtp-sink';
import { createTestEvents, handlerFor, testEnv, type TestEvents } from './support/notifier';
import { killAllServiceProcesses, startServiceProcess, type ServiceProcess } from './support/processes';

let nats: PrivateNatsServer;

beforeAll(async () => {
  nats = await startPrivateNatsServer();
});

afterAll(async () => {
  await killAllServiceProcesses();
  await nats?.dispose();
});

/** One stream, sent bucket and SMTP sink per scenario, on the private server. */
interface Scenario {
  events: TestEvents;
  sink: SmtpSink;
  /** Starts a notifier process on this scenario's stream, bucket and sink (testEnv plus `env`). */
  /** `faults`: fault injection for the notifier's main (`{ ackDelayMs }`), never from the environment. */
  start(env?: Record<string, string>, faults?: { ackDelayMs: number }): Promise<ServiceProcess>;
  /** Publishes each envelope on its type's subject; resolves to the stream sequence per handler it ends with. */
  publishAll(envelopes: Array<[EventType, EventEnvelope | string]>): Promise<Map<string, number>>;
  /** Waits until each handler acked or terminated everything up to its sequence. */
  processed(last: Map<string, number>, timeoutMs?: number): Promise<void>;
  /** The event id of each accepted email, in order. */
  emailedIds(): string[];
  /** Kills the notifiers it started, deletes the stream and bucket, stops the sink. */
  close(): Promise<void>;
}

async function scenario(): Promise<Scenario> {
  const events = await createTestEvents(nats.url);
  const sink = await startSmtpSink();
  const processes: ServiceProcess[] = [];
  return {
    events,
    sink,
    async start(env = {}, faults) {
      const proc = await startServiceProcess(
        'notifier',
        { ...testEnv(events, sink, { LOG_LEVEL: 'info' }), ...env },
        { faults },
      );
      processes.push(proc);
      return proc;
    },
    async publishAll(envelopes) {
      const last = new Map<string, number>();
      for (const [type, body] of envelopes) last.set(handlerFor(type), await events.publish(type, body));
      return last;
    },
    async processed(last, timeoutMs) {
      for (const [handler, seq] of last) await events.processedThrough(handler, seq, timeoutMs);
    },
    emailedIds: () => sink.received.map((e) => e.headers.get('x-inventario-event-id') as string),
    async close() {
      await Promise.all(processes.map((p) => p.kill()));
      await events.dispose();
      await sink.stop();
    },
  };
}

describe('notifier killed after the SMTP server accepted, before the ack', () => {
  let s: Scenario;

  beforeAll(async () => {
    s = await scenario();
  });

  afterAll(async () => {
    await s?.close();
  });

  it('sends no second email after the restart', async () => {
    // Fault injection: every ack is held for ten minutes once the email is recorded as sent.
    const first = await s.start({ NOTIFIER_ACK_WAIT_MS: '2000' }, { ackDelayMs: 600_000 });
    const envelopes: Array<[EventType, EventEnvelope]> = [
      ['ProductoCreado', sampleEnvelope('ProductoCreado', { nombre: 'Aceptado antes del fallo' })],
      ['BodegaActualizada', sampleEnvelope('BodegaActualizada')],
      ['ProductoEliminado', sampleEnvelope('ProductoEliminado')],
    ];
    const last = await s.publishAll(envelopes);
    await s.sink.waitForEmails(envelopes.length);
    for (const [, envelope] of envelopes) {
      await waitFor(
        async () => (await s.events.sentEntry(envelope.id))?.state === 'sent',
        `event ${envelope.id} to be recorded as sent`,
      );
    }
    for (const handler of last.keys()) expect((await s.events.consumerInfo(handler)).num_ack_pending).toBe(1);
    expect(await first.kill()).toMatchObject({ signal: 'SIGKILL' });

    // JetStream redelivers each unacked message; the new process finds it sent and acks it.
    const second = await s.start({ NOTIFIER_ACK_WAIT_MS: '2000' });
    await s.processed(last);
    for (const [, envelope] of envelopes)
      await second.logged('event already emailed; acked without sending', { eventId: envelope.id });
    // One email per event; three consumers send in parallel, so in no particular order.
    expect([...s.emailedIds()].sort()).toEqual(envelopes.map(([, e]) => e.id).sort());
  });
});

describe('poison messages', () => {
  let s: Scenario;

  beforeAll(async () => {
    s = await scenario();
  });

  afterAll(async () => {
    await s?.close();
  });

  it('dead-letters an unparsable message and an invalid envelope, and keeps emailing the messages after them', async () => {
    const notifier = await s.start();
    const valid = sampleEnvelope('BodegaCreada');
    const invalid = JSON.stringify({ ...sampleEnvelope('ProductoCreado'), data: { productoId: 'doce' } });
    const unparsable = '{"id": "a medias';
    const after = [
      sampleEnvelope('ProductoCreado', { nombre: 'Después del veneno' }),
      sampleEnvelope('BodegaCreada', { nombre: 'Bodega Norte' }),
    ];
    const last = await s.publishAll([
      ['ProductoCreado', unparsable],
      ['BodegaCreada', valid],
      ['ProductoCreado', invalid],
      ['ProductoCreado', after[0]!],
      ['BodegaCreada', after[1]!],
    ]);
    await s.processed(last);

    const letters = await s.events.deadLetters();
    expect(letters.map((l) => [l.subject, l.body])).toEqual([
      [`${s.events.namespace.prefix}_dlq.producto.creado`, unparsable],
      [`${s.events.namespace.prefix}_dlq.producto.creado`, invalid],
    ]);
    for (const letter of letters) expect(letter.headers[DEAD_LETTER_HEADERS.deliveryCount]).toBe('1');
    expect(s.emailedIds().sort()).toEqual([valid.id, after[0]!.id, after[1]!.id].sort());
    expect(notifier.running()).toBe(true);
  });
});

describe('SIGTERM to the notifier while events flow', () => {
  const EXIT_WITHIN_MS = 30_000;
  /** The sink answers each message this late, so emails are in flight whenever the signal comes. */
  const SMTP_DELAY_MS = 200;
  /** One event every this many ms, round the six types: faster than 4 emails per 200 ms, so the notifier is always busy. */
  const PUBLISH_EVERY_MS = 30;
  let s: Scenario;

  beforeAll(async () => {
    s = await scenario();
  });

  afterAll(async () => {
    await s?.close();
  });

  it('finishes the emails in flight, exits 0 within 30 s, and a new notifier sends every other event once, none dead-lettered', async () => {
    s.sink.setDelay(SMTP_DELAY_MS);
    // Production shutdown settings (an empty variable counts as unset: SHUTDOWN_TIMEOUT_MS 25 s), quick redelivery (ack_wait 5 s).
    const first = await s.start({ SHUTDOWN_TIMEOUT_MS: '' });

    // A steady stream of valid events, every emailed type, until told to stop.
    const published: string[] = [];
    const last = new Map<string, number>();
    let publishing = true;
    const publisher = (async () => {
      for (let n = 0; publishing; n++) {
        const type = HANDLERS[n % HANDLERS.length]!.eventType;
        const envelope = sampleEnvelope(type, { id: n + 1, nombre: `Flujo ${n}` });
        last.set(handlerFor(type), await s.events.publish(type, envelope));
        published.push(envelope.id);
        await sleep(PUBLISH_EVERY_MS);
      }
    })();

    try {
      await s.sink.waitForEmails(30);
      const emailedAtSignal = s.sink.received.length;
      const signalledAt = Date.now();
      first.signal('SIGTERM');
      const killer = setTimeout(() => first.signal('SIGKILL'), EXIT_WITHIN_MS + 5000);
      const how = await first.exited;
      clearTimeout(killer);
      const exitMs = Date.now() - signalledAt;
      const emailedByFirst = s.sink.received.length;
      // Events keep coming while no notifier runs.
      await sleep(1000);
      publishing = false;
      await publisher;

      expect(how).toEqual({ code: 0, signal: null });
      expect(exitMs).toBeLessThan(EXIT_WITHIN_MS);
      // The emails in flight at the signal were finished, not cut off; no send failed.
      expect(emailedByFirst).toBeGreaterThan(emailedAtSignal);
      expect(
        first.lines.filter((l) => l.msg === 'email not sent; nak, JetStream redelivers it after retryInMs'),
      ).toEqual([]);
      expect(emailedByFirst).toBeLessThan(published.length);

      const second = await s.start();
      await s.processed(last, 120_000);
      // Exactly one email per event: none missing, none twice.
      const emailed = s.emailedIds();
      expect(emailed.length).toBe(published.length);
      expect([...emailed].sort()).toEqual([...published].sort());
      // Everything the first process emailed it also acked: the new one found nothing already sent but unacked.
      expect(second.lines.filter((l) => l.msg === 'event already emailed; acked without sending')).toEqual([]);
      expect(await s.events.deadLetters()).toEqual([]);
      for (const proc of [first, second])
        expect(proc.lines.filter((l) => l.msg === 'event dead-lettered; no email sent')).toEqual([]);
    } finally {
      publishing = false;
      await publisher;
    }
  });
});

describe('SMTP server down for two minutes', () => {
  const OUTAGE_MS = 120_000;
  let s: Scenario;

  beforeAll(async () => {
    s = await scenario();
  });

  afterAll(async () => {
    await s?.close();
  });

  it('sends every email once the server is back, none dead-lettered, under the default retry settings', async () => {
    // The notifier's own defaults (an empty variable counts as unset): 10
    // deliveries, back-off 1 s, 5 s, 30 s, 2 min, 10 min, ack_wait 60 s.
    const notifier = await s.start({ LOG_LEVEL: 'warn', NOTIFIER_BACKOFF_MS: '', NOTIFIER_ACK_WAIT_MS: '' });
    const warm = sampleEnvelope('BodegaCreada', { nombre: 'Antes del corte' });
    await s.publishAll([['BodegaCreada', warm]]);
    await s.sink.waitForEmails(1);

    await s.sink.stop();
    const early: Array<[EventType, EventEnvelope]> = [
      ['ProductoCreado', sampleEnvelope('ProductoCreado', { id: 1 })],
      ['ProductoActualizado', sampleEnvelope('ProductoActualizado', { id: 1 })],
      ['BodegaEliminada', sampleEnvelope('BodegaEliminada', { id: 9 })],
    ];
    const late: Array<[EventType, EventEnvelope]> = [
      ['ProductoEliminado', sampleEnvelope('ProductoEliminado', { id: 1 })],
      ['BodegaActualizada', sampleEnvelope('BodegaActualizada', { id: 4 })],
    ];
    const last = await s.publishAll(early);
    await sleep(OUTAGE_MS / 2);
    for (const [handler, seq] of await s.publishAll(late)) last.set(handler, seq);
    await sleep(OUTAGE_MS / 2);
    const failedAttempts = notifier.lines.filter(
      (l) => l.msg === 'email not sent; nak, JetStream redelivers it after retryInMs',
    ).length;
    await s.sink.start();

    // The longest wait left is one back-off step (2 min) after the last failed attempt.
    await s.processed(last, 240_000);
    const all = [warm, ...early.map(([, e]) => e), ...late.map(([, e]) => e)];
    expect(s.emailedIds().sort()).toEqual(all.map((e) => e.id).sort());
    expect(await s.events.deadLetters()).toEqual([]);
    // Every event was tried and failed while the server was down (not just queued).
    expect(failedAttempts).toBeGreaterThanOrEqual(early.length + late.length);
    expect(notifier.lines.filter((l) => l.msg === 'event dead-lettered; no email sent')).toEqual([]);
  });
});
