import { InvalidArgumentError } from '@inventario/platform';

/**
 * Keyset pagination by id. A page token is opaque to callers: base64url of
 * the last id of the previous page. Keyset (rather than offset) keeps pages
 * stable while rows are inserted or deleted between calls.
 */

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** page_size 0 (unset) means the default; above the maximum is capped, as AIP-158 suggests. */
export function resolvePageSize(pageSize: number): number {
  if (!Number.isInteger(pageSize) || pageSize < 0) {
    throw InvalidArgumentError.field('pageSize', 'debe ser un número entero mayor o igual que 0');
  }
  if (pageSize === 0) return DEFAULT_PAGE_SIZE;
  return Math.min(pageSize, MAX_PAGE_SIZE);
}

export function encodePageToken(lastId: number): string {
  return Buffer.from(String(lastId), 'utf8').toString('base64url');
}

/** The id after which the page starts; 0 for an empty token (first page). */
export function decodePageToken(token: string): number {
  if (token === '') return 0;
  const invalid = () => InvalidArgumentError.field('pageToken', 'no es válido; use el nextPageToken de una respuesta anterior');
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw invalid();
  const text = Buffer.from(token, 'base64url').toString('utf8');
  if (!/^[1-9][0-9]{0,15}$/.test(text)) throw invalid();
  const id = Number(text);
  // Only tokens we could have issued: rejects aliases that decode to the same id.
  if (!Number.isSafeInteger(id) || encodePageToken(id) !== token) throw invalid();
  return id;
}
