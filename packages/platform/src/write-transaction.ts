import { setTimeout as sleep } from 'node:timers/promises';
import { HOST_NOT_WRITABLE, withDbErrors, type Knex } from './db';
import { IdempotencyKeyInUseError } from './errors';
import { claimIdempotencyKey, recordIdempotentResult, type IdempotencyKey, type ResultCodec } from './idempotency';

export interface WriteTransactionOptions {
  /** Called after commit (not after rollback or replay): stores wake the outbox relay so events go out at once. */
  onCommitted?: () => void;
  idempotency?: { key: IdempotencyKey | undefined; codec: ResultCodec; ttlSeconds: number };
  /** Checked at start and before COMMIT, so abandoned work rolls back; a COMMIT already sent stands. */
  signal?: AbortSignal;
  /**
   * For writes whose correctness rests on it (stock writes need REPEATABLE READ's gap locks; a write
   * that inserts rows many transactions insert beside at once may need READ COMMITTED's absence of
   * them); absent: the server's default.
   */
  isolationLevel?: 'repeatable read' | 'read committed';
}

/**
 * How many times, and for how long, a write is tried again after a failure
 * that left nothing written (see retryable): a deadlock victim, a Galera
 * certification failure (reported as a deadlock, at COMMIT), a Galera node
 * that may not take writes, or a connection lost before COMMIT (the pool then
 * connects to the next of DATABASE_URL's hosts). Well below the callers'
 * deadline (the BFF's GRPC_DEADLINE_MS, 5 s), so a failover is seen by
 * nobody but the request in flight at that moment.
 */
export const WRITE_RETRY_ATTEMPTS = 6;
export const WRITE_RETRY_WITHIN_MS = 2000;

/** ER_LOCK_DEADLOCK: InnoDB chose this transaction as a deadlock's victim, or Galera's certification refused it. */
function isDeadlock(err: unknown): boolean {
  return (err as { errno?: number } | null)?.errno === 1213;
}

/**
 * ER_UNKNOWN_COM_ERROR from a Galera node outside the primary component ("WSREP has not yet prepared node for
 * application use"): nothing ran.
 */
export function isWsrepNotReady(err: unknown): boolean {
  return (err as { errno?: number } | null)?.errno === 1047;
}

/**
 * Where a failed attempt stopped: before anything was sent, inside the work (rolled back), or at COMMIT (the outcome
 * unknown).
 */
type FailedAt = 'connect' | 'work' | 'commit';

/**
 * Whether another attempt may run without writing twice. A deadlock or
 * certification failure rolled everything back; so did a failure inside the
 * work. A connection lost at COMMIT may have committed: only a keyed write
 * may try again, since its key then replays the recorded result.
 */
function retryable(err: unknown, at: FailedAt, keyed: boolean): boolean {
  if (isDeadlock(err) || isWsrepNotReady(err)) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (!(typeof code === 'string' && CONNECTION_LOST.has(code)) && !isClosedConnection(err)) return false;
  return at !== 'commit' || keyed;
}

/**
 * mysql2's answer to a statement sent on a connection it already saw close (the kill arrived between two
 * statements): fatal, with no code. The same loss as PROTOCOL_CONNECTION_LOST, only noticed one statement later.
 */
function isClosedConnection(err: unknown): boolean {
  const e = err as { fatal?: unknown; code?: unknown; message?: unknown } | null;
  return (
    e?.fatal === true && e.code === undefined && typeof e.message === 'string' && e.message.includes('closed state')
  );
}

/** The server went away or refused to connect (not a lock wait, not a time limit: those are about this request). */
const CONNECTION_LOST = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'ER_SERVER_SHUTDOWN',
  HOST_NOT_WRITABLE,
]);

/**
 * Retried as described at WRITE_RETRY_ATTEMPTS; with a key, a repeat gets the
 * recorded result (`key.replayed`) without running `work`.
 */
export async function writeTransaction<T>(
  db: Knex,
  work: (trx: Knex.Transaction) => Promise<T>,
  options: WriteTransactionOptions = {},
): Promise<T> {
  const { idempotency, signal } = options;
  const key = idempotency?.key;
  let failedAt: FailedAt = 'connect';
  const attempt = async (): Promise<{ value: T; replayed: boolean }> => {
    let failure: { err: unknown } | undefined;
    failedAt = 'connect';
    try {
      return await db.transaction(
        async (trx) => {
          failedAt = 'commit';
          try {
            signal?.throwIfAborted();
            if (!key || !idempotency) {
              const value = await work(trx);
              signal?.throwIfAborted();
              return { value, replayed: false };
            }
            const recorded = await claimIdempotencyKey(trx, key);
            if (recorded !== undefined) return { value: idempotency.codec.decode(recorded) as T, replayed: true };
            const value = await work(trx);
            await recordIdempotentResult(trx, key, idempotency.codec.encode(value), idempotency.ttlSeconds);
            signal?.throwIfAborted();
            return { value, replayed: false };
          } catch (err) {
            failure = { err };
            failedAt = 'work';
            throw err;
          }
        },
        options.isolationLevel ? { isolationLevel: options.isolationLevel } : undefined,
      );
    } catch (err) {
      // A failure that cost the connection (past max_allowed_packet) also fails ROLLBACK; report the work's own
      // failure.
      throw failure ? failure.err : err;
    }
  };
  const startedAt = performance.now();
  // A keyed write whose COMMIT may have landed: its replay is this request's own write.
  let commitInDoubt = false;
  const outcome = await withDbErrors(async () => {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (err) {
        if (!retryable(err, failedAt, key !== undefined) || signal?.aborted) throw err;
        const spent = n >= WRITE_RETRY_ATTEMPTS || performance.now() - startedAt > WRITE_RETRY_WITHIN_MS;
        // Two first requests with one key deadlock by design (see idempotency.ts): past the
        // attempts the other one is still running, which is what IN_USE tells the client.
        if (spent) throw key && isDeadlock(err) ? new IdempotencyKeyInUseError() : err;
        if (failedAt === 'commit') commitInDoubt = true;
        await sleep(5 * n + Math.random() * 20);
      }
    }
  });
  if (outcome.replayed && key && !commitInDoubt) key.replayed = true;
  else options.onCommitted?.();
  return outcome.value;
}
