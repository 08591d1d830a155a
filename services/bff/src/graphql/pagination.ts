import { decodePageToken, encodePageToken, InvalidArgumentError } from '@inventario/platform';
import type { CursorPage } from '../inventario/model';

/**
 * GraphQL's pagination arguments, `first: Int` and `after: String`, on
 * `Query.productos`, `Query.bodegas`, `Bodega.productos`, `Bodega.existencias`
 * and `Producto.existencias` (additive: without them a list is complete, as
 * the original clients expect). Lists are in id order and `after` is a keyset
 * cursor: the base64url text of the last id the client saw (the services'
 * page token; for a warehouse's levels the product's id, for a product's the
 * warehouse's), so a page never repeats or skips a row when others are
 * inserted or deleted between requests. The ledger (`movimientos`) is paged
 * by its own cursor instead (parseCursorPage).
 */

/** The largest `first`: the services' largest page, and REST's largest `limit`. */
export const MAX_FIRST = 1000;

export const PAGINATION_MENSAJES = {
  first: `debe estar entre 0 y ${MAX_FIRST}`,
  after: 'no es un cursor válido (use el id del último elemento recibido en base64url: el id "20" es "MjA")',
  firstDePagina: `debe estar entre 1 y ${MAX_FIRST}`,
  afterDePagina: 'no es un cursor válido (use el siguienteCursor de la página anterior, con el mismo filtro)',
} as const;

/** The arguments as the schema declares them; an explicit null means "not given". */
export interface PageArgs {
  first?: number | null;
  after?: string | null;
}

/** A validated page: absent fields mean "no bound". */
export interface Page {
  first?: number;
  afterId?: number;
}

/** The cursor that continues a list after the record `id` (what `after` takes). */
export function cursorAfter(id: number): string {
  return encodePageToken(id);
}

/**
 * The id a cursor continues after, else InvalidArgumentError naming `after`.
 * Standard base64 (`+/`, `=` padding, as `btoa` writes it) is read like its
 * base64url form.
 */
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

/** `first` and `after` checked: `first` in 0..MAX_FIRST, `after` a cursor; else InvalidArgumentError naming the argument. */
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
 * `first` and `after` of a list answered as a page with its own cursor
 * (`movimientos`: `MovimientosPagina.siguienteCursor`), which the service
 * issues and only it reads. `first` is 1..MAX_FIRST: a page of none would
 * have no cursor to continue from. `after` must look like a cursor (visible
 * ASCII, at most 1024 characters); whether it is one the service decides.
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
    if (!/^[\x21-\x7e]{1,1024}$/.test(args.after)) throw InvalidArgumentError.field('after', PAGINATION_MENSAJES.afterDePagina);
    page.cursor = args.after;
  }
  return page;
}
