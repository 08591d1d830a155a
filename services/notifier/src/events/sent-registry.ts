import { createHash } from 'node:crypto';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';

/**
 * One email per event across replicas, redeliveries and restarts
 * (docs/contract.md §6.4): a key goes `sending` (compare-and-set) -> `sent`.
 * A claim is taken over only when not refreshed within ack_wait, even by a
 * redelivery of the same message, whose first delivery may still be sending.
 * A crash between SMTP acceptance and `sent` can still email twice, with one Message-ID.
 */

/** Far longer than any redelivery takes, so bounded storage costs no duplicate. */
export const SENT_TTL_MS = 7 * 24 * 3600_000;

/** Older events are not emailed: the registry may have forgotten whether they were. */
export const EMAIL_HORIZON_MS = SENT_TTL_MS - 24 * 3600_000;

const entrySchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('sending'), since: z.string(), stream: z.string(), seq: z.number() }),
  z.object({ state: z.literal('sent'), sentAt: z.string(), messageId: z.string() }),
]);
type Entry = z.infer<typeof entrySchema>;

export interface Holder {
  stream: string;
  seq: number;
}

export interface Claim {
  readonly key: string;
  readonly revision: number;
  readonly holder: Holder;
  /** ISO 8601, kept across refreshes. */
  readonly since: string;
}

export type ClaimResult =
  | { status: 'claimed'; claim: Claim; takeover?: 'stale' }
  | { status: 'sent'; sentAt: string }
  /** `sameMessage`: the sender holds this very stream message and will ack or nak it itself. */
  | { status: 'busy'; retryInMs: number; sameMessage: boolean };

export interface SentRegistry {
  claim(eventId: string, holder: Holder): Promise<ClaimResult>;
  /** undefined when the claim is no longer ours. */
  refresh(claim: Claim): Promise<Claim | undefined>;
  /** Idempotent; overwrites whatever claim is there. */
  markSent(claim: Claim, sent: { messageId: string }): Promise<void>;
  /** Unless someone else holds the key by now. */
  release(claim: Claim): Promise<void>;
  /** Without claiming. */
  lookup(eventId: string): Promise<{ state: 'sent'; sentAt: string } | { state: 'sending' } | undefined>;
}

export interface SentRegistryOptions {
  bucket: string;
  /** The consumers' ack_wait. */
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

/** An existing bucket keeps its settings. */
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
      // A conflict: another replica wrote the key meanwhile; read again.
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
