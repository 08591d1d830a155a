import { createHash } from 'node:crypto';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';

/**
 * Which events were emailed: a JetStream KV bucket keyed by event id, shared
 * by every notifier replica, so one event gets one email across
 * redeliveries, duplicate publications and restarts (ARCHITECTURE §5).
 *
 * A key goes `sending` (claimed with a compare-and-set create, so two
 * replicas never both send one event) -> `sent` (after the SMTP server
 * accepted the email). A failed send deletes the claim so a later delivery
 * can claim it again. A claim left by a process that died mid-send is taken
 * over when JetStream redelivers that same stream message (the previous
 * delivery is then known to be over), or, for a copy of the event in another
 * message, once it is older than ack_wait. The one window where an event can
 * be emailed twice is a crash between the SMTP server's acceptance and the
 * `sent` mark; both copies then carry the same Message-ID.
 */

/**
 * How long a key is kept: far longer than any redelivery takes (max_deliver
 * times the longest backoff), so bounded storage costs no duplicate.
 */
export const SENT_TTL_MS = 7 * 24 * 3600_000;

/**
 * Events stored in the stream longer ago than this are not emailed: the
 * registry may have forgotten them (a day of margin below SENT_TTL_MS), so
 * one could not be told from one emailed already. This is what a consumer
 * created afresh on a stream with a long history meets.
 */
export const EMAIL_HORIZON_MS = SENT_TTL_MS - 24 * 3600_000;

const entrySchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('sending'), since: z.string(), stream: z.string(), seq: z.number() }),
  z.object({ state: z.literal('sent'), sentAt: z.string(), messageId: z.string() }),
]);
type Entry = z.infer<typeof entrySchema>;

/** The stream message a delivery is for. */
export interface Holder {
  stream: string;
  seq: number;
}

/** A claim this process holds on an event id. */
export interface Claim {
  key: string;
  revision: number;
}

export type ClaimResult =
  /** Ours: send now. `takeover` says whose claim it replaced, if any. */
  | { status: 'claimed'; claim: Claim; takeover?: 'redelivery' | 'stale' }
  /** Emailed already: ack without sending. */
  | { status: 'sent'; sentAt: string }
  /** Another delivery of this event id is sending right now: look again in `retryInMs`. */
  | { status: 'busy'; retryInMs: number };

export interface SentRegistry {
  claim(eventId: string, holder: Holder): Promise<ClaimResult>;
  /** Records the email as sent (idempotent; overwrites whatever claim is there). */
  markSent(claim: Claim, sent: { messageId: string }): Promise<void>;
  /** Drops our claim after a failed send, unless someone else holds the key by now. */
  release(claim: Claim): Promise<void>;
}

export interface SentRegistryOptions {
  bucket: string;
  /** A claim by another stream message older than this belongs to a dead process (ack_wait). */
  staleAfterMs: number;
  now?: () => number;
}

/** KV keys allow `[-/_=.A-Za-z0-9]`; a UUID is used as is, anything else hashed. */
export function sentKeyFor(eventId: string): string {
  return /^[A-Za-z0-9_-]{1,200}$/.test(eventId) ? eventId : `sha256-${createHash('sha256').update(eventId).digest('hex')}`;
}

function isCasConflict(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

function decode(entry: KvEntry): Entry | undefined {
  try {
    const parsed = entrySchema.safeParse(entry.json());
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Creates the bucket if missing (an existing one keeps its settings) and returns the registry. */
export async function openSentRegistry(nc: NatsConnection, options: SentRegistryOptions): Promise<SentRegistry> {
  const kv: KV = await new Kvm(nc).create(options.bucket, {
    history: 1,
    ttl: SENT_TTL_MS,
    description: 'Inventario notifier: event ids already emailed',
  });
  const now = options.now ?? Date.now;
  const encode = (entry: Entry) => JSON.stringify(entry);

  async function attempt(key: string, holder: Holder): Promise<ClaimResult | 'conflict'> {
    const claimValue = encode({ state: 'sending', since: new Date(now()).toISOString(), stream: holder.stream, seq: holder.seq });
    const current = await kv.get(key);
    try {
      if (!current || current.operation !== 'PUT') {
        return { status: 'claimed', claim: { key, revision: await kv.create(key, claimValue) } };
      }
      const entry = decode(current);
      if (entry?.state === 'sent') return { status: 'sent', sentAt: entry.sentAt };
      // JetStream redelivers a message only once its previous delivery is
      // over (nak'd, or ack_wait expired): a claim by this same message is dead.
      const sameMessage = entry !== undefined && entry.stream === holder.stream && entry.seq === holder.seq;
      const ageMs = now() - current.created.getTime();
      if (!sameMessage && ageMs < options.staleAfterMs) {
        return { status: 'busy', retryInMs: Math.max(1, options.staleAfterMs - ageMs) };
      }
      const revision = await kv.update(key, claimValue, current.revision);
      return { status: 'claimed', claim: { key, revision }, takeover: sameMessage ? 'redelivery' : 'stale' };
    } catch (err) {
      if (isCasConflict(err)) return 'conflict';
      throw err;
    }
  }

  return {
    async claim(eventId, holder) {
      const key = sentKeyFor(eventId);
      // A conflict means another replica wrote the key between our read and
      // write: read again to see what it did.
      for (let i = 0; i < 3; i++) {
        const result = await attempt(key, holder);
        if (result !== 'conflict') return result;
      }
      return { status: 'busy', retryInMs: 1000 };
    },
    async markSent(claim, sent) {
      await kv.put(claim.key, encode({ state: 'sent', sentAt: new Date(now()).toISOString(), messageId: sent.messageId }));
    },
    async release(claim) {
      try {
        await kv.delete(claim.key, { previousSeq: claim.revision });
      } catch (err) {
        if (!isCasConflict(err)) throw err;
      }
    },
  };
}
