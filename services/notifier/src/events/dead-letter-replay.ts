import { jetstream, jetstreamManager, type MsgRequest, type StoredMsg } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { eventSubject, type EventType, type Logger } from '@inventario/platform';
import { DEAD_LETTER_HEADERS, deadLetterSubject } from './dead-letter';

/**
 * Moves dead letters back for delivery (`npm run dlq:replay`, README "Dead
 * letters"): each letter's body, the original event byte for byte, is
 * published again on its event subject, where the notifier's consumer (and
 * any other reader of that subject) gets it as a new message; then the
 * letter is deleted from the stream.
 *
 * The rule that makes this safe with the notifier's one-email-per-event-id
 * registry: the copy keeps the event id (it is the same event) but gets its
 * own `Nats-Msg-Id`, `replay:<stream>:<letter sequence>`. The event id would
 * not do: within the stream's 5-minute window it repeats the original's and
 * the copy would be dropped. A dead-lettered event was never marked `sent`
 * (a failed send releases its claim), so the copy is claimed and emailed
 * like any event; one that was emailed after all (a letter written while
 * the registry was unreachable) finds `sent` and is acked without an email.
 * Replaying the same letter twice (a crash between publish and delete) is
 * dropped by the stream within 5 minutes, and by the registry after that.
 */

/** Header on a replayed copy: the stream sequence of the dead letter it came from. */
export const REPLAYED_FROM_HEADER = 'Inventario-Replayed-From-Sequence';

export interface ReplayOptions {
  nc: NatsConnection;
  stream: string;
  prefix: string;
  /** The event types whose letters are replayed, in this order. */
  types: readonly EventType[];
  /** At most this many letters in all (oldest first); undefined = every one. */
  limit?: number;
  /** List what would be replayed without publishing or deleting anything. */
  dryRun?: boolean;
  logger: Logger;
}

export interface ReplayedLetter {
  type: EventType;
  /** The letter's stream sequence (gone from the stream unless dryRun). */
  deadLetterSeq: number;
  eventId: string | null;
  reason: string | null;
  /** The copy's stream sequence (an earlier run's copy when the stream dropped this one as a repeat); null on a dry run. */
  seq: number | null;
}

export interface ReplayReport {
  dryRun: boolean;
  replayed: ReplayedLetter[];
  /** Letters of the chosen types still in the stream afterwards. */
  remaining: number;
}

const REPLAY_PUBLISH_TIMEOUT_MS = 5000;

export async function replayDeadLetters(options: ReplayOptions): Promise<ReplayReport> {
  const { nc, stream, prefix, logger } = options;
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const replayed: ReplayedLetter[] = [];
  let remaining = 0;

  /** The first message on `subject` at or after `seq`; JetStream's MSG.GET `next_by_subj` (nats-server 2.9+), which nats.js types only for direct gets. */
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
      // Only once the copy is stored: a crash in between leaves the letter for the next run.
      await jsm.streams.deleteMessage(stream, letter.seq, false);
      entry.seq = ack.seq;
      replayed.push(entry);
      logger.info({ ...entry, duplicate: ack.duplicate }, 'dead letter replayed');
    }
  }
  return { dryRun: options.dryRun === true, replayed, remaining };
}
