import { createLogger, ensureStream, type EventType } from '@inventario/platform';
import { createMailer } from '../../src/email/mailer';
import { createEmailRenderer } from '../../src/email/templates';
import { createConcurrencyLimit } from '../../src/events/concurrency-limit';
import { eventConsumerSpecs, startConsumers, type RunningConsumers } from '../../src/events/consumers';
import { createDeadLetterPublisher } from '../../src/events/dead-letter';
import { createDelivery } from '../../src/events/delivery';
import { openSentRegistry } from '../../src/events/sent-registry';
import { HANDLERS } from '../../src/handlers';
import { createNotifierMetrics } from '../../src/metrics';
import type { SmtpSink } from '@inventario/testkit/smtp-sink';
import { RECIPIENT, SENDER, type TestEvents } from './test-notifier';

/**
 * The event consumers wired by hand, for what the whole app fixes: a
 * concurrency limit apart from the SMTP pool's size, or a heartbeat slower
 * than ack_wait.
 */
export interface TestConsumersOptions {
  /** Event types to consume. */
  types: EventType[];
  /** The shared concurrency limit. */
  concurrency: number;
  /** The SMTP pool's connections. */
  maxConnections: number;
  ackWaitMs: number;
  /** Default: ack_wait / 3. */
  heartbeatMs?: number;
}

export async function startTestConsumers(
  events: TestEvents,
  sink: SmtpSink,
  options: TestConsumersOptions,
): Promise<RunningConsumers> {
  const { stream, prefix } = events.namespace;
  const logger = createLogger('notifier', process.env.TEST_LOG_LEVEL ?? 'silent');
  await ensureStream(events.nc, { name: stream, subjects: [`${prefix}.>`] });
  const handlers = HANDLERS.filter((h) => options.types.includes(h.eventType));
  const mailer = createMailer({
    smtpUrl: sink.url,
    from: SENDER,
    to: [RECIPIENT],
    maxConnections: options.maxConnections,
  });
  const deliver = createDelivery({
    namespace: 'Service',
    prefix,
    renderer: createEmailRenderer(handlers.map((h) => h.template)),
    mailer,
    sent: await openSentRegistry(events.nc, { bucket: events.bucket, staleAfterMs: options.ackWaitMs }),
    deadLetters: createDeadLetterPublisher(events.nc, prefix),
    metrics: createNotifierMetrics(),
    logger,
    retry: { maxDeliver: 5, backoffMs: [200] },
  });
  const settings = { stream, prefix, ackWaitMs: options.ackWaitMs, maxDeliver: 5 };
  const consumers = await startConsumers({
    nc: events.nc,
    stream,
    consumers: eventConsumerSpecs(handlers, settings, deliver),
    limit: createConcurrencyLimit(options.concurrency),
    ackWaitMs: options.ackWaitMs,
    logger,
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
  });
  return {
    async stop() {
      await consumers.stop();
      mailer.close();
    },
  };
}
