import { AckPolicy, DeliverPolicy, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { z } from 'zod';
import { backoffDelayMs, type DurableConfig, type Logger } from '@inventario/platform';
import type { EventHandler } from '../handlers';
import type { NotifierMetrics } from '../metrics';
import type { ConsumerSpec } from './consumers';
import { MAX_DELIVERIES_REASON, type DeadLetterPublisher } from './dead-letter';
import type { SentRegistry } from './sent-registry';

/**
 * When the handling process kept dying, deliveries run out without a failure
 * seen and JetStream only publishes a max-deliveries advisory, typically
 * while that process is still down. So the stream captures those advisories
 * and MaxDeliveriesHandler dead-letters the event, unless the sent registry
 * says it was emailed. An unreadable registry still dead-letters: a replay
 * of an emailed event sends nothing twice.
 */

export const MAX_DELIVERIES_CONSUMER = 'MaxDeliveriesHandler';

export function maxDeliveriesSubject(stream: string, consumer: string): string {
  return `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${stream}.${consumer}`;
}

export function maxDeliveriesSubjects(stream: string, handlers: readonly EventHandler[]): string[] {
  return handlers.map((handler) => maxDeliveriesSubject(stream, handler.name));
}

export function maxDeliveriesConsumerConfig(stream: string, ackWaitMs: number): DurableConfig {
  return {
    durable_name: MAX_DELIVERIES_CONSUMER,
    description: 'Inventario notifier: dead letters for events whose deliveries ran out',
    filter_subject: maxDeliveriesSubject(stream, '*'),
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ackWaitMs),
    // Giving up on a dead letter would lose the event's last trace.
    max_deliver: -1,
    deliver_policy: DeliverPolicy.All,
  };
}

/** A service re-creating the stream knows only `<prefix>.>`; rejects while the stream does not exist. */
export async function ensureStreamCaptures(
  jsm: JetStreamManager,
  stream: string,
  subjects: readonly string[],
): Promise<void> {
  const info = await jsm.streams.info(stream);
  const current = info.config.subjects ?? [];
  if (subjects.every((subject) => current.includes(subject))) return;
  await jsm.streams.update(stream, { subjects: [...new Set([...current, ...subjects])] });
}

/** io.nats.jetstream.advisory.v1.max_deliver. */
const advisorySchema = z.object({
  stream: z.string(),
  consumer: z.string(),
  stream_seq: z.number().int().positive(),
  deliveries: z.number().int().nonnegative(),
});

export interface MaxDeliveriesDeps {
  jsm: JetStreamManager;
  stream: string;
  handlers: readonly EventHandler[];
  namespace: string;
  sent: Pick<SentRegistry, 'lookup'>;
  deadLetters: DeadLetterPublisher;
  metrics: NotifierMetrics;
  logger: Logger;
  /** Wait before looking again at an event another delivery is sending. */
  ackWaitMs: number;
}

function retryDelayMs(deliveryCount: number): number {
  return backoffDelayMs(deliveryCount, { baseMs: 1000, maxMs: 60_000 });
}

/**
 * One advisory: terminated when it is not one of this stream's event consumers'; acked once the event is dead-lettered
 * (or needs no letter); naked while another delivery is still sending the event. Throws when a call fails.
 */
async function handleAdvisory(deps: MaxDeliveriesDeps, msg: JsMsg): Promise<void> {
  const { jsm, stream, logger } = deps;
  let payload: unknown;
  try {
    payload = msg.json();
  } catch {
    payload = undefined;
  }
  const advisory = advisorySchema.safeParse(payload);
  const handler = advisory.success ? deps.handlers.find((h) => h.name === advisory.data.consumer) : undefined;
  if (!advisory.success || !handler || advisory.data.stream !== stream) {
    logger.warn(
      { streamSeq: msg.seq, subject: msg.subject },
      'not a max-deliveries advisory of an event consumer of this stream; terminated',
    );
    msg.term();
    return;
  }
  const { stream_seq: seq, deliveries } = advisory.data;
  const fields: Record<string, unknown> = { consumer: handler.name, streamSeq: seq, deliveryCount: deliveries };
  // Handled. The advisory stays in the stream (no runtime user deletes a
  // message): a re-created consumer reads it again, and its letter, written
  // under the same Nats-Msg-Id, is then dropped as a repeat by the dead
  // letters' stream, whose window covers the events' stream's history.
  const done = () => msg.ack();

  const stored = await jsm.streams.getMessage(stream, { seq });
  if (!stored) {
    logger.error(fields, 'deliveries ran out for an event no longer in the stream; nothing to dead-letter');
    done();
    return;
  }
  const prepared = handler.prepare(stored.string(), deps.namespace);
  const eventId = prepared.ok ? prepared.prepared.eventId : undefined;
  if (eventId) {
    fields.eventId = eventId;
    const state = await deps.sent.lookup(eventId).catch((err: unknown) => {
      logger.warn({ ...fields, err }, 'sent registry unreachable; dead-lettering the event to be safe');
      return undefined;
    });
    if (state?.state === 'sent') {
      logger.info(
        { ...fields, sentAt: state.sentAt },
        'deliveries ran out for an event already emailed; no dead letter',
      );
      done();
      return;
    }
    if (state?.state === 'sending') {
      msg.nak(deps.ackWaitMs);
      logger.info(
        { ...fields, retryInMs: deps.ackWaitMs },
        'deliveries ran out while another delivery is still sending the event; looked at again after retryInMs',
      );
      return;
    }
  }
  const origin = {
    stream,
    seq,
    subject: stored.subject,
    data: stored.data,
    headers: stored.header,
    deliveryCount: deliveries,
  };
  const letter = {
    type: handler.eventType,
    consumer: handler.name,
    reason: MAX_DELIVERIES_REASON,
    ...(eventId ? { eventId } : {}),
  };
  const { duplicate } = await deps.deadLetters.publish(origin, letter);
  if (duplicate) {
    logger.info(fields, 'dead letter already published; not counted again');
  } else {
    deps.metrics.deadLettered.labels(handler.eventType).inc();
    logger.error({ ...fields, reason: MAX_DELIVERIES_REASON }, 'event dead-lettered; no email sent');
  }
  done();
}

/** Never rejects; always acks, naks or terms. */
export function createMaxDeliveriesHandler(deps: MaxDeliveriesDeps): (msg: JsMsg) => Promise<void> {
  const { logger } = deps;
  return async (msg) => {
    try {
      await handleAdvisory(deps, msg);
    } catch (err) {
      const retryInMs = retryDelayMs(msg.info.deliveryCount);
      logger.warn(
        { streamSeq: msg.seq, err, retryInMs },
        'could not handle a max-deliveries advisory; nak, tried again after retryInMs',
      );
      msg.nak(retryInMs);
    }
  };
}

/** When the consumer was lost, the stream's capture of the advisories is restored before re-creating it. */
export function maxDeliveriesConsumerSpec(deps: MaxDeliveriesDeps): ConsumerSpec {
  return {
    config: maxDeliveriesConsumerConfig(deps.stream, deps.ackWaitMs),
    handle: createMaxDeliveriesHandler(deps),
    beforeRecreate: () =>
      ensureStreamCaptures(deps.jsm, deps.stream, maxDeliveriesSubjects(deps.stream, deps.handlers)),
  };
}
