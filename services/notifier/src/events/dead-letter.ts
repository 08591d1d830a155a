import { jetstream, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { eventSubject, type EventType } from '@inventario/platform';

/**
 * A dead letter is the event byte for byte on `<prefix>_dlq.<type>`, stored
 * by the stream `<NATS_STREAM>_DLQ` until it is replayed, matched by no
 * consumer (README, "Dead letters"). Letters of releases before it were
 * published on `<prefix>.dlq.<type>` into the events' stream; the notifier
 * copies those over at start (events/jetstream-setup.ts).
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

/** The stream that keeps the letters until they are replayed, apart from the events and their limits. */
export function deadLetterStreamName(stream: string): string {
  return `${stream}_DLQ`;
}

/**
 * The letters' subjects: a root of their own, `<prefix>_dlq`, which the events' stream (`<prefix>.>`) does not capture.
 */
export function deadLetterSubjectPrefix(prefix: string): string {
  return `${prefix}_dlq`;
}

export function deadLetterSubject(prefix: string, type: EventType): string {
  return eventSubject(deadLetterSubjectPrefix(prefix), type);
}

/** Where releases before the letters' own stream published them: into the events' stream. */
export function legacyDeadLetterSubjects(prefix: string): string {
  return `${prefix}.dlq.>`;
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
