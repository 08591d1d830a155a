/**
 * The built notifier process: killed after the SMTP server accepted an email
 * but before the ack, a restarted notifier does not send it again; SIGTERM
 * runs the written shutdown sequence; a bad environment stops it with one
 * line that names the variable and never shows the SMTP password.
 */
import { freePort, startServiceProcess, waitFor, type ServiceProcess } from '@inventario/testkit';
import { sampleEnvelope } from '../src/sample-events';
import { startSmtpSink, type SmtpSink } from '@inventario/testkit/smtp-sink';
import { createTestEvents, testEnv, type TestEvents } from './support/test-notifier';

let events: TestEvents;
let sink: SmtpSink;
const processes: ServiceProcess[] = [];

/** The built notifier with exactly this environment; `faults` (`{ ackDelayMs }`) through the test-only entry. */
async function start(env: Record<string, string> = {}, faults?: { ackDelayMs: number }): Promise<ServiceProcess> {
  const notifierEnv = testEnv(events, sink, { LOG_LEVEL: 'info', NOTIFIER_ACK_WAIT_MS: '2000', ...env });
  const p = await startServiceProcess('notifier', notifierEnv, { noWait: true, ...(faults ? { faults } : {}) });
  processes.push(p);
  return p;
}

beforeAll(async () => {
  events = await createTestEvents();
  sink = await startSmtpSink();
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.kill()));
});

afterAll(async () => {
  await events?.dispose();
  await sink?.stop();
});

describe('notifier process', () => {
  it('does not email an event again when killed after the SMTP server accepted it but before the ack', async () => {
    // Fault injection (the test-only entry's option): the first process holds
    // every ack for a minute after recording the email as sent; its heartbeat
    // keeps the message its own meanwhile, so JetStream redelivers it only
    // once the process is killed.
    const first = await start({}, { ackDelayMs: 60_000 });
    await first.logged('notifier started');
    const envelope = sampleEnvelope('ProductoCreado', { nombre: 'Enviado antes del fallo' });
    const seq = await events.publish('ProductoCreado', envelope);

    await sink.waitForEmails(1);
    await waitFor(
      async () => (await events.sentEntry(envelope.id))?.state === 'sent',
      'the email to be recorded as sent',
    );
    // Held for longer than ack_wait (2 s) without a redelivery: the heartbeat at work.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await events.consumerInfo('ProductoCreatedHandler')).delivered.consumer_seq).toBe(1);
    first.child.kill('SIGKILL');
    await first.exited;
    expect((await events.consumerInfo('ProductoCreatedHandler')).num_ack_pending).toBe(1);

    // JetStream redelivers it once ack_wait expires; the new process finds it sent and acks it.
    const second = await start();
    await second.logged('notifier started');
    await events.processedThrough('ProductoCreatedHandler', seq);
    await second.logged('event already emailed; acked without sending', { eventId: envelope.id });
    expect(sink.received).toHaveLength(1);
    expect(
      second.lines.find((l) => l.msg === 'event received' && l.eventId === envelope.id)?.deliveryCount,
    ).toBeGreaterThan(1);

    second.child.kill('SIGTERM');
    // 0 only once every step ran, within SHUTDOWN_TIMEOUT_MS.
    expect(await second.exited).toEqual({ code: 0, signal: null });
    // The last lines before process.exit may not reach the pipe (the platform
    // logger writes asynchronously), so only the steps before awaited work are checked.
    const steps = second.lines.filter((l) => l.msg === 'shutdown step').map((l) => l.step);
    expect(steps.slice(0, 2)).toEqual(['consumers', 'nats drain']);
  });

  it('exits 0 on SIGTERM while start-up still waits for an unreachable NATS', async () => {
    const p = await start({ NATS_URL: `nats://127.0.0.1:${await freePort()}` });
    await p.logged('connecting to NATS');
    p.child.kill('SIGTERM');
    // Not killed by the signal (null), nor a failed start (1): stopped cleanly.
    expect(await p.exited).toEqual({ code: 0, signal: null });
  });

  it('refuses to start on a bad environment, naming each variable in one line without echoing the SMTP password', async () => {
    const p = await start({
      SMTP_URL: 'ftp://usuario:s3cr3t0@mail.example.com',
      SENDER_EMAIL: 'no es un correo',
      NOTIFIER_CONCURRENCY: '0',
    });
    expect(await p.exited).toEqual({ code: 1, signal: null });
    const output = p.stderr().trim();
    expect(output.split('\n')).toHaveLength(1);
    expect(output).toMatch(/^notifier: invalid configuration: /);
    for (const variable of ['SMTP_URL', 'SENDER_EMAIL', 'NOTIFIER_CONCURRENCY']) expect(output).toContain(variable);
    expect(output).not.toContain('s3cr3t0');
    expect(p.lines).toEqual([]);
  });
});
