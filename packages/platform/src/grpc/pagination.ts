import { InvalidArgumentError } from '../errors';
import { MAX_UNSIGNED_INT } from '../positive-id';

/**
 * AIP-158 keyset pagination by id, so writes between calls never shift or repeat rows and deep pages cost no OFFSET
 * scan. Tokens are opaque.
 */

/** For page_size 0 (proto3's "not set"). */
export const DEFAULT_PAGE_SIZE = 100;
/** Larger requests are coerced, not refused (AIP-158). */
export const MAX_PAGE_SIZE = 1000;

/** A page stops early past this many bytes, so 1000 rows of 64 KiB never near a client's 4 MiB limit. */
export const PAGE_BYTE_BUDGET = 1024 * 1024;

export const PAGE_MENSAJES = {
  pageSizeEntero: 'debe ser un número entero',
  pageSizeNegativo: 'no puede ser negativo',
  pageToken: 'no es un token de página válido (use el nextPageToken de una respuesta anterior)',
} as const;

export function pageSizeOf(requested: number): number {
  if (!Number.isInteger(requested)) throw InvalidArgumentError.field('pageSize', PAGE_MENSAJES.pageSizeEntero);
  if (requested < 0) throw InvalidArgumentError.field('pageSize', PAGE_MENSAJES.pageSizeNegativo);
  return requested === 0 ? DEFAULT_PAGE_SIZE : Math.min(requested, MAX_PAGE_SIZE);
}

export function encodePageToken(lastId: number): string {
  return Buffer.from(String(lastId), 'utf8').toString('base64url');
}

/** null for '' (the first page); InvalidArgumentError for any token we could not have issued. */
export function decodePageToken(token: string): number | null {
  if (token === '') return null;
  const text = Buffer.from(token, 'base64url').toString('utf8');
  const id = /^[1-9]\d{0,9}$/.test(text) ? Number(text) : 0;
  // base64url decoding skips stray characters, so only the exact encoding is ours.
  if (id === 0 || id > MAX_UNSIGNED_INT || encodePageToken(id) !== token) {
    throw InvalidArgumentError.field('pageToken', PAGE_MENSAJES.pageToken);
  }
  return id;
}

/** Stock levels page by (warehouse, product); the BFF starts pages at pairs of its choosing. */
export function encodeNivelPageToken(bodegaId: number, productoId: number): string {
  return Buffer.from(`${bodegaId}.${productoId}`, 'utf8').toString('base64url');
}

export function decodeNivelPageToken(token: string): { bodegaId: number; productoId: number } | null {
  if (token === '') return null;
  const match = /^([1-9]\d{0,9})\.([1-9]\d{0,9})$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  const after = match ? { bodegaId: Number(match[1]), productoId: Number(match[2]) } : null;
  if (
    !after ||
    after.bodegaId > MAX_UNSIGNED_INT ||
    after.productoId > MAX_UNSIGNED_INT ||
    encodeNivelPageToken(after.bodegaId, after.productoId) !== token
  ) {
    throw InvalidArgumentError.field('pageToken', PAGE_MENSAJES.pageToken);
  }
  return after;
}

export interface ListPage<T> {
  items: T[];
  /** '' on the last page. */
  nextPageToken: string;
}

/**
 * `sizeOf` may overstate an item's encoded size, never understate it. Never an empty page while rows remain, so
 * following tokens always ends.
 */
export function listPageOf<T>(
  rows: readonly T[],
  hasMore: boolean,
  idOf: (row: T) => number,
  sizeOf: (row: T) => number,
  budget: number = PAGE_BYTE_BUDGET,
): ListPage<T> {
  let size = 0;
  let served = rows.length;
  for (let i = 0; i < rows.length; i++) {
    size += sizeOf(rows[i]!);
    if (size >= budget) {
      served = i + 1;
      break;
    }
  }
  const items = rows.slice(0, served);
  const last = items.at(-1);
  const more = hasMore || served < rows.length;
  return { items, nextPageToken: more && last !== undefined ? encodePageToken(idOf(last)) : '' };
}

/** A list item's encoded bytes other than its strings, at most (a Producto needs 81, a Bodega 73). */
const ITEM_FIXED_BYTES = 128;

export function itemSizeBound(...texts: (string | null | undefined)[]): number {
  let size = ITEM_FIXED_BYTES;
  for (const text of texts) if (text) size += Buffer.byteLength(text, 'utf8');
  return size;
}
