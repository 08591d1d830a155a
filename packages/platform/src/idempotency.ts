import { createHash } from 'node:crypto';
import { isDuplicateEntry, isLockBusy, type Knex } from './db';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError, InvalidArgumentError } from './errors';
import type { Logger } from './logger';
import { startSampler } from './metrics/sampler';

/**
 * Idempotency keys (AIP-155 `request_id`), kept by the service that owns
 * the write. The key is claimed and the write's result recorded in the
 * write's own transaction, so "executed" and "recorded" commit together:
 * a write whose caller gave up (a deadline, a lost connection) and that
 * committed later is still found by the retry, which gets the committed
 * result; a write that rolled back leaves no record, and its retry executes.
 *
 * Concurrency: a committed record is found by a plain read and replayed.
 * A new key is claimed by its INSERT alone (no locking read, so no gap lock
 * that would make unrelated new keys deadlock). A repeat while the first
 * request is still in its transaction finds the first's uncommitted row and
 * is refused at once (IdempotencyKeyInUseError) rather than queued behind
 * it; once the first committed, a repeat replays it.
 */

const TABLE = 'idempotency_keys';

/** Creates the table of idempotency keys; call from a service migration. */
export async function createIdempotencyTable(db: Knex): Promise<void> {
  await db.schema.createTable(TABLE, (t) => {
    // sha256(user, method, key): fixed width whatever the user name and key.
    t.specificType('scope_hash', 'BINARY(32)').primary();
    t.string('method', 64).notNullable();
    // sha256 of the request without its key: the same key with another request is refused.
    t.specificType('request_hash', 'BINARY(32)').notNullable();
    // The recorded result, replayed to repeats (the owning store's codec).
    t.specificType('response', 'LONGBLOB').notNullable();
    t.dateTime('created_at', { precision: 3 }).notNullable().defaultTo(db.raw('CURRENT_TIMESTAMP(3)'));
    t.dateTime('expires_at', { precision: 3 }).notNullable().index('idempotency_keys_expires_at_idx');
  });
}

export async function dropIdempotencyTable(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists(TABLE);
}

/** A write's idempotency key, as a gRPC handler received it. */
export interface IdempotencyKey {
  /** sha256 of (user, method, key): a key is the caller's own, per method. */
  scope: Buffer;
  /** The gRPC method, kept for operators reading the table. */
  method: string;
  /** sha256 of the request with its key cleared. */
  requestHash: Buffer;
  /** Set by the write when it answered from the record instead of executing. */
  replayed: boolean;
}

/** 1 to 255 visible ASCII characters: what an HTTP header can carry unchanged. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export const IDEMPOTENCY_KEY_MENSAJE = 'debe tener de 1 a 255 caracteres ASCII visibles (sin espacios)';

/** Whether `key` is a well-formed idempotency key. */
export function isIdempotencyKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

function sha256(...parts: (string | Uint8Array)[]): Buffer {
  const hash = createHash('sha256');
  for (const part of parts) {
    // A length prefix keeps ("ab", "c") and ("a", "bc") apart.
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    hash.update(`${bytes.length}:`).update(bytes);
  }
  return hash.digest();
}

/**
 * The key of a request, or undefined when it carries none (`key` empty).
 * `request` is the request's canonical encoding without the key.
 * InvalidArgumentError on `campo` when the key is malformed.
 */
export function idempotencyKeyOf(usuario: string, method: string, key: string, request: Uint8Array, campo = 'requestId'): IdempotencyKey | undefined {
  if (key === '') return undefined;
  if (!isIdempotencyKey(key)) throw InvalidArgumentError.field(campo, IDEMPOTENCY_KEY_MENSAJE);
  return { scope: sha256(usuario, method, key), method, requestHash: sha256(request), replayed: false };
}

/**
 * How a store turns the results of its keyed writes into bytes for the
 * record, and back; a store decodes only what it encoded itself.
 */
export interface ResultCodec {
  encode(value: unknown): Buffer;
  decode(bytes: Buffer): unknown;
}

/**
 * A JSON codec whose `dateKeys` (at any depth) come back as Dates; enough
 * for the stores' results (records, lists of records, nothing).
 */
export function jsonResultCodec(dateKeys: readonly string[] = []): ResultCodec {
  const dates = new Set(dateKeys);
  return {
    encode: (value) => Buffer.from(JSON.stringify(value ?? null), 'utf8'),
    decode: (bytes) =>
      JSON.parse(bytes.toString('utf8'), (key, value: unknown) => (dates.has(key) && typeof value === 'string' ? new Date(value) : value)) as unknown,
  };
}

const LOOKUP = `SELECT request_hash, response, expires_at <= CURRENT_TIMESTAMP(3) AS expired FROM ${TABLE} WHERE scope_hash = ?`;

interface KeyRow {
  request_hash: Buffer;
  response: Buffer;
  expired: number | string;
}

/**
 * Inside the write's transaction: the recorded result of an earlier request
 * with this key, or undefined once the key is claimed for this one (the
 * caller then executes and calls recordIdempotentResult before commit).
 * An expired record is removed and the request executes anew.
 */
export async function claimIdempotencyKey(trx: Knex.Transaction, key: IdempotencyKey, campo = 'requestId'): Promise<Buffer | undefined> {
  // A committed record is replayed from a plain read: repeats of a finished
  // request never lock each other out.
  const [committed] = (await trx.raw(LOOKUP, [key.scope])) as [KeyRow[]];
  const found = committed[0];
  if (found && Number(found.expired) === 0) return recorded(found, key, campo);
  return claimLocked(trx, key, campo, found !== undefined);
}

/**
 * claimIdempotencyKey for an operation done in several transactions under
 * one key, each recording its progress (recordIdempotentResult) so that a
 * retry after a failure half-way resumes it: the recorded result, partial or
 * final (the store's codec tells them apart), or undefined once the key is
 * claimed. An existing record is always read locked (NOWAIT), also a
 * committed one, so two calls with one key never interleave their
 * transactions on it: the second is refused with IdempotencyKeyInUseError
 * while the first holds it.
 */
export async function claimResumableIdempotencyKey(trx: Knex.Transaction, key: IdempotencyKey, campo = 'requestId'): Promise<Buffer | undefined> {
  const [seen] = (await trx.raw(LOOKUP, [key.scope])) as [KeyRow[]];
  return claimLocked(trx, key, campo, seen[0] !== undefined);
}

/**
 * The locking half of a claim. An existing record (`exists`, from a plain
 * read) is read locked: a record lock, never a gap lock. A new key is
 * claimed by inserting it, without a locking read first: on a missing key
 * that read would lock the whole gap around it, and unrelated new keys would
 * then deadlock on their inserts. A request still holding this key
 * uncommitted makes the insert fail at once (in use), not wait behind it;
 * one that committed meanwhile makes it a duplicate (its record is used).
 */
async function claimLocked(trx: Knex.Transaction, key: IdempotencyKey, campo: string, exists: boolean): Promise<Buffer | undefined> {
  if (exists) {
    const row = await lockedRow(trx, key);
    if (row && Number(row.expired) === 0) return recorded(row, key, campo);
    if (row) await trx.raw(`DELETE FROM ${TABLE} WHERE scope_hash = ?`, [key.scope]);
  }
  try {
    // The connection's own setting (the pool may have set one) comes back after the insert.
    await trx.raw(`SET @inventario_lock_wait = @@SESSION.innodb_lock_wait_timeout, SESSION innodb_lock_wait_timeout = ${CLAIM_WAIT_SECONDS}`);
    await trx.raw(`INSERT INTO ${TABLE} (scope_hash, method, request_hash, response, expires_at) VALUES (?, ?, ?, '', CURRENT_TIMESTAMP(3))`, [
      key.scope,
      key.method,
      key.requestHash,
    ]);
  } catch (err) {
    if (isLockWaitTimeout(err)) throw new IdempotencyKeyInUseError();
    if (!isDuplicateEntry(err)) throw err;
    const row = await lockedRow(trx, key);
    if (!row) throw new IdempotencyKeyInUseError();
    return recorded(row, key, campo);
  } finally {
    await trx.raw('SET SESSION innodb_lock_wait_timeout = @inventario_lock_wait');
  }
  return undefined;
}

/**
 * How long a new key's insert waits on the same key held by a request still
 * running: not at all on MariaDB; MySQL's minimum is 1 s (it clamps 0 to 1).
 */
const CLAIM_WAIT_SECONDS = 0;

/** The row of an existing key, read latest and locked; IdempotencyKeyInUseError when a running request holds it. */
async function lockedRow(trx: Knex.Transaction, key: IdempotencyKey): Promise<KeyRow | undefined> {
  try {
    const [rows] = (await trx.raw(`${LOOKUP} FOR UPDATE NOWAIT`, [key.scope])) as [KeyRow[]];
    return rows[0];
  } catch (err) {
    if (isLockBusy(err)) throw new IdempotencyKeyInUseError();
    throw err;
  }
}

/** A lock wait that ran out (ER_LOCK_WAIT_TIMEOUT). */
function isLockWaitTimeout(err: unknown): boolean {
  return (err as { errno?: number } | null)?.errno === 1205;
}

/** The recorded result for a repeat of the same request; IdempotencyKeyReusedError for another request. */
function recorded(row: KeyRow, key: IdempotencyKey, campo: string): Buffer {
  if (!Buffer.from(row.request_hash).equals(key.requestHash)) throw new IdempotencyKeyReusedError(campo);
  return Buffer.from(row.response);
}

/** Inside the write's transaction, after the write: its result, kept for `ttlSeconds`. */
export async function recordIdempotentResult(trx: Knex.Transaction, key: IdempotencyKey, result: Buffer, ttlSeconds: number): Promise<void> {
  await trx.raw(`UPDATE ${TABLE} SET response = ?, expires_at = CURRENT_TIMESTAMP(3) + INTERVAL ? SECOND WHERE scope_hash = ?`, [
    result,
    ttlSeconds,
    key.scope,
  ]);
}

/** Deletes expired records, `batch` rows per statement so no lock is held long; returns how many. */
export async function pruneIdempotencyKeys(db: Knex, batch = 1000): Promise<number> {
  let total = 0;
  for (;;) {
    const [result] = (await db.raw(`DELETE FROM ${TABLE} WHERE expires_at <= CURRENT_TIMESTAMP(3) LIMIT ?`, [batch])) as [{ affectedRows: number }];
    total += result.affectedRows;
    if (result.affectedRows < batch) return total;
  }
}

/** How often expired idempotency keys are deleted. */
const IDEMPOTENCY_PRUNE_INTERVAL_MS = 10 * 60_000;

/** Deletes expired idempotency records in the background (a lookup already ignores them); returns stop(). */
export function startIdempotencyPruner(db: Knex, logger: Logger): () => Promise<void> {
  return startSampler('idempotency prune', IDEMPOTENCY_PRUNE_INTERVAL_MS, async () => {
    const deleted = await pruneIdempotencyKeys(db);
    if (deleted > 0) logger.info({ deleted }, 'pruned expired idempotency keys');
  }, logger);
}
