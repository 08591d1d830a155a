import { Counter, Registry } from 'prom-client';
import type { EventType } from '@inventario/platform';
import { HANDLERS } from './handlers';

/** Labelled by the emailed event type; on the app's own registry, so two apps in one process count separately. */
export interface NotifierMetrics {
  sent: Counter<'event_type'>;
  retried: Counter<'event_type'>;
  deadLettered: Counter<'event_type'>;
}

export function createNotifierMetrics(registry: Registry = new Registry()): NotifierMetrics {
  const counter = (name: string, help: string) =>
    new Counter({ name, help, labelNames: ['event_type'] as const, registers: [registry] });
  const metrics: NotifierMetrics = {
    sent: counter('notifier_emails_sent_total', 'Notification emails accepted by the SMTP server, by event type.'),
    retried: counter(
      'notifier_emails_retried_total',
      'Notification deliveries retried after a transient failure, by event type.',
    ),
    deadLettered: counter(
      'notifier_emails_dead_lettered_total',
      'Events dead-lettered without an email, by event type.',
    ),
  };
  // Every series exists from the start, so a rate() or an alert sees 0, not "no data".
  for (const { eventType: type } of HANDLERS) {
    for (const c of [metrics.sent, metrics.retried, metrics.deadLettered]) c.labels(type).inc(0);
  }
  return metrics;
}

export async function counterValue(c: Counter<'event_type'>, type: EventType): Promise<number> {
  const { values } = await c.get();
  return values.find((v) => v.labels.event_type === type)?.value ?? 0;
}
