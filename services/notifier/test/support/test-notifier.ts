/**
 * The notifier in-process against the shared NATS (a private stream, subject
 * prefix and sent bucket per test file) and a real SMTP sink; its stream and
 * environment are testkit's (`@inventario/testkit/notifier`, the fault tests
 * use them too), bound here to the notifier's own names.
 */
import { createLogger, type EventType } from '@inventario/platform';
import { startSmtpSink, type SmtpSink } from '@inventario/testkit/smtp-sink';
import { createTestEvents as createEventsNamed, testEnv, type TestEvents } from '@inventario/testkit/notifier';
import { startApp, type NotifierApp } from '../../src/app';
import { deadLetterStreamName } from '../../src/events/dead-letter';
import { loadConfig, type Config } from '../../src/config';
import { sentKeyFor } from '../../src/events/sent-registry';
import { HANDLERS, type HandlerName } from '../../src/handlers';

export { RECIPIENT, SENDER, testEnv, type DeadLetterRecord, type TestEvents } from '@inventario/testkit/notifier';

/** Events on the shared test NATS, or on `natsUrl` (a fault test's private server), under `namespace` (a fresh one by default). */
export const createTestEvents = (natsUrl?: string, namespace?: TestEvents['namespace']) =>
  createEventsNamed({ deadLetterStreamName, sentKeyFor }, natsUrl, namespace);

export function handlerFor(type: EventType): HandlerName {
  const handler = HANDLERS.find((h) => h.eventType === type);
  if (!handler) throw new Error(`no handler for ${type}`);
  return handler.name;
}

export function testConfig(events: TestEvents, sink: SmtpSink, env: Record<string, string> = {}): Config {
  return loadConfig(testEnv(events, sink, env));
}

/** A notifier, its sink and its stream for one test file. */
export interface TestNotifier {
  app: NotifierApp;
  config: Config;
  sink: SmtpSink;
  events: TestEvents;
  close(): Promise<void>;
}

export async function startTestNotifier(
  env: Record<string, string> = {},
  sinkOptions: { started?: boolean } = {},
): Promise<TestNotifier> {
  const sink = await startSmtpSink(sinkOptions);
  const events = await createTestEvents();
  const config = testConfig(events, sink, env);
  const app = await startApp(config, createLogger('notifier', config.logLevel)).catch(async (err: unknown) => {
    await events.dispose();
    await sink.stop();
    throw err;
  });
  return {
    app,
    config,
    sink,
    events,
    async close() {
      await app.stop();
      await events.dispose();
      await sink.stop();
    },
  };
}
