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

/**
 * The encoded size at which a List page stops early, whatever page_size
 * asked for: page_size is a maximum (AIP-158 allows fewer items with a
 * next_page_token). A page is at most this plus one item, so with rows of
 * up to ~66 KiB (a 64 KiB descripcion) no response nears the 4 MiB gRPC
 * message limit a client keeps, where 1000 such rows would be 66 MB.
 */
export const PAGE_BYTE_BUDGET = 1024 * 1024;

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

/**
 * Page tokens of bodega-svc's stock levels, ordered by (warehouse, product):
 * the pair a page ends at. Shared with the BFF, which starts a page at a
 * warehouse and product of its choosing (one warehouse's levels after the
 * product a GraphQL client saw last, or the next warehouse of a batch)
 * without reading the levels before it.
 */
export function encodeNivelPageToken(bodegaId: number, productoId: number): string {
  return Buffer.from(`${bodegaId}.${productoId}`, 'utf8').toString('base64url');
}

/** The pair a level page continues after: null for '' (the first page), else InvalidArgumentError naming `pageToken` unless we could have issued it. */
export function decodeNivelPageToken(token: string): { bodegaId: number; productoId: number } | null {
  if (token === '') return null;
  const match = /^([1-9]\d{0,9})\.([1-9]\d{0,9})$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  const after = match ? { bodegaId: Number(match[1]), productoId: Number(match[2]) } : null;
  if (!after || after.bodegaId > MAX_UNSIGNED_INT || after.productoId > MAX_UNSIGNED_INT || encodeNivelPageToken(after.bodegaId, after.productoId) !== token) {
    throw InvalidArgumentError.field('pageToken', PAGE_MENSAJES.pageToken);
  }
  return after;
}

/** One page of a List response: its items and the token of the next page ('' on the last). */
export interface ListPage<T> {
  items: T[];
  nextPageToken: string;
}

/**
 * The response page of `rows` read for a request (`hasMore`: rows beyond
 * them match too): the rows up to and including the one whose size takes
 * the total to `budget`, the rest left to the next page. `sizeOf` may
 * overstate an item's encoded size (a bound), never understate it. Never an
 * empty page while rows remain, so following tokens always ends.
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

/**
 * What the fields of a list item other than its strings take at most,
 * encoded: tags, string lengths, varints (a negative int32 takes 10 bytes),
 * two Timestamps (19 bytes each) and the item's own tag and length. A
 * Producto needs at most 81 bytes, a Bodega 73.
 */
const ITEM_FIXED_BYTES = 128;

/** A bound of a list item's encoded size (for listPageOf): the UTF-8 bytes of its strings plus its other fields at most. */
export function itemSizeBound(...texts: (string | null | undefined)[]): number {
  let size = ITEM_FIXED_BYTES;
  for (const text of texts) if (text) size += Buffer.byteLength(text, 'utf8');
  return size;
}
