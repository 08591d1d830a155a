/** List pagination shared by every List RPC: page size coercion and opaque keyset page tokens. */
import {
  decodeNivelPageToken,
  decodePageToken,
  DEFAULT_PAGE_SIZE,
  encodeNivelPageToken,
  encodePageToken,
  itemSizeBound,
  listPageOf,
  MAX_PAGE_SIZE,
  pageSizeOf,
} from '@inventario/platform';
import { PAGE_MENSAJES } from '../src/grpc/pagination';
import { violationsOf } from '@inventario/testkit';

describe('pageSizeOf', () => {
  it.each<[number, number]>([
    [0, DEFAULT_PAGE_SIZE],
    [1, 1],
    [100, 100],
    [MAX_PAGE_SIZE, MAX_PAGE_SIZE],
    [MAX_PAGE_SIZE + 1, MAX_PAGE_SIZE],
    [2_147_483_647, MAX_PAGE_SIZE],
  ])('serves %i requested rows as %i (0 is the default, above the maximum is capped)', (requested, served) => {
    expect(pageSizeOf(requested)).toBe(served);
  });

  it.each<[number, string]>([
    [-1, PAGE_MENSAJES.pageSizeNegativo],
    [-2_147_483_648, PAGE_MENSAJES.pageSizeNegativo],
    [2.5, PAGE_MENSAJES.pageSizeEntero],
    [Number.NaN, PAGE_MENSAJES.pageSizeEntero],
  ])('rejects page size %p naming pageSize', (requested, mensaje) => {
    expect(violationsOf(() => pageSizeOf(requested))).toEqual([{ campo: 'pageSize', mensaje }]);
  });
});

describe('page tokens', () => {
  it('start the first page when empty', () => {
    expect(decodePageToken('')).toBeNull();
  });

  it.each([1, 42, 1_000_000, 4_294_967_295])('round-trip the last id %d as opaque base64url', (id) => {
    const token = encodePageToken(id);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageToken(token)).toBe(id);
  });

  it.each([
    ['not base64url', '***'],
    ['base64url of no digits', 'abc'],
    ['an arbitrary word', 'no-es-un-token'],
    ['padded', `${encodePageToken(42)}=`],
    ['with a stray character the decoder would skip', `${encodePageToken(42)}!`],
    ['a negative id', Buffer.from('-4').toString('base64url')],
    ['id 0', Buffer.from('0').toString('base64url')],
    ['a leading zero', Buffer.from('07').toString('base64url')],
    ['digits and letters', Buffer.from('12a').toString('base64url')],
    ['an id beyond INT UNSIGNED', Buffer.from('4294967296').toString('base64url')],
    ['an id of 11 digits', Buffer.from('10000000000').toString('base64url')],
  ])('reject a token that is %s, naming pageToken', (_case, token) => {
    expect(violationsOf(() => decodePageToken(token))).toEqual([
      { campo: 'pageToken', mensaje: PAGE_MENSAJES.pageToken },
    ]);
  });
});

describe('level page tokens (warehouse, product)', () => {
  it('start the first page when empty', () => {
    expect(decodeNivelPageToken('')).toBeNull();
  });

  it.each<[number, number]>([
    [1, 1],
    [7, 42],
    [4_294_967_295, 4_294_967_295],
  ])('round-trip the pair (%d, %d) as opaque base64url', (bodegaId, productoId) => {
    const token = encodeNivelPageToken(bodegaId, productoId);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeNivelPageToken(token)).toEqual({ bodegaId, productoId });
  });

  it.each([
    ['an id token of another list', encodePageToken(42)],
    ['an arbitrary word', 'no-es-un-token'],
    ['padded', `${encodeNivelPageToken(1, 2)}=`],
    ['a pair with id 0', Buffer.from('0.5').toString('base64url')],
    ['a pair beyond INT UNSIGNED', Buffer.from('4294967296.1').toString('base64url')],
    ['three ids', Buffer.from('1.2.3').toString('base64url')],
  ])('reject a token that is %s, naming pageToken', (_case, token) => {
    expect(violationsOf(() => decodeNivelPageToken(token))).toEqual([
      { campo: 'pageToken', mensaje: PAGE_MENSAJES.pageToken },
    ]);
  });
});

describe('listPageOf', () => {
  const rows = (...sizes: number[]) => sizes.map((size, i) => ({ id: 10 + i, size }));
  const page = (read: { id: number; size: number }[], hasMore: boolean, budget = 100) =>
    listPageOf(
      read,
      hasMore,
      (r) => r.id,
      (r) => r.size,
      budget,
    );

  it.each<[string, number[], boolean, number[], string]>([
    ['serves every row under the budget; no token on the last page', [10, 20, 30], false, [10, 11, 12], ''],
    [
      'serves every row under the budget; a token when more rows were read',
      [10, 20, 30],
      true,
      [10, 11, 12],
      encodePageToken(12),
    ],
    [
      'stops after the row that reaches the budget, the next page starting after it',
      [40, 60, 5],
      false,
      [10, 11],
      encodePageToken(11),
    ],
    [
      'stops after the row that passes the budget even when more were read',
      [50, 70, 5, 5],
      true,
      [10, 11],
      encodePageToken(11),
    ],
    ['serves one row alone larger than the budget, never an empty page', [500, 1], false, [10], encodePageToken(10)],
    ['serves nothing with no token when nothing was read', [], false, [], ''],
  ])('%s', (_case, sizes, hasMore, ids, token) => {
    const served = page(rows(...sizes), hasMore);
    expect(served.items.map((r) => r.id)).toEqual(ids);
    expect(served.nextPageToken).toBe(token);
  });
});

describe('itemSizeBound', () => {
  it('counts the UTF-8 bytes of the strings over a fixed bound of the other fields', () => {
    const fixed = itemSizeBound();
    expect(fixed).toBeGreaterThanOrEqual(81);
    expect(itemSizeBound('ñ', null, undefined, '19.90')).toBe(fixed + 2 + 5);
    expect(itemSizeBound('🍎'.repeat(10))).toBe(fixed + 40);
  });
});
