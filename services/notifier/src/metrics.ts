import { Counter, Registry } from 'prom-client';
import type { EventType } from '@inventario/platform';
import { HANDLERS } from './handlers';

/**
 * The notifier's counters, labelled by the event type of a handler
 * (`ProductoCreado` ..., `StockBajo`; never a type it does not email).
 * They live on the registry the app creates and serves on METRICS_PORT
 * (never prom-client's global one), so two apps in one process, as in
 * tests, count separately.
 */
export interface NotifierMetrics {
  /** Emails the SMTP server accepted. */
  sent: Counter<'event_type'>;
  /** Deliveries nak'ed for a later attempt after a transient failure. */
  retried: Counter<'event_type'>;
  /** Events given up on and copied to the dead-letter subject. */
  deadLettered: Counter<'event_type'>;
}

export function createNotifierMetrics(registry: Registry = new Registry()): NotifierMetrics {
  const counter = (name: string, help: string) =>
    new Counter({ name, help, labelNames: ['event_type'] as const, registers: [registry] });
  const metrics: NotifierMetrics = {
    sent: counter('notifier_emails_sent_total', 'Notification emails accepted by the SMTP server, by event type.'),
    retried: counter('notifier_emails_retried_total', 'Notification deliveries retried after a transient failure, by event type.'),
    deadLettered: counter('notifier_emails_dead_lettered_total', 'Events dead-lettered without an email, by event type.'),
  };
  // Every series exists from the start, so a rate() or an alert sees 0, not "no data".
  for (const { eventType: type } of HANDLERS) {
    for (const c of [metrics.sent, metrics.retried, metrics.deadLettered]) c.labels(type).inc(0);
  }
  return metrics;
}

/** The current value of one counter for one event type (tests, start-up summaries). */
export async function counterValue(c: Counter<'event_type'>, type: EventType): Promise<number> {
  const { values } = await c.get();
  return values.find((v) => v.labels.event_type === type)?.value ?? 0;
}
