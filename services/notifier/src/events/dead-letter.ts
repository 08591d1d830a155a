import { jetstream, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { eventSubject, type EventType } from '@inventario/platform';

/**
 * A dead letter is the event byte for byte on `<prefix>.dlq.<type>`: stored
 * by the INVENTARIO stream, matched by no consumer (README, "Dead letters").
 */
export const DEAD_LETTER_HEADERS = {
  reason: 'Inventario-Dead-Letter-Reason',
  consumer: 'Inventario-Dead-Letter-Consumer',
  originalSubject: 'Inventario-Original-Subject',
  originalStream: 'Inventario-Original-Stream',
  originalSequence: 'Inventario-Original-Sequence',
  deliveryCount: 'Inventario-Delivery-Count',
  eventId: 'Inventario-Event-Id',
} as const;

/** Deliveries ran out without a failure seen (the process died each time). */
export const MAX_DELIVERIES_REASON = 'max deliveries reached';

export function deadLetterSubject(prefix: string, type: EventType): string {
  return eventSubject(`${prefix}.dlq`, type);
}

export interface DeadLetter {
  type: EventType;
  consumer: string;
  reason: string;
  /** When the payload parsed far enough to tell. */
  eventId?: string;
}

/** A delivery in hand, or one read back from the stream after its deliveries ran out. */
export interface DeadLetterOrigin {
  stream: string;
  seq: number;
  subject: string;
  data: Uint8Array;
  headers?: MsgHdrs;
  deliveryCount: number;
}

export function originOf(msg: JsMsg): DeadLetterOrigin {
  return {
    stream: msg.info.stream,
    seq: msg.seq,
    subject: msg.subject,
    data: msg.data,
    ...(msg.headers ? { headers: msg.headers } : {}),
    deliveryCount: msg.info.deliveryCount,
  };
}

export interface DeadLetterPublisher {
  /** `duplicate` when this message's letter was stored already (a retry), so it is counted once. */
  publish(origin: DeadLetterOrigin, letter: DeadLetter): Promise<{ duplicate: boolean }>;
}

function headerValue(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 1000);
}

export function createDeadLetterPublisher(nc: NatsConnection, prefix: string, timeoutMs = 5000): DeadLetterPublisher {
  const js = jetstream(nc);
  return {
    async publish(origin, letter) {
      const h = natsHeaders();
      h.set(DEAD_LETTER_HEADERS.reason, headerValue(letter.reason));
      h.set(DEAD_LETTER_HEADERS.consumer, letter.consumer);
      h.set(DEAD_LETTER_HEADERS.originalSubject, origin.subject);
      h.set(DEAD_LETTER_HEADERS.originalStream, origin.stream);
      h.set(DEAD_LETTER_HEADERS.originalSequence, String(origin.seq));
      h.set(DEAD_LETTER_HEADERS.deliveryCount, String(origin.deliveryCount));
      if (letter.eventId) h.set(DEAD_LETTER_HEADERS.eventId, headerValue(letter.eventId));
      const traceparent = origin.headers?.get('traceparent');
      if (traceparent) h.set('traceparent', traceparent);
      const ack = await js.publish(deadLetterSubject(prefix, letter.type), origin.data, {
        headers: h,
        // A retry after a crash between publishing and term is dropped as a duplicate.
        msgID: `dlq:${origin.stream}:${origin.seq}`,
        timeout: timeoutMs,
      });
      return { duplicate: ack.duplicate };
    },
  };
}
