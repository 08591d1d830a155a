import { decodePageToken, encodePageToken, InvalidArgumentError } from '@inventario/platform';
import type { CursorPage } from '@inventario/contract';

/**
 * GraphQL's `first`/`after` (docs/contract.md §4.6): additive, so a list without them is complete
 * as the original clients expect. `after` is a keyset cursor, the base64url of the last id seen,
 * so a page never repeats or skips a row when others change between requests.
 */

/** The largest `first`: the services' largest page, and REST's largest `limit`. */
export const MAX_FIRST = 1000;

export const PAGINATION_MENSAJES = {
  first: `debe estar entre 0 y ${MAX_FIRST}`,
  after: 'no es un cursor válido (use el id del último elemento recibido en base64url: el id "20" es "MjA")',
  firstDePagina: `debe estar entre 1 y ${MAX_FIRST}`,
  afterDePagina: 'no es un cursor válido (use el siguienteCursor de la página anterior, con el mismo filtro)',
} as const;

/** An explicit null means "not given". */
export interface PageArgs {
  first?: number | null;
  after?: string | null;
}

export interface Page {
  first?: number;
  afterId?: number;
}

export function cursorAfter(id: number): string {
  return encodePageToken(id);
}

/** Standard base64 (as `btoa` writes it) is read like its base64url form. */
export function parseCursor(after: string): number {
  const normalized = after.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  let id: number | null = null;
  try {
    id = normalized === '' ? null : decodePageToken(normalized);
  } catch (err) {
    if (!(err instanceof InvalidArgumentError)) throw err;
  }
  if (id === null) throw InvalidArgumentError.field('after', PAGINATION_MENSAJES.after);
  return id;
}

export function parsePage(args: PageArgs): Page {
  const page: Page = {};
  if (args.first !== undefined && args.first !== null) {
    if (!Number.isInteger(args.first) || args.first < 0 || args.first > MAX_FIRST) {
      throw InvalidArgumentError.field('first', PAGINATION_MENSAJES.first);
    }
    page.first = args.first;
  }
  if (args.after !== undefined && args.after !== null) page.afterId = parseCursor(args.after);
  return page;
}

/**
 * For a list paged by the service's own cursor (`movimientos`): a page of none would have no cursor
 * to continue from, and whether `after` is a cursor only the service knows.
 */
export function parseCursorPage(args: PageArgs): CursorPage {
  const page: CursorPage = {};
  if (args.first !== undefined && args.first !== null) {
    if (!Number.isInteger(args.first) || args.first < 1 || args.first > MAX_FIRST) {
      throw InvalidArgumentError.field('first', PAGINATION_MENSAJES.firstDePagina);
    }
    page.limit = args.first;
  }
  if (args.after !== undefined && args.after !== null) {
    if (!/^[\x21-\x7e]{1,1024}$/.test(args.after))
      throw InvalidArgumentError.field('after', PAGINATION_MENSAJES.afterDePagina);
    page.cursor = args.after;
  }
  return page;
}
