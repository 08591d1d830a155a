import { setTimeout as sleep } from 'node:timers/promises';
import { withDbErrors, type Knex } from './db';
import { IdempotencyKeyInUseError } from './errors';
import { claimIdempotencyKey, recordIdempotentResult, type IdempotencyKey, type ResultCodec } from './idempotency';

export interface WriteTransactionOptions {
  /** Called after commit (not after rollback or replay): stores wake the outbox relay so events go out at once. */
  onCommitted?: () => void;
  idempotency?: { key: IdempotencyKey | undefined; codec: ResultCodec; ttlSeconds: number };
  /** Checked at start and before COMMIT, so abandoned work rolls back; a COMMIT already sent stands. */
  signal?: AbortSignal;
  /** For writes whose correctness rests on it (stock writes need REPEATABLE READ's gap locks); absent: the server's default. */
  isolationLevel?: 'repeatable read';
}

const DEADLOCK_ATTEMPTS = 4;

/** ER_LOCK_DEADLOCK. */
function isDeadlock(err: unknown): boolean {
  return (err as { errno?: number } | null)?.errno === 1213;
}

/** Retried as a deadlock victim; with a key, a repeat gets the recorded result (`key.replayed`) without running `work`. */
export async function writeTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>, options: WriteTransactionOptions = {}): Promise<T> {
  const { idempotency, signal } = options;
  const key = idempotency?.key;
  const attempt = async (): Promise<{ value: T; replayed: boolean }> => {
    let failure: { err: unknown } | undefined;
    try {
      return await db.transaction(
        async (trx) => {
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
            throw err;
          }
        },
        options.isolationLevel ? { isolationLevel: options.isolationLevel } : undefined,
      );
    } catch (err) {
      // A failure that cost the connection (past max_allowed_packet) also fails ROLLBACK; report the work's own failure.
      throw failure ? failure.err : err;
    }
  };
  const outcome = await withDbErrors(async () => {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (err) {
        if (!isDeadlock(err)) throw err;
        // Two first requests with one key deadlock by design (see idempotency.ts): past the
        // attempts the other one is still running, which is what IN_USE tells the client.
        if (n >= DEADLOCK_ATTEMPTS) throw key ? new IdempotencyKeyInUseError() : err;
        await sleep(5 * n + Math.random() * 20);
      }
    }
  });
  if (outcome.replayed && key) key.replayed = true;
  else options.onCommitted?.();
  return outcome.value;
}
