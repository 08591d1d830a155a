import { AckPolicy, DeliverPolicy, jetstream, JetStreamApiError, jetstreamManager, type ConsumerConfig, type JsMsg } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import {
  envelopeMismatch,
  eventSubject,
  inConsumeSpan,
  startConsumerSampler,
  type ConsumeTrace,
  type JetStreamConsumerMetrics,
  type Logger,
} from '@inventario/platform';
import type { BodegaLookup } from '../grpc/bodega-lookup';
import type { ProductoStore } from '../store/producto-store';

/**
 * Reconciliation (ARCHITECTURE §6): when bodega-svc deletes a warehouse, its
 * id is recorded (writes naming it are refused from then on) and any product
 * still pointing at it is unassigned. This closes the race between the BFF's
 * "holds products?" / "does it exist?" checks and the delete.
 *
 * Trust: an event acts only if it is what bodega-svc publishes on this
 * subject (eventType of the subject, `subject` `/bodegas/{data.id}`, `source`
 * bodega-svc when present) AND bodega-svc confirms the warehouse is gone
 * (GetBodega NOT_FOUND). Anyone able to publish on the subject could
 * otherwise unassign the products of a live warehouse. An event failing
 * either check is terminated and logged at error level; it changes nothing.
 *
 * Ack policy: ack after the products were unassigned (committed); nak with a
 * growing delay when that failed, with no delivery limit; term only an event
 * that cannot be parsed (redelivery cannot fix it). Why no limit: a deletion
 * given up on leaves products pointing at a deleted warehouse for good, and
 * a database outage can last longer than any fixed number of retries.
 * Unassigning is idempotent, so a redelivery after a lost ack changes nothing.
 * Concurrency: one message handled at a time, at most one more pulled ahead.
 */

/** Durable name: one consumer shared by every replica (work queue semantics). */
export const BODEGA_ELIMINADA_CONSUMER = 'producto-svc-bodega-eliminada';
/** No delivery limit: JetStream redelivers a nak'd message until it is acked. */
export const MAX_DELIVER = -1;
/**
 * Longer than handling one message takes at worst: acquiring a pooled
 * connection (3 s), then waiting for the products' row locks (MariaDB's
 * innodb_lock_wait_timeout, 50 s by default). Shorter, an event still being
 * handled would be redelivered to another replica meanwhile (harmless, as
 * unassigning is idempotent, but wasted work and misleading logs).
 */
export const ACK_WAIT_MS = 90_000;
const MAX_RETRY_DELAY_MS = 60_000;
/** From this delivery on a failure is logged as an error: it is an outage, not a blip. */
const ERROR_FROM_DELIVERY = 5;
/**
 * Pulled ahead of processing. One, so a message waits in the client's buffer
 * for at most one handling time; handling it restarts its ack_wait (working()).
 */
const MAX_MESSAGES = 1;

export interface BodegaEliminadaConsumerOptions {
  nc: NatsConnection;
  stream: string;
  prefix: string;
  /** EVENT_TYPE_NAMESPACE: the expected eventType is `<namespace>.Inventario.BodegaEliminada`. */
  namespace: string;
  store: Pick<ProductoStore, 'unassignBodega' | 'recordBodegaEliminada'>;
  /** bodega-svc, which must confirm the warehouse is gone before anything is unassigned. */
  bodegas: Pick<BodegaLookup, 'exists'>;
  logger: Logger;
  /** Consumer gauges (sampled while it runs) and redeliveries, labelled with BODEGA_ELIMINADA_CONSUMER. */
  metrics: JetStreamConsumerMetrics;
}

export interface BodegaEliminadaConsumer {
  /** Stops pulling, lets the message in hand finish, then resolves. */
  stop(): Promise<void>;
}

/** The part of a BodegaEliminada envelope this consumer needs. */
const bodegaEliminadaSchema = z.object({
  id: z.string(),
  eventType: z.string(),
  subject: z.string(),
  source: z.string().optional(),
  data: z.object({ id: z.number().int().positive() }),
});

/** The event, or why it is not one bodega-svc would publish here (never acted on). */
function parseEvent(msg: JsMsg, expected: { prefix: string; namespace: string }): { eventId: string; bodegaId: number } | { refused: string } {
  let body: unknown;
  try {
    body = msg.json();
  } catch {
    return { refused: 'not JSON' };
  }
  const parsed = bodegaEliminadaSchema.safeParse(body);
  if (!parsed.success) return { refused: 'not a BodegaEliminada envelope' };
  const envelope = parsed.data;
  // Events of bodega-svc releases before `source` carry none: bodega-svc's confirmation below still decides.
  const mismatch = envelopeMismatch(envelope, { ...expected, natsSubject: msg.subject, requireSource: false });
  if (mismatch) return { refused: mismatch };
  if (envelope.subject !== `/bodegas/${envelope.data.id}`) return { refused: `subject ${envelope.subject} is not warehouse ${envelope.data.id}` };
  return { eventId: envelope.id, bodegaId: envelope.data.id };
}

/** 1 s, 2 s, 4 s ... capped: a database outage is not hammered. */
function retryDelayMs(deliveryCount: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, 1000 * 2 ** Math.max(0, deliveryCount - 1));
}

/**
 * Creates the durable consumer, or brings an existing one's settings in line
 * (a deployment of an older release keeps its consumer: it must pick up a new
 * max_deliver or ack_wait). Safe from every replica.
 */
async function ensureConsumer(nc: NatsConnection, stream: string, config: Partial<ConsumerConfig>): Promise<void> {
  const jsm = await jetstreamManager(nc);
  try {
    // nats-server 2.9 updates an existing durable in place here; 2.10+
    // refuses other settings ("consumer already exists") and we update below.
    await jsm.consumers.add(stream, config);
  } catch (err) {
    if (!(err instanceof JetStreamApiError)) throw err;
    const exists = await jsm.consumers.info(stream, BODEGA_ELIMINADA_CONSUMER).then(
      () => true,
      () => false,
    );
    if (!exists) throw err;
    await jsm.consumers.update(stream, BODEGA_ELIMINADA_CONSUMER, {
      ack_wait: config.ack_wait,
      max_deliver: config.max_deliver,
      filter_subject: config.filter_subject,
    });
  }
}

export async function startBodegaEliminadaConsumer(options: BodegaEliminadaConsumerOptions): Promise<BodegaEliminadaConsumer> {
  const { nc, stream, prefix, namespace, store, bodegas, logger, metrics } = options;
  const subject = eventSubject(prefix, 'BodegaEliminada');

  await ensureConsumer(nc, stream, {
    durable_name: BODEGA_ELIMINADA_CONSUMER,
    filter_subject: subject,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ACK_WAIT_MS),
    max_deliver: MAX_DELIVER,
    // From the start of the stream: a deletion published before this consumer
    // first existed must still be reconciled (re-running one is harmless).
    deliver_policy: DeliverPolicy.All,
  });
  const consumer = await jetstream(nc).consumers.get(stream, BODEGA_ELIMINADA_CONSUMER);
  const messages = await consumer.consume({ max_messages: MAX_MESSAGES });

  async function handle(msg: JsMsg, trace: ConsumeTrace): Promise<void> {
    if (msg.info.deliveryCount > 1) metrics.redeliveries.inc({ consumer: BODEGA_ELIMINADA_CONSUMER });
    const event = parseEvent(msg, { prefix, namespace });
    if ('refused' in event) {
      logger.error({ subject: msg.subject, seq: msg.seq, reason: event.refused }, 'invalid BodegaEliminada event, nothing unassigned; terminated');
      // No reason text: servers before 2.10.4 do not recognise `+TERM <reason>`
      // and would leave the message pending; the reason is in the log instead.
      msg.term();
      return;
    }
    // It may have waited in the client's buffer while the previous one was
    // handled: restart its ack_wait so a full ACK_WAIT_MS covers handling it.
    msg.working();
    try {
      // Only bodega-svc says a warehouse is gone: a live one keeps its products (forged or misrouted event).
      if (await bodegas.exists(event.bodegaId)) {
        logger.error(
          { eventId: event.eventId, bodegaId: event.bodegaId, seq: msg.seq },
          'BodegaEliminada for a warehouse bodega-svc still has (forged or misrouted): nothing unassigned; terminated',
        );
        msg.term();
        return;
      }
      // Recorded first: from then on writes naming the warehouse are refused,
      // and the unassignment below also clears those already under way.
      await store.recordBodegaEliminada(event.bodegaId);
      // The unassignments' events continue this trace: the consume span's
      // context, or with tracing off the message's own traceparent (and tracestate).
      const report = await store.unassignBodega(event.bodegaId, { ...trace.headers, usuario: 'system' });
      msg.ack();
      logger.info({ eventId: event.eventId, bodegaId: event.bodegaId, unassigned: report.total }, 'deleted warehouse reconciled');
    } catch (err) {
      const { deliveryCount } = msg.info;
      const delayMs = retryDelayMs(deliveryCount);
      const fields = {
        eventId: event.eventId,
        bodegaId: event.bodegaId,
        deliveryCount,
        redeliveryInMs: delayMs,
        err: err instanceof Error ? err.message : String(err),
      };
      if (deliveryCount < ERROR_FROM_DELIVERY) {
        logger.warn(fields, 'could not reconcile deleted warehouse; nak, JetStream redelivers it after redeliveryInMs');
      } else {
        logger.error(
          fields,
          'deleted warehouse still not reconciled: its products keep pointing at it until this succeeds; nak, JetStream redelivers it after redeliveryInMs, with no delivery limit',
        );
      }
      msg.nak(delayMs);
    }
  }

  const loop = (async () => {
    // Each in its CONSUMER span, child of bodega-svc's publish (traceparent header).
    for await (const msg of messages) await inConsumeSpan(msg, (trace) => handle(msg, trace));
  })().catch((err: unknown) => {
    logger.error({ err }, 'BodegaEliminada consumer stopped unexpectedly');
  });
  const stopSampler = startConsumerSampler({ nc, stream, consumers: [BODEGA_ELIMINADA_CONSUMER], metrics, logger });
  logger.info({ stream, subject, consumer: BODEGA_ELIMINADA_CONSUMER }, 'BodegaEliminada consumer started');

  return {
    async stop() {
      await stopSampler();
      await messages.close();
      await loop;
    },
  };
}
