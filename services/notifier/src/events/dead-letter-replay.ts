import { jetstream, jetstreamManager, type MsgRequest, type StoredMsg } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { eventSubject, type EventType, type Logger } from '@inventario/platform';
import { DEAD_LETTER_HEADERS, deadLetterStreamName, deadLetterSubject } from './dead-letter';

/**
 * Republishes each letter of the dead letters' stream on its event subject,
 * then deletes it there (README, "Dead letters"); the events' stream's own
 * copy of the letter is left to its limits. The copy keeps the event id, so
 * the sent registry still allows one email per event, but gets its own
 * `Nats-Msg-Id`: the event id would be dropped as a duplicate within the
 * stream's 5-minute window.
 */

/** The letter's sequence in the dead letters' stream. */
export const REPLAYED_FROM_HEADER = 'Inventario-Replayed-From-Sequence';

export interface ReplayOptions {
  nc: NatsConnection;
  /** NATS_STREAM, the events' stream: the letters are read from `<stream>_DLQ`. */
  stream: string;
  prefix: string;
  types: readonly EventType[];
  /** Oldest first; undefined: every one. */
  limit?: number;
  dryRun?: boolean;
  logger: Logger;
}

export interface ReplayedLetter {
  type: EventType;
  deadLetterSeq: number;
  eventId: string | null;
  reason: string | null;
  /** An earlier run's copy when the stream dropped this one as a repeat. */
  seq: number | null;
}

export interface ReplayReport {
  dryRun: boolean;
  replayed: ReplayedLetter[];
  remaining: number;
}

const REPLAY_PUBLISH_TIMEOUT_MS = 5000;

export async function replayDeadLetters(options: ReplayOptions): Promise<ReplayReport> {
  const { nc, prefix, logger } = options;
  const stream = deadLetterStreamName(options.stream);
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const replayed: ReplayedLetter[] = [];
  let remaining = 0;

  // nats.js types `next_by_subj` only for direct gets.
  const nextOn = (subject: string, seq: number): Promise<StoredMsg | null> =>
    jsm.streams.getMessage(stream, { next_by_subj: subject, seq } as unknown as MsgRequest);

  for (const type of options.types) {
    const subject = deadLetterSubject(prefix, type);
    let from = 1;
    for (;;) {
      const letter = await nextOn(subject, from);
      if (!letter) break;
      from = letter.seq + 1;
      if (replayed.length >= limit) {
        remaining++;
        continue;
      }
      const entry: ReplayedLetter = {
        type,
        deadLetterSeq: letter.seq,
        eventId: letter.header?.get(DEAD_LETTER_HEADERS.eventId) || null,
        reason: letter.header?.get(DEAD_LETTER_HEADERS.reason) || null,
        seq: null,
      };
      if (options.dryRun) {
        replayed.push(entry);
        remaining++;
        continue;
      }
      const h = natsHeaders();
      h.set(REPLAYED_FROM_HEADER, String(letter.seq));
      const traceparent = letter.header?.get('traceparent');
      if (traceparent) h.set('traceparent', traceparent);
      const ack = await js.publish(eventSubject(prefix, type), letter.data, {
        headers: h,
        msgID: `replay:${stream}:${letter.seq}`,
        timeout: REPLAY_PUBLISH_TIMEOUT_MS,
      });
      // After the copy is stored: a crash in between leaves the letter for the next run.
      await jsm.streams.deleteMessage(stream, letter.seq, false);
      entry.seq = ack.seq;
      replayed.push(entry);
      logger.info({ ...entry, duplicate: ack.duplicate }, 'dead letter replayed');
    }
  }
  return { dryRun: options.dryRun === true, replayed, remaining };
}
