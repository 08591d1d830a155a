/**
 * The whole system in the test process for the e2e suites: the BFF test
 * stack (producto-svc, bodega-svc, the BFF on the real MariaDB and NATS),
 * an SMTP sink, and the notifier consuming the stack's stream into it with
 * its own sent-registry bucket.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { createLogger, eventSubject, type Logger } from '@inventario/platform';
import { deleteStream, uniqueName, waitFor, type StoredEvent } from '@inventario/testkit';
import type { TestStack } from '@inventario/testkit/stack';
import { startTestStack } from '../../support/stack';
import { startApp as startNotifier, type NotifierApp } from '../../../services/notifier/src/app';
import { HANDLERS } from '../../../services/notifier/src/handlers';
import { loadConfig as loadNotifierConfig } from '../../../services/notifier/src/config';
import { startSmtpSink, type SmtpSink } from '@inventario/testkit/smtp-sink';

export const E2E_SENDER = 'inventario@example.com';
export const E2E_RECIPIENT = 'almacen@example.com';

export interface E2eSystem {
  stack: TestStack;
  sink: SmtpSink;
  notifier: NotifierApp;
  /** Stops everything and removes the stack's databases, stream and the notifier's bucket. */
  close(): Promise<void>;
}

export interface E2eSystemOptions {
  /** The BFF's logger (e.g. one writing into the test). */
  bffLogger?: Logger;
  /** Notifier environment overrides (e.g. `NOTIFIER_BACKOFF_MS`). */
  notifierEnv?: Record<string, string>;
}

export async function startE2eSystem(label: string, options: E2eSystemOptions = {}): Promise<E2eSystem> {
  const sentBucket = uniqueName(`t_${label}_sent`);
  const stack = await startTestStack(label, options.bffLogger ? { logger: options.bffLogger } : {});
  let sink: SmtpSink | undefined;
  const close = async (notifier?: NotifierApp) => {
    await notifier?.stop();
    await sink?.stop();
    await deleteStream(stack.nc, `KV_${sentBucket}`);
    await stack.close();
  };
  try {
    sink = await startSmtpSink();
    const config = loadNotifierConfig({
      SMTP_URL: sink.url,
      METRICS_PORT: '0',
      SENDER_EMAIL: E2E_SENDER,
      RECIPIENT_EMAIL: E2E_RECIPIENT,
      NATS_STREAM: stack.namespace.stream,
      NATS_SUBJECT_PREFIX: stack.namespace.prefix,
      NOTIFIER_SENT_BUCKET: sentBucket,
      // The names an email shows beside the ids its event carries (a stock alert's product and warehouse).
      PRODUCTO_SVC_ADDR: stack.serviceAddrs.producto,
      BODEGA_SVC_ADDR: stack.serviceAddrs.bodega,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ...options.notifierEnv,
    });
    const notifier = await startNotifier(config, createLogger('notifier', config.logLevel));
    return { stack, sink, notifier, close: () => close(notifier) };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The events the notifier emails (the ledger's MovimientoRegistrado and StockRepuesto are not emailed). */
export function emailedEvents(stack: E2eSystem['stack'], events: StoredEvent[]): StoredEvent[] {
  const emailedSubjects = new Set(HANDLERS.map((h) => eventSubject(stack.namespace.prefix, h.eventType)));
  return events.filter((e) => emailedSubjects.has(e.subject));
}

/**
 * Waits until the sink holds at least one email per emailed event (the
 * stock ledger's MovimientoRegistrado and StockRepuesto are not) and every
 * notifier consumer has acked all it was given, so a duplicate email would
 * be there by now.
 */
export async function waitForNotifierSettled({ stack, sink }: E2eSystem, events: StoredEvent[]): Promise<void> {
  const emailed = emailedEvents(stack, events).length;
  await waitFor(() => sink.received.length >= emailed, `${emailed} emails, one per emailed event`);
  const jsm = await jetstreamManager(stack.nc);
  await waitFor(async () => {
    for (const handler of HANDLERS) {
      const info = await jsm.consumers.info(stack.namespace.stream, handler.name);
      if (info.num_pending > 0 || info.num_ack_pending > 0) return false;
    }
    return true;
  }, 'every notifier consumer to have acked everything');
}
