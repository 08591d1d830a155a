import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import { backoffDelayMs } from './backoff';
import { envelopeMismatch, eventSubject, type EventType } from './events';
import type { Logger } from './logger';
import { ensureConsumer } from './nats';
import { startConsumerSampler, type JetStreamConsumerMetrics } from './metrics/jetstream-metrics';
import { retrying } from './start-up';
import { inConsumeSpan, type ConsumeTrace } from './tracing-nats';

/**
 * A reconciliation consumer (contract §7.6, §10.1): one service learns that
 * a record another service owns was deleted, and makes its own data agree
 * (producto-svc unassigns the products of a deleted warehouse; bodega-svc
 * writes out the stock of a deleted product).
 *
 * Trust: an event acts only if it is what the owner publishes on that
 * subject (eventType of the subject, `subject` `/<records>/{data.id}`,
 * `source` the owner when present) AND the owner confirms it deleted the
 * record (not merely that it does not have it). Anyone able to publish on
 * the subject could otherwise make a service discard what belongs to a live
 * record, or mark as deleted the next id before it is created, so that the
 * record then created could never be used. An event failing either check is
 * terminated and logged at error level; nothing acts on it.
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

/** The events a reconciliation consumes, with the collection their envelope `subject` names. */
const RECORDS = {
  ProductoEliminado: 'productos',
  BodegaEliminada: 'bodegas',
  ProductoCreado: 'productos',
} as const satisfies Partial<Record<EventType, string>>;
export type DeletionEventType = 'ProductoEliminado' | 'BodegaEliminada';
/**
 * A creation another service projects (bodega-svc's known products, docs/decisions.md "Stock has
 * one home"): acted on once the owner confirms it has the record now; one it does not have
 * (deleted since, or forged) is acked and changes nothing, since the projection's user asks the
 * owner again about any id it has not recorded.
 */
export type CreationEventType = 'ProductoCreado';

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
  /** The event consumed; its producer (EVENT_SOURCE) is the record's owner. */
  eventType: DeletionEventType | CreationEventType;
  /** Durable name: one consumer shared by every replica of the service (work-queue semantics). */
  durableName: string;
  /**
   * Asks the owner whether it deleted record `id`: true lets the event act;
   * false refuses it (the record is live, or was never created: forged or
   * misrouted). Throws when the owner cannot tell: a failure like the
   * database's (nak, retried). For a creation: whether the owner has record `id` now.
   */
  confirmsDeleted(id: number): Promise<boolean>;
  /**
   * Makes this service agree with the deletion of record `id`; must be
   * idempotent. Writes it causes continue `trace`. Resolves to fields for the
   * success log line; throws to be retried (nak).
   */
  reconcile(id: number, trace: ConsumeTrace, data: ReconciliationEventData): Promise<Record<string, unknown> | void>;
  /** What stays wrong until an event is reconciled, for the error log (e.g. `its products keep pointing at it`). */
  pendingEffect: string;
  logger: Logger;
  /** Consumer gauges (sampled while it runs) and redeliveries, labelled with `durableName`. */
  metrics: JetStreamConsumerMetrics;
}

/**
 * The event's fields a reconciliation may act on. A ProductoCreado's are the product at its creation
 * (bodega-svc records its initial stock from them); a deletion carries none of them.
 */
export interface ReconciliationEventData {
  cantidadEnStock?: number | undefined;
  bodegaId?: number | null | undefined;
  /** The event's author (its audit `usuario`). */
  usuario?: string | undefined;
  /** When the owner wrote it (the envelope's `eventTime`, to the second): a creation's instant. */
  writtenAt?: Date | undefined;
}

export interface ReconciliationConsumer {
  /** Stops pulling, lets the message in hand finish, then resolves. */
  stop(): Promise<void>;
}

/** The part of an envelope a reconciliation needs. */
const deletionSchema = z.object({
  id: z.string(),
  eventType: z.string(),
  subject: z.string(),
  source: z.string().optional(),
  // The public timestamp form (UTC, no zone); only read, like the data's optional fields below.
  eventTime: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/)
    .optional()
    .catch(undefined),
  // A deletion names its record `id`; a ProductoCreado carries the product's form, `productoId`.
  data: z.object({
    id: z.number().int().positive().optional(),
    productoId: z.number().int().positive().optional(),
    cantidadEnStock: z.number().optional(),
    // Only read, never a reason to refuse an event: a field not as producto-svc writes it is left out.
    bodegaId: z.number().int().positive().nullable().optional().catch(undefined),
    usuario: z.string().optional().catch(undefined),
  }),
});

/** The event, or why it is not one the owner would publish here (never acted on). */
function parseEvent(
  msg: JsMsg,
  expected: { prefix: string; namespace: string; eventType: DeletionEventType | CreationEventType },
): { eventId: string; recordId: number; data: ReconciliationEventData } | { refused: string } {
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
  const mismatch = envelopeMismatch(envelope, {
    prefix: expected.prefix,
    namespace: expected.namespace,
    natsSubject: msg.subject,
    requireSource: false,
  });
  if (mismatch) return { refused: mismatch };
  const recordId = expected.eventType === 'ProductoCreado' ? envelope.data.productoId : envelope.data.id;
  if (recordId === undefined) return { refused: `not a ${expected.eventType} envelope` };
  const own = `/${RECORDS[expected.eventType]}/${recordId}`;
  if (envelope.subject !== own) return { refused: `subject ${envelope.subject} is not ${own}` };
  const writtenAt = envelope.eventTime === undefined ? undefined : new Date(`${envelope.eventTime}Z`);
  return { eventId: envelope.id, recordId, data: { ...envelope.data, writtenAt } };
}

/** 1 s, 2 s, 4 s ... capped: a database or owner outage is not hammered. */
function retryDelayMs(deliveryCount: number): number {
  return backoffDelayMs(deliveryCount, { baseMs: 1000, maxMs: MAX_RETRY_DELAY_MS });
}

/**
 * One event, acked, naked or terminated: refused when it cannot be read or its record's owner denies it, reconciled
 * and acked otherwise, naked with back-off while reconciling fails.
 */
async function handleEvent(options: ReconciliationConsumerOptions, msg: JsMsg, trace: ConsumeTrace): Promise<void> {
  const { prefix, namespace, eventType, durableName, logger, metrics } = options;
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
    // Only the owner says a record was deleted: a live one keeps what refers
    // to it, and an id not created yet is not marked deleted before it is.
    if (!(await options.confirmsDeleted(event.recordId))) {
      if (eventType === 'ProductoCreado') {
        logger.info(
          fields,
          `${eventType} for a record its owner does not have now (deleted since, or forged): nothing recorded`,
        );
        msg.ack();
        return;
      }
      logger.error(
        fields,
        `${eventType} for a record its owner did not delete (it is live, or was never created: forged or ` +
          `misrouted): nothing reconciled; terminated`,
      );
      msg.term();
      return;
    }
    const outcome = await options.reconcile(event.recordId, trace, event.data);
    msg.ack();
    logger.info({ ...fields, ...outcome }, `${eventType} reconciled`);
  } catch (err) {
    const { deliveryCount } = msg.info;
    const delayMs = retryDelayMs(deliveryCount);
    const failure = {
      ...fields,
      deliveryCount,
      redeliveryInMs: delayMs,
      err: err instanceof Error ? err.message : String(err),
    };
    if (deliveryCount < ERROR_FROM_DELIVERY) {
      logger.warn(failure, `could not reconcile ${eventType}; nak, JetStream redelivers it after redeliveryInMs`);
    } else {
      logger.error(
        failure,
        `${eventType} still not reconciled: ${options.pendingEffect} until this succeeds; nak, JetStream ` +
          `redelivers it after redeliveryInMs, with no delivery limit`,
      );
    }
    msg.nak(delayMs);
  }
}

/**
 * One consume() of the durable: `lost` resolves with a reason once it (or the stream) is gone, or the messages end.
 */
async function openSession(
  options: ReconciliationConsumerOptions,
): Promise<{ messages: ConsumerMessages; lost: Promise<string>; loop: Promise<void> }> {
  const { nc, stream, durableName } = options;
  const messages = await (
    await jetstream(nc).consumers.get(stream, durableName)
  ).consume({ max_messages: MAX_MESSAGES });
  const loop = (async () => {
    // Each in its CONSUMER span, child of the producer's publish (traceparent header).
    for await (const msg of messages) await inConsumeSpan(msg, (trace) => handleEvent(options, msg, trace));
  })();
  const gone = (async () => {
    for await (const status of messages.status()) {
      if (
        status.type === 'consumer_deleted' ||
        status.type === 'consumer_not_found' ||
        status.type === 'stream_not_found'
      )
        return status.type;
    }
    return 'status ended';
  })();
  const ended = loop.then(
    () => 'message iterator ended',
    (err: unknown) => `message loop failed: ${err instanceof Error ? err.message : String(err)}`,
  );
  return { messages, lost: Promise.race([gone, ended]), loop: loop.catch(() => undefined) };
}

/** Starts the durable consumer of `eventType` and handles its events one at a time until stop(). */
export async function startReconciliationConsumer(
  options: ReconciliationConsumerOptions,
): Promise<ReconciliationConsumer> {
  const { nc, stream, prefix, eventType, durableName, logger, metrics } = options;
  const subject = eventSubject(prefix, eventType);

  const jsm = await jetstreamManager(nc);
  const config = {
    durable_name: durableName,
    filter_subject: subject,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(RECONCILIATION_ACK_WAIT_MS),
    max_deliver: RECONCILIATION_MAX_DELIVER,
    // From the start of the stream: a deletion published before this consumer
    // first existed must still be reconciled (re-running one is harmless).
    deliver_policy: DeliverPolicy.All,
  };
  await ensureConsumer(jsm, stream, config);

  // A durable that disappears (deleted by an administrator, a stream
  // re-created) is re-created with the same settings, with back-off, and
  // consumed again: deletions meanwhile wait in the stream.
  const abort = new AbortController();
  let session = await openSession(options);
  const supervision = (async () => {
    for (;;) {
      const reason = await session.lost;
      if (abort.signal.aborted) return;
      logger.error({ consumer: durableName, reason }, `${eventType} consumer lost; re-creating it and consuming again`);
      await session.messages.close();
      await session.loop;
      session = await retrying(
        `re-creating consumer ${durableName}`,
        async () => {
          await ensureConsumer(jsm, stream, config);
          return openSession(options);
        },
        logger,
        abort.signal,
      );
      // Stopped while it was being re-created: stop() closed the old one.
      if (abort.signal.aborted) {
        await session.messages.close();
        return;
      }
    }
  })().catch((err: unknown) => {
    if (!abort.signal.aborted)
      logger.error({ err, consumer: durableName }, `${eventType} consumer stopped unexpectedly`);
  });
  const stopSampler = startConsumerSampler({ nc, stream, consumers: [durableName], metrics, logger });
  logger.info({ stream, subject, consumer: durableName }, `${eventType} consumer started`);

  return {
    async stop() {
      abort.abort();
      await stopSampler();
      await session.messages.close();
      await session.loop;
      await supervision;
    },
  };
}
