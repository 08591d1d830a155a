import { createHash } from 'node:crypto';
import { isDuplicateEntry, isLockBusy, type Knex } from './db';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError, InvalidArgumentError } from './errors';
import type { Logger } from './logger';
import { startSampler } from './metrics/sampler';

/**
 * Idempotency keys (AIP-155 `request_id`) are claimed and their result
 * recorded in the write's own transaction, so "executed" and "recorded"
 * commit together and a rolled-back write leaves no record. A repeat while
 * the first is still running is refused at once, not queued behind it.
 */

const TABLE = 'idempotency_keys';

export async function createIdempotencyTable(db: Knex): Promise<void> {
  await db.schema.createTable(TABLE, (t) => {
    t.specificType('scope_hash', 'BINARY(32)').primary();
    t.string('method', 64).notNullable();
    t.specificType('request_hash', 'BINARY(32)').notNullable();
    t.specificType('response', 'LONGBLOB').notNullable();
    t.dateTime('created_at', { precision: 3 }).notNullable().defaultTo(db.raw('CURRENT_TIMESTAMP(3)'));
    t.dateTime('expires_at', { precision: 3 }).notNullable().index('idempotency_keys_expires_at_idx');
  });
}

export async function dropIdempotencyTable(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists(TABLE);
}

export interface IdempotencyKey {
  /** sha256 of (user, method, key): keys are per caller and method. */
  scope: Buffer;
  method: string;
  requestHash: Buffer;
  replayed: boolean;
}

/** What an HTTP header can carry unchanged. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export const IDEMPOTENCY_KEY_MENSAJE = 'debe tener de 1 a 255 caracteres ASCII visibles (sin espacios)';

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

/** undefined for an empty `key`; `request` is the canonical encoding without the key. */
export function idempotencyKeyOf(
  usuario: string,
  method: string,
  key: string,
  request: Uint8Array,
  campo = 'requestId',
): IdempotencyKey | undefined {
  if (key === '') return undefined;
  if (!isIdempotencyKey(key)) throw InvalidArgumentError.field(campo, IDEMPOTENCY_KEY_MENSAJE);
  return { scope: sha256(usuario, method, key), method, requestHash: sha256(request), replayed: false };
}

/** A store decodes only what it encoded itself. */
export interface ResultCodec {
  encode(value: unknown): Buffer;
  decode(bytes: Buffer): unknown;
}

/** `dateKeys`, at any depth, come back as Dates. */
export function jsonResultCodec(dateKeys: readonly string[] = []): ResultCodec {
  const dates = new Set(dateKeys);
  return {
    encode: (value) => Buffer.from(JSON.stringify(value ?? null), 'utf8'),
    decode: (bytes) =>
      JSON.parse(bytes.toString('utf8'), (key, value: unknown) =>
        dates.has(key) && typeof value === 'string' ? new Date(value) : value,
      ) as unknown,
  };
}

const LOOKUP =
  `SELECT request_hash, response, expires_at <= CURRENT_TIMESTAMP(3) AS expired FROM ${TABLE} ` +
  `WHERE scope_hash = ?`;

interface KeyRow {
  request_hash: Buffer;
  response: Buffer;
  expired: number | string;
}

/** undefined once the key is claimed for this request, which then records its result before commit. */
export async function claimIdempotencyKey(
  trx: Knex.Transaction,
  key: IdempotencyKey,
  campo = 'requestId',
): Promise<Buffer | undefined> {
  // A plain read, so repeats of a finished request never lock each other out.
  const [committed] = (await trx.raw(LOOKUP, [key.scope])) as [KeyRow[]];
  const found = committed[0];
  if (found && Number(found.expired) === 0) return recorded(found, key, campo);
  return claimLocked(trx, key, campo, found !== undefined);
}

/** For an operation whose transactions record progress under one key; read locked, so two calls never interleave. */
export async function claimResumableIdempotencyKey(
  trx: Knex.Transaction,
  key: IdempotencyKey,
  campo = 'requestId',
): Promise<Buffer | undefined> {
  const [seen] = (await trx.raw(LOOKUP, [key.scope])) as [KeyRow[]];
  return claimLocked(trx, key, campo, seen[0] !== undefined);
}

/** A new key is claimed by INSERT alone: a locking read of a missing key would gap-lock unrelated new keys. */
async function claimLocked(
  trx: Knex.Transaction,
  key: IdempotencyKey,
  campo: string,
  exists: boolean,
): Promise<Buffer | undefined> {
  if (exists) {
    const row = await lockedRow(trx, key);
    if (row && Number(row.expired) === 0) return recorded(row, key, campo);
    if (row) await trx.raw(`DELETE FROM ${TABLE} WHERE scope_hash = ?`, [key.scope]);
  }
  try {
    // The connection's own setting (the pool may have set one) comes back after the insert.
    await trx.raw(
      `SET @inventario_lock_wait = @@SESSION.innodb_lock_wait_timeout, SESSION innodb_lock_wait_timeout ` +
        `= ${CLAIM_WAIT_SECONDS}`,
    );
    await trx.raw(
      `INSERT INTO ${TABLE} (scope_hash, method, request_hash, response, expires_at) VALUES (?, ?, ?, '', ` +
        `CURRENT_TIMESTAMP(3))`,
      [key.scope, key.method, key.requestHash],
    );
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

/** Not at all on MariaDB; MySQL clamps 0 to 1 s. */
const CLAIM_WAIT_SECONDS = 0;

async function lockedRow(trx: Knex.Transaction, key: IdempotencyKey): Promise<KeyRow | undefined> {
  try {
    const [rows] = (await trx.raw(`${LOOKUP} FOR UPDATE NOWAIT`, [key.scope])) as [KeyRow[]];
    return rows[0];
  } catch (err) {
    if (isLockBusy(err)) throw new IdempotencyKeyInUseError();
    throw err;
  }
}

function isLockWaitTimeout(err: unknown): boolean {
  return (err as { errno?: number } | null)?.errno === 1205;
}

function recorded(row: KeyRow, key: IdempotencyKey, campo: string): Buffer {
  if (!Buffer.from(row.request_hash).equals(key.requestHash)) throw new IdempotencyKeyReusedError(campo);
  return Buffer.from(row.response);
}

export async function recordIdempotentResult(
  trx: Knex.Transaction,
  key: IdempotencyKey,
  result: Buffer,
  ttlSeconds: number,
): Promise<void> {
  await trx.raw(
    `UPDATE ${TABLE} SET response = ?, expires_at = CURRENT_TIMESTAMP(3) + INTERVAL ? SECOND WHERE scope_hash = ?`,
    [result, ttlSeconds, key.scope],
  );
}

/** `batch` rows per statement, so no lock is held long. */
export async function pruneIdempotencyKeys(db: Knex, batch = 1000): Promise<number> {
  let total = 0;
  for (;;) {
    const [result] = (await db.raw(`DELETE FROM ${TABLE} WHERE expires_at <= CURRENT_TIMESTAMP(3) LIMIT ?`, [
      batch,
    ])) as [{ affectedRows: number }];
    total += result.affectedRows;
    if (result.affectedRows < batch) return total;
  }
}

/** How often expired idempotency keys are deleted. */
const IDEMPOTENCY_PRUNE_INTERVAL_MS = 10 * 60_000;

/** Deletes expired idempotency records in the background (a lookup already ignores them); returns stop(). */
export function startIdempotencyPruner(db: Knex, logger: Logger): () => Promise<void> {
  return startSampler(
    'idempotency prune',
    IDEMPOTENCY_PRUNE_INTERVAL_MS,
    async () => {
      const deleted = await pruneIdempotencyKeys(db);
      if (deleted > 0) logger.info({ deleted }, 'pruned expired idempotency keys');
    },
    logger,
  );
}
