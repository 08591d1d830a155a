import type { Request, Response } from 'express';
import {
  IDEMPOTENCY_KEY_MENSAJE,
  InvalidArgumentError,
  isIdempotencyKey,
  MAX_UNSIGNED_INT,
} from '@inventario/platform';
import type { WriteOptions } from '../inventario/model';

/**
 * The HTTP face of safe writes (docs/contract.md §9): a record's ETag is `"<version>"`. A
 * warehouse's is `"<version>.<ocupacion>"`: stock moving changes what a GET answers but is not an
 * edit, so a GET is 304 only while both are unchanged, and If-Match compares the version alone.
 */

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IF_MATCH_HEADER = 'If-Match';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

export function etagOf(version: number, ocupacion?: number): string {
  return ocupacion === undefined ? `"${version}"` : `"${version}.${ocupacion}"`;
}

/** RFC 9110 §8.8.3. */
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/** Undefined when `value` is no list of entity tags; ours hold no commas, so the list splits on them. */
function entityTags(value: string): { weak: boolean; opaque: string }[] | undefined {
  const tags = [];
  for (const part of value.split(',')) {
    const match = ENTITY_TAG.exec(part.trim());
    if (!match) return undefined;
    tags.push({ weak: match[1] !== undefined, opaque: match[2] ?? '' });
  }
  return tags;
}

const MENSAJES = {
  ifMatch: 'debe ser * o la ETag de la versión leída, p. ej. "3" (o "3.540" de una bodega)',
  unaEtiqueta: 'admite una sola ETag',
} as const;

/**
 * A tag that cannot be one of ours (weak, or no version number) becomes version 0, which no record
 * has, so the service answers 412 with the current version.
 */
function parseIfMatch(value: string): number | '*' {
  if (value.trim() === '*') return '*';
  const tags = entityTags(value);
  if (!tags || tags.length === 0) throw InvalidArgumentError.field(IF_MATCH_HEADER, MENSAJES.ifMatch);
  if (tags.length > 1) throw InvalidArgumentError.field(IF_MATCH_HEADER, MENSAJES.unaEtiqueta);
  const [tag] = tags;
  const version = tag && !tag.weak ? /^([1-9]\d{0,9})(?:\.\d{1,10})?$/.exec(tag.opaque)?.[1] : undefined;
  if (version === undefined || Number(version) > MAX_UNSIGNED_INT) return 0;
  return Number(version);
}

/** If-Match counts only when the method is conditional (PUT, DELETE). */
export function writeOptionsOf(req: Request, res: Response, { conditional }: { conditional: boolean }): WriteOptions {
  const write: WriteOptions = { onReplay: () => res.setHeader(REPLAYED_HEADER, 'true') };
  // Node joins a repeated header with ", ", which no key can hold (no spaces).
  const key = req.get(IDEMPOTENCY_KEY_HEADER);
  if (key !== undefined) {
    if (!isIdempotencyKey(key)) throw InvalidArgumentError.field(IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MENSAJE);
    write.idempotencyKey = key;
  }
  const ifMatch = req.headers['if-match'];
  if (conditional && ifMatch !== undefined) write.ifMatch = parseIfMatch(ifMatch);
  return write;
}

/** Weak comparison; a malformed If-None-Match is ignored (the full answer is always correct). */
export function notModified(req: Request, etag: string): boolean {
  const value = req.headers['if-none-match'];
  if (value === undefined) return false;
  if (value.trim() === '*') return true;
  return entityTags(value)?.some((tag) => `"${tag.opaque}"` === etag) ?? false;
}

export function sendRecord(req: Request, res: Response, etag: string, send: () => void): void {
  res.setHeader('ETag', etag);
  if (notModified(req, etag)) {
    res.status(304).end();
    return;
  }
  send();
}
