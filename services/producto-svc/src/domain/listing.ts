import { InvalidArgumentError, type FieldViolation } from '@inventario/platform';
import { MAX_NOMBRE_CHARS, MENSAJES, requirePositiveId } from './producto';

/**
 * Listing products (AIP-158 pagination): pages are ordered by id and continue
 * after the last id of the previous page (keyset), so inserts and deletes
 * between pages never shift or repeat rows, and deep pages cost no OFFSET scan.
 */

export const DEFAULT_PAGE_SIZE = 100;
/** Larger requests are served this many rows (AIP-158: coerce, do not fail). */
export const MAX_PAGE_SIZE = 1000;

/** A validated list request. */
export interface ProductoQuery {
  pageSize: number;
  /** Continue after this id (from the page token); null for the first page. */
  afterId: number | null;
  /** Matching rows to skip before the page starts. */
  skip: number;
  /** When non-empty, only products assigned to one of these warehouses. */
  bodegaIds: number[];
  /** When non-null, only products whose nombre contains it (case-insensitive). */
  nombreContains: string | null;
}

/** A list request as it arrives: proto3 defaults (0, '') mean "not set". */
export interface ProductoQueryDraft {
  pageSize: number;
  pageToken: string;
  skip: number;
  bodegaIds: number[];
  nombreContains: string;
}

/** The token of the page that follows a page ending at `lastId`. */
export function encodePageToken(lastId: number): string {
  return Buffer.from(String(lastId), 'utf8').toString('base64url');
}

/** The id a page token continues after; undefined when the token is not one of ours. */
export function decodePageToken(token: string): number | undefined {
  const text = Buffer.from(token, 'base64url').toString('utf8');
  if (!/^[1-9]\d{0,9}$/.test(text)) return undefined;
  // Decoding is lenient (ignores stray characters); demand the exact encoding.
  const id = Number(text);
  return encodePageToken(id) === token ? id : undefined;
}

/** Validates a list request, naming every offending field. */
export function validateProductoQuery(draft: ProductoQueryDraft): ProductoQuery {
  const violations: FieldViolation[] = [];

  if (!Number.isInteger(draft.pageSize) || draft.pageSize < 0) {
    violations.push({ campo: 'pageSize', mensaje: MENSAJES.negativo });
  }
  if (!Number.isInteger(draft.skip) || draft.skip < 0) {
    violations.push({ campo: 'skip', mensaje: MENSAJES.negativo });
  }

  let afterId: number | null = null;
  if (draft.pageToken !== '') {
    const decoded = decodePageToken(draft.pageToken);
    if (decoded === undefined) violations.push({ campo: 'pageToken', mensaje: 'no es un token de página válido' });
    else afterId = decoded;
  }

  const bodegaIds: number[] = [];
  for (const id of draft.bodegaIds) {
    try {
      bodegaIds.push(requirePositiveId(id, 'bodegaIds'));
    } catch (err) {
      if (!(err instanceof InvalidArgumentError)) throw err;
      violations.push(...err.violations);
      break;
    }
  }

  if ([...draft.nombreContains].length > MAX_NOMBRE_CHARS) {
    violations.push({ campo: 'nombreContains', mensaje: MENSAJES.nombreLargo });
  }

  if (violations.length > 0) throw new InvalidArgumentError(violations);
  return {
    pageSize: draft.pageSize === 0 ? DEFAULT_PAGE_SIZE : Math.min(draft.pageSize, MAX_PAGE_SIZE),
    afterId,
    skip: draft.skip,
    bodegaIds: [...new Set(bodegaIds)],
    nombreContains: draft.nombreContains === '' ? null : draft.nombreContains,
  };
}
