import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import { backoffDelayMs } from './backoff';
import { envelopeMismatch, eventSubject, type EventType } from './events';
import type { Logger } from './logger';
import { ensureConsumer } from './nats';
import { startConsumerSampler, type JetStreamConsumerMetrics } from './metrics/jetstream-metrics';
import { inConsumeSpan, type ConsumeTrace } from './tracing-nats';

/**
 * A reconciliation consumer (contract §7.6, §10.1): one service learns that
 * a record another service owns was deleted, and makes its own data agree
 * (producto-svc unassigns the products of a deleted warehouse; bodega-svc
 * writes out the stock of a deleted product).
 *
 * Trust: an event acts only if it is what the owner publishes on that
 * subject (eventType of the subject, `subject` `/<records>/{data.id}`,
 * `source` the owner when present) AND the owner confirms the record is
 * gone. Anyone able to publish on the subject could otherwise make a
 * service discard what belongs to a live record. An event failing either
 * check is terminated and logged at error level; nothing acts on it.
 *
 * Ack policy: ack once the reconciliation committed; nak with a delay
 * doubling from 1 s up to 60 s when it (or the owner's confirmation) failed,
 * with no delivery limit; term only an event that is not the owner's
 * (redelivery cannot fix it). Why no limit: a deletion given up on leaves
 * data pointing at a deleted record for good, and a database or owner
 * outage can last longer than any fixed number of retries. The
 * reconciliation must be idempotent: a redelivery after a lost ack, or the
 * same event published twice, is acted on again and must change nothing.
 * Concurrency: one message handled at a time, at most one more pulled ahead.
 */

/** The deletion events a reconciliation consumes, with the collection their envelope `subject` names. */
const DELETED_RECORDS = { ProductoEliminado: 'productos', BodegaEliminada: 'bodegas' } as const satisfies Partial<Record<EventType, string>>;
export type DeletionEventType = keyof typeof DELETED_RECORDS;

/** No delivery limit: JetStream redelivers a nak'd message until it is acked. */
export const RECONCILIATION_MAX_DELIVER = -1;
/**
 * Longer than handling one message takes at worst: the owner's answer (5 s
 * deadline), acquiring a pooled connection (3 s), then waiting for row locks
 * (MariaDB's innodb_lock_wait_timeout, 50 s by default). Shorter, an event
 * still being handled would be redelivered to another replica meanwhile
 * (harmless, as reconciling is idempotent, but wasted work and misleading logs).
 */
export const RECONCILIATION_ACK_WAIT_MS = 90_000;
const MAX_RETRY_DELAY_MS = 60_000;
/** From this delivery on a failure is logged as an error: it is an outage, not a blip. */
const ERROR_FROM_DELIVERY = 5;
/**
 * Pulled ahead of processing. One, so a message waits in the client's buffer
 * for at most one handling time; handling it restarts its ack_wait (working()).
 */
const MAX_MESSAGES = 1;

export interface ReconciliationConsumerOptions {
  nc: NatsConnection;
  stream: string;
  prefix: string;
  /** EVENT_TYPE_NAMESPACE: the expected eventType is `<namespace>.Inventario.<eventType>`. */
  namespace: string;
  /** The deletion consumed; its producer (EVENT_SOURCE) is the record's owner. */
  eventType: DeletionEventType;
  /** Durable name: one consumer shared by every replica of the service (work-queue semantics). */
  durableName: string;
  /**
   * Asks the owner whether record `id` still exists: true refuses the event
   * (forged or misrouted), false lets it act. Throws when the owner cannot
   * tell: a failure like the database's (nak, retried).
   */
  stillExists(id: number): Promise<boolean>;
  /**
   * Makes this service agree with the deletion of record `id`; must be
   * idempotent. Writes it causes continue `trace`. Resolves to fields for the
   * success log line; throws to be retried (nak).
   */
  reconcile(id: number, trace: ConsumeTrace): Promise<Record<string, unknown> | void>;
  /** What stays wrong until an event is reconciled, for the error log (e.g. `its products keep pointing at it`). */
  pendingEffect: string;
  logger: Logger;
  /** Consumer gauges (sampled while it runs) and redeliveries, labelled with `durableName`. */
  metrics: JetStreamConsumerMetrics;
}

export interface ReconciliationConsumer {
  /** Stops pulling, lets the message in hand finish, then resolves. */
  stop(): Promise<void>;
}

/** The part of a deletion envelope a reconciliation needs. */
const deletionSchema = z.object({
  id: z.string(),
  eventType: z.string(),
  subject: z.string(),
  source: z.string().optional(),
  data: z.object({ id: z.number().int().positive() }),
});

/** The event, or why it is not one the owner would publish here (never acted on). */
function parseEvent(
  msg: JsMsg,
  expected: { prefix: string; namespace: string; eventType: DeletionEventType },
): { eventId: string; recordId: number } | { refused: string } {
  let body: unknown;
  try {
    body = msg.json();
  } catch {
    return { refused: 'not JSON' };
  }
  const parsed = deletionSchema.safeParse(body);
  if (!parsed.success) return { refused: `not a ${expected.eventType} envelope` };
  const envelope = parsed.data;
  // Events of releases before `source` carry none (a 30-day stream still
  // holds them): the owner's confirmation still decides.
  const mismatch = envelopeMismatch(envelope, { prefix: expected.prefix, namespace: expected.namespace, natsSubject: msg.subject, requireSource: false });
  if (mismatch) return { refused: mismatch };
  const own = `/${DELETED_RECORDS[expected.eventType]}/${envelope.data.id}`;
  if (envelope.subject !== own) return { refused: `subject ${envelope.subject} is not ${own}` };
  return { eventId: envelope.id, recordId: envelope.data.id };
}

/** 1 s, 2 s, 4 s ... capped: a database or owner outage is not hammered. */
function retryDelayMs(deliveryCount: number): number {
  return backoffDelayMs(deliveryCount, { baseMs: 1000, maxMs: MAX_RETRY_DELAY_MS });
}

/** Starts the durable consumer of `eventType` and handles its events one at a time until stop(). */
export async function startReconciliationConsumer(options: ReconciliationConsumerOptions): Promise<ReconciliationConsumer> {
  const { nc, stream, prefix, namespace, eventType, durableName, logger, metrics } = options;
  const subject = eventSubject(prefix, eventType);

  await ensureConsumer(await jetstreamManager(nc), stream, {
    durable_name: durableName,
    filter_subject: subject,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(RECONCILIATION_ACK_WAIT_MS),
    max_deliver: RECONCILIATION_MAX_DELIVER,
    // From the start of the stream: a deletion published before this consumer
    // first existed must still be reconciled (re-running one is harmless).
    deliver_policy: DeliverPolicy.All,
  });
  const consumer = await jetstream(nc).consumers.get(stream, durableName);
  const messages = await consumer.consume({ max_messages: MAX_MESSAGES });

  async function handle(msg: JsMsg, trace: ConsumeTrace): Promise<void> {
    if (msg.info.deliveryCount > 1) metrics.redeliveries.inc({ consumer: durableName });
    const event = parseEvent(msg, { prefix, namespace, eventType });
    if ('refused' in event) {
      logger.error(
        { consumer: durableName, subject: msg.subject, seq: msg.seq, reason: event.refused },
        `invalid ${eventType} event, nothing reconciled; terminated`,
      );
      // No reason text: servers before 2.10.4 do not recognise `+TERM <reason>`
      // and would leave the message pending; the reason is in the log instead.
      msg.term();
      return;
    }
    // It may have waited in the client's buffer while the previous one was
    // handled: restart its ack_wait so a full ack_wait covers handling it.
    msg.working();
    const fields = { consumer: durableName, eventId: event.eventId, recordId: event.recordId, seq: msg.seq };
    try {
      // Only the owner says a record is gone: a live one keeps what refers to it (forged or misrouted event).
      if (await options.stillExists(event.recordId)) {
        logger.error(fields, `${eventType} for a record its owner still has (forged or misrouted): nothing reconciled; terminated`);
        msg.term();
        return;
      }
      const outcome = await options.reconcile(event.recordId, trace);
      msg.ack();
      logger.info({ ...fields, ...outcome }, `${eventType} reconciled`);
    } catch (err) {
      const { deliveryCount } = msg.info;
      const delayMs = retryDelayMs(deliveryCount);
      const failure = { ...fields, deliveryCount, redeliveryInMs: delayMs, err: err instanceof Error ? err.message : String(err) };
      if (deliveryCount < ERROR_FROM_DELIVERY) {
        logger.warn(failure, `could not reconcile ${eventType}; nak, JetStream redelivers it after redeliveryInMs`);
      } else {
        logger.error(
          failure,
          `${eventType} still not reconciled: ${options.pendingEffect} until this succeeds; nak, JetStream redelivers it after redeliveryInMs, with no delivery limit`,
        );
      }
      msg.nak(delayMs);
    }
  }

  const loop = (async () => {
    // Each in its CONSUMER span, child of the producer's publish (traceparent header).
    for await (const msg of messages) await inConsumeSpan(msg, (trace) => handle(msg, trace));
  })().catch((err: unknown) => {
    logger.error({ err, consumer: durableName }, `${eventType} consumer stopped unexpectedly`);
  });
  const stopSampler = startConsumerSampler({ nc, stream, consumers: [durableName], metrics, logger });
  logger.info({ stream, subject, consumer: durableName }, `${eventType} consumer started`);

  return {
    async stop() {
      await stopSampler();
      await messages.close();
      await loop;
    },
  };
}
