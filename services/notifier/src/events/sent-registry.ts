import { createHash } from 'node:crypto';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';

/**
 * Which events were emailed: a JetStream KV bucket keyed by event id, shared
 * by every notifier replica, so one event gets one email across
 * redeliveries, duplicate publications and restarts (docs/contract.md §6.4).
 *
 * A key goes `sending` (claimed with a compare-and-set create, so two
 * replicas never both send one event) -> `sent` (after the SMTP server
 * accepted the email). A failed send deletes the claim so a later delivery
 * can claim it again. While it sends, the holder refreshes its claim on the
 * message's heartbeat (every ack_wait / 3): a claim is stale, its holder
 * presumed dead, only when it was not refreshed within ack_wait, and only
 * then is it taken over. Who holds it does not matter: a redelivery of the
 * same stream message does not prove the earlier delivery over (ack_wait
 * may have run out while that process was still sending). The one window
 * where an event can be emailed twice is a crash between the SMTP server's
 * acceptance and the `sent` mark; both copies then carry the same Message-ID.
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

/** A claim this process holds on an event id (at the revision it last wrote). */
export interface Claim {
  readonly key: string;
  readonly revision: number;
  readonly holder: Holder;
  /** When the claim was first taken (ISO 8601), kept across refreshes. */
  readonly since: string;
}

export type ClaimResult =
  /** Ours: send now. `takeover: 'stale'` when it replaced a claim nobody refreshed within ack_wait. */
  | { status: 'claimed'; claim: Claim; takeover?: 'stale' }
  /** Emailed already: ack without sending. */
  | { status: 'sent'; sentAt: string }
  /**
   * Another delivery of this event id is sending right now and refreshing
   * its claim; it would be stale in `retryInMs` at the earliest.
   * `sameMessage`: that delivery is of this very stream message (ack_wait
   * ran out while it was sending), so it will ack or nak this message itself.
   */
  | { status: 'busy'; retryInMs: number; sameMessage: boolean };

export interface SentRegistry {
  claim(eventId: string, holder: Holder): Promise<ClaimResult>;
  /**
   * Keeps our claim fresh (the heartbeat calls it every ack_wait / 3).
   * Resolves to the claim at its new revision, or undefined when it is no
   * longer ours (taken over as stale, or marked sent).
   */
  refresh(claim: Claim): Promise<Claim | undefined>;
  /** Records the email as sent (idempotent; overwrites whatever claim is there). */
  markSent(claim: Claim, sent: { messageId: string }): Promise<void>;
  /** Drops our claim after a failed send, unless someone else holds the key by now. */
  release(claim: Claim): Promise<void>;
  /**
   * What the registry knows of an event without claiming it: emailed,
   * being sent (a claim refreshed within ack_wait), or nothing (undefined).
   */
  lookup(eventId: string): Promise<{ state: 'sent'; sentAt: string } | { state: 'sending' } | undefined>;
}

export interface SentRegistryOptions {
  bucket: string;
  /** A claim not refreshed for this long belongs to a dead process (the consumers' ack_wait). */
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

  const claimValue = (holder: Holder, since: string) => encode({ state: 'sending', since, stream: holder.stream, seq: holder.seq });

  async function attempt(key: string, holder: Holder): Promise<ClaimResult | 'conflict'> {
    const since = new Date(now()).toISOString();
    const current = await kv.get(key);
    try {
      if (!current || current.operation !== 'PUT') {
        const revision = await kv.create(key, claimValue(holder, since));
        return { status: 'claimed', claim: { key, revision, holder, since } };
      }
      const entry = decode(current);
      if (entry?.state === 'sent') return { status: 'sent', sentAt: entry.sentAt };
      // Every write of a claim is a refresh: its age is the time since its holder last showed life.
      const ageMs = now() - current.created.getTime();
      if (ageMs < options.staleAfterMs) {
        const sameMessage = entry !== undefined && entry.stream === holder.stream && entry.seq === holder.seq;
        return { status: 'busy', retryInMs: Math.max(1, options.staleAfterMs - ageMs), sameMessage };
      }
      const revision = await kv.update(key, claimValue(holder, since), current.revision);
      return { status: 'claimed', claim: { key, revision, holder, since }, takeover: 'stale' };
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
      return { status: 'busy', retryInMs: 1000, sameMessage: false };
    },
    async refresh(claim) {
      try {
        const revision = await kv.update(claim.key, claimValue(claim.holder, claim.since), claim.revision);
        return { ...claim, revision };
      } catch (err) {
        // Someone wrote the key since our last write: the claim is no longer ours.
        if (isCasConflict(err)) return undefined;
        throw err;
      }
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
    async lookup(eventId) {
      const current = await kv.get(sentKeyFor(eventId));
      if (!current || current.operation !== 'PUT') return undefined;
      const entry = decode(current);
      if (entry?.state === 'sent') return { state: 'sent', sentAt: entry.sentAt };
      const fresh = entry !== undefined && now() - current.created.getTime() < options.staleAfterMs;
      return fresh ? { state: 'sending' } : undefined;
    },
  };
}
