import { setTimeout as sleep } from 'node:timers/promises';
import { withDbErrors, type Knex } from './db';
import { IdempotencyKeyInUseError } from './errors';
import { claimIdempotencyKey, recordIdempotentResult, type IdempotencyKey, type ResultCodec } from './idempotency';

export interface WriteTransactionOptions {
  /**
   * Called once the transaction has committed: stores pass the outbox
   * relay's wake-up, so the events committed with a write are published at
   * once rather than at the relay's next poll. A rolled-back transaction
   * (and a replay, which commits nothing) notifies nobody.
   */
  onCommitted?: () => void;
  /** The request's idempotency key, when it carries one, with how its result is recorded. */
  idempotency?: { key: IdempotencyKey | undefined; codec: ResultCodec; ttlSeconds: number };
  /**
   * Aborted when nobody waits for the result any more (a gRPC call
   * cancelled or past its deadline, CallContext.signal): the transaction
   * then rolls back instead of committing, and the promise rejects with
   * the signal's reason. Checked when the transaction starts and just
   * before COMMIT; a statement already running finishes first (the
   * statement time limit bounds it). A COMMIT already sent cannot be taken
   * back: that write stands, and a keyed retry finds it.
   */
  signal?: AbortSignal;
  /**
   * Pins the transaction's isolation level, for a write whose correctness
   * rests on one (the stock writes rely on REPEATABLE READ's gap locks)
   * whatever the server's default is. Absent: the server's default.
   */
  isolationLevel?: 'repeatable read';
}

/** Attempts of a transaction that InnoDB chose as a deadlock victim. */
const DEADLOCK_ATTEMPTS = 4;

/** MariaDB and MySQL: ER_LOCK_DEADLOCK. */
function isDeadlock(err: unknown): boolean {
  return (err as { errno?: number } | null)?.errno === 1213;
}

/**
 * Runs `work` in one transaction. A transaction that InnoDB aborted as a
 * deadlock victim is run again (it changed nothing), a few times. With an
 * idempotency key, the key is claimed first in the same transaction: a
 * repeat gets the recorded result (`key.replayed` set) without running
 * `work`, and a first request records its result before commit. Transient
 * driver failures surface as UnavailableError (withDbErrors).
 */
export async function writeTransaction<T>(
  db: Knex,
  work: (trx: Knex.Transaction) => Promise<T>,
  options: WriteTransactionOptions = {},
): Promise<T> {
  const { idempotency, signal } = options;
  const key = idempotency?.key;
  const attempt = async (): Promise<{ value: T; replayed: boolean }> => {
    let failure: { err: unknown } | undefined;
    try {
      return await db.transaction(async (trx) => {
        try {
          // A caller that gave up while this waited for a connection gets nothing done.
          signal?.throwIfAborted();
          if (!key || !idempotency) {
            const value = await work(trx);
            signal?.throwIfAborted();
            return { value, replayed: false };
          }
          const recorded = await claimIdempotencyKey(trx, key);
          // What this store recorded for the same request: of the type `work` returns.
          if (recorded !== undefined) return { value: idempotency.codec.decode(recorded) as T, replayed: true };
          const value = await work(trx);
          await recordIdempotentResult(trx, key, idempotency.codec.encode(value), idempotency.ttlSeconds);
          // The last moment to give up: a throw here rolls back, and the key stays unclaimed for the retry.
          signal?.throwIfAborted();
          return { value, replayed: false };
        } catch (err) {
          failure = { err };
          throw err;
        }
      }, options.isolationLevel ? { isolationLevel: options.isolationLevel } : undefined);
    } catch (err) {
      // A failure that also cost the connection (the server closes it after a
      // statement past max_allowed_packet) fails the ROLLBACK too, and knex
      // rejects with that: the work's own failure is the cause to report.
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
