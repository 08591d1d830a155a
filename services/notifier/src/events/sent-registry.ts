import { createHash } from 'node:crypto';
import {
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  type JetStreamManager,
  type StoredMsg,
} from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import { isPermissionViolation, StreamNotProvisionedError } from '@inventario/platform';

/**
 * One email per event across replicas, redeliveries and restarts
 * (docs/contract.md §6.4): a key goes `sending` (compare-and-set) -> `sent`.
 * A claim is taken over only when not refreshed within ack_wait, even by a
 * redelivery of the same message, whose first delivery may still be sending.
 * A crash between SMTP acceptance and `sent` can still email twice, with one Message-ID.
 *
 * Keys are read from the bucket's stream leader (STREAM.MSG.GET), never with
 * a direct get: a direct get may be answered by any replica, and a replica
 * catching up after a restart (nats-server before 2.9.17 even serves them
 * while its store is still being rebuilt, nats-io/nats-server#4162) answers
 * with an old value or none. Writes are compare-and-set at the leader and
 * stay safe either way, but a stale read made every claim of a key conflict
 * and look busy, which under a node loss stalled or dropped emails
 * (docs/decisions.md, "The notifier on a NATS cluster").
 */

/** Far longer than any redelivery takes, so bounded storage costs no duplicate. */
export const SENT_TTL_MS = 7 * 24 * 3600_000;

/** Older events are not emailed: the registry may have forgotten whether they were. */
export const EMAIL_HORIZON_MS = SENT_TTL_MS - 24 * 3600_000;

const entrySchema = z.discriminatedUnion('state', [
  z.object({
    state: z.literal('sending'),
    since: z.string(),
    stream: z.string(),
    seq: z.number(),
    token: z.string().optional(),
  }),
  z.object({ state: z.literal('sent'), sentAt: z.string(), messageId: z.string() }),
]);
type Entry = z.infer<typeof entrySchema>;

export interface Holder {
  stream: string;
  seq: number;
  /**
   * The delivery attempt's own id: a claim written with it, whose answer was
   * lost (the bucket's leader changed meanwhile), is recognised as ours when
   * the attempt claims again, instead of looking held by another delivery.
   */
  token?: string;
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
  /** Copies of a bucket created here (NATS_STREAM_REPLICAS); an existing one keeps its own. */
  replicas?: number;
  now?: () => number;
}

/** KV keys allow `[-/_=.A-Za-z0-9]`; a UUID is used as is, anything else hashed. */
export function sentKeyFor(eventId: string): string {
  return /^[A-Za-z0-9_-]{1,200}$/.test(eventId)
    ? eventId
    : `sha256-${createHash('sha256').update(eventId).digest('hex')}`;
}

function isCasConflict(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
      err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/**
 * Claiming kept meeting a concurrent write of the key: tried again later, like an unreachable registry, never taken for
 * a holder.
 */
export class ClaimContendedError extends Error {
  constructor(key: string) {
    super(`sent registry key ${key} kept changing while claiming it`);
    this.name = 'ClaimContendedError';
  }
}

/** The latest value of a key as its stream leader has it. */
interface Current {
  operation: 'PUT' | 'DEL' | 'PURGE';
  revision: number;
  created: Date;
  value: StoredMsg;
}

function decode(current: Current): Entry | undefined {
  try {
    const parsed = entrySchema.safeParse(current.value.json());
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The JetStream stream that holds a KV bucket. */
export function sentBucketStreamName(bucket: string): string {
  return `KV_${bucket}`;
}

/**
 * Opens the bucket, creating it when missing (where this NATS user may: under
 * the chart's authorization the provisioning Job creates it, and a missing
 * one is StreamNotProvisionedError, retried). An existing bucket keeps its
 * settings.
 */
export async function openSentBucket(nc: NatsConnection, bucket: string, replicas = 1): Promise<KV> {
  try {
    return await new Kvm(nc).create(bucket, {
      history: 1,
      ttl: SENT_TTL_MS,
      replicas,
      description: 'Inventario notifier: event ids already emailed',
    });
  } catch (err) {
    if (isPermissionViolation(err)) throw new StreamNotProvisionedError(sentBucketStreamName(bucket), { cause: err });
    throw err;
  }
}

/** The bucket and what reading and claiming in it need. */
interface SentBucket {
  kv: KV;
  jsm: JetStreamManager;
  stream: string;
  options: SentRegistryOptions;
  now: () => number;
}

const encode = (entry: Entry) => JSON.stringify(entry);

const claimValue = (holder: Holder, since: string) =>
  encode({
    state: 'sending',
    since,
    stream: holder.stream,
    seq: holder.seq,
    ...(holder.token ? { token: holder.token } : {}),
  });

export async function openSentRegistry(nc: NatsConnection, options: SentRegistryOptions): Promise<SentRegistry> {
  const kv = await openSentBucket(nc, options.bucket, options.replicas);
  const jsm = await jetstreamManager(nc);
  const stream = sentBucketStreamName(options.bucket);
  const now = options.now ?? Date.now;
  const bucket: SentBucket = { kv, jsm, stream, options, now };

  return {
    async claim(eventId, holder) {
      const key = sentKeyFor(eventId);
      // A conflict: another replica wrote the key meanwhile; read again.
      for (let i = 0; i < 3; i++) {
        const result = await attempt(bucket, key, holder);
        if (result !== 'conflict') return result;
      }
      throw new ClaimContendedError(key);
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
      await kv.put(
        claim.key,
        encode({ state: 'sent', sentAt: new Date(now()).toISOString(), messageId: sent.messageId }),
      );
    },
    async release(claim) {
      try {
        await kv.delete(claim.key, { previousSeq: claim.revision });
      } catch (err) {
        if (!isCasConflict(err)) throw err;
      }
    },
    async lookup(eventId) {
      const current = await read(bucket, sentKeyFor(eventId));
      if (!current || current.operation !== 'PUT') return undefined;
      const entry = decode(current);
      if (entry?.state === 'sent') return { state: 'sent', sentAt: entry.sentAt };
      const fresh = entry !== undefined && now() - current.created.getTime() < options.staleAfterMs;
      return fresh ? { state: 'sending' } : undefined;
    },
  };
}

/** kv.get, but from the stream's leader (see above). */
async function read(bucket: SentBucket, key: string): Promise<Current | undefined> {
  const { jsm, stream, options } = bucket;
  const value = await jsm.streams.getMessage(stream, { last_by_subj: `$KV.${options.bucket}.${key}` });
  if (!value) return undefined;
  const op = value.header?.get('KV-Operation');
  return { operation: op === 'DEL' || op === 'PURGE' ? op : 'PUT', revision: value.seq, created: value.time, value };
}

async function attempt(bucket: SentBucket, key: string, holder: Holder): Promise<ClaimResult | 'conflict'> {
  const { kv, options, now } = bucket;
  const since = new Date(now()).toISOString();
  const current = await read(bucket, key);
  try {
    if (!current || current.operation !== 'PUT') {
      const revision = current
        ? await kv.update(key, claimValue(holder, since), current.revision)
        : await kv.create(key, claimValue(holder, since));
      return { status: 'claimed', claim: { key, revision, holder, since } };
    }
    const entry = decode(current);
    if (entry?.state === 'sent') return { status: 'sent', sentAt: entry.sentAt };
    if (entry?.state === 'sending' && holder.token !== undefined && entry.token === holder.token) {
      // This attempt's own claim, written although its answer was lost.
      return { status: 'claimed', claim: { key, revision: current.revision, holder, since: entry.since } };
    }
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
