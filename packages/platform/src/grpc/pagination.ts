import { InvalidArgumentError } from '../errors';
import { MAX_UNSIGNED_INT } from '../positive-id';

/**
 * List pagination shared by every List RPC (AIP-158). Pages are ordered by id
 * and continue after the last id of the previous page (keyset), so inserts
 * and deletes between calls never shift or repeat rows and deep pages cost
 * no OFFSET scan. The page token is opaque to callers: the base64url text of
 * that last id.
 */

/** Served when page_size is 0 (proto3's "not set"). */
export const DEFAULT_PAGE_SIZE = 100;
/** Larger requests are served this many rows: AIP-158 says coerce, do not fail. */
export const MAX_PAGE_SIZE = 1000;

export const PAGE_MENSAJES = {
  pageSizeEntero: 'debe ser un número entero',
  pageSizeNegativo: 'no puede ser negativo',
  pageToken: 'no es un token de página válido (use el nextPageToken de una respuesta anterior)',
} as const;

/** The rows to serve for a requested page_size; InvalidArgumentError naming `pageSize` when negative. */
export function pageSizeOf(requested: number): number {
  if (!Number.isInteger(requested)) throw InvalidArgumentError.field('pageSize', PAGE_MENSAJES.pageSizeEntero);
  if (requested < 0) throw InvalidArgumentError.field('pageSize', PAGE_MENSAJES.pageSizeNegativo);
  return requested === 0 ? DEFAULT_PAGE_SIZE : Math.min(requested, MAX_PAGE_SIZE);
}

/** The token of the page that follows a page ending at `lastId`. */
export function encodePageToken(lastId: number): string {
  return Buffer.from(String(lastId), 'utf8').toString('base64url');
}

/**
 * The id a page continues after: null for '' (the first page), else the id
 * of a token we could have issued, else InvalidArgumentError naming
 * `pageToken`.
 */
export function decodePageToken(token: string): number | null {
  if (token === '') return null;
  const text = Buffer.from(token, 'base64url').toString('utf8');
  const id = /^[1-9]\d{0,9}$/.test(text) ? Number(text) : 0;
  // base64url decoding skips stray characters and padding, so several
  // strings decode to one id: only the exact encoding is ours.
  if (id === 0 || id > MAX_UNSIGNED_INT || encodePageToken(id) !== token) {
    throw InvalidArgumentError.field('pageToken', PAGE_MENSAJES.pageToken);
  }
  return id;
}
