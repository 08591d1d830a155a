/** The id rule shared by every service: a positive INT UNSIGNED, one message. */
import {
  checkPositiveId,
  ID_MENSAJES,
  MAX_UNSIGNED_INT,
  requirePositiveId,
  requirePositiveIds,
} from '@inventario/platform';
import { MAX_FILTER_IDS } from '../src/positive-id';
import { violationsOf } from '@inventario/testkit';

describe('requirePositiveId', () => {
  it.each([1, 12, MAX_UNSIGNED_INT])('accepts %d', (id) => {
    expect(requirePositiveId(id, 'id')).toBe(id);
    expect(checkPositiveId(id)).toEqual({ ok: id });
  });

  it.each<[string, unknown, string]>([
    ['0 (proto3 for a forgotten field)', 0, ID_MENSAJES.positivo],
    ['a negative id', -3, ID_MENSAJES.positivo],
    ['a fraction', 2.5, ID_MENSAJES.positivo],
    ['NaN', Number.NaN, ID_MENSAJES.positivo],
    ['a numeric string', '7', ID_MENSAJES.positivo],
    ['undefined', undefined, ID_MENSAJES.positivo],
    ['null', null, ID_MENSAJES.positivo],
    ['an id beyond INT UNSIGNED', MAX_UNSIGNED_INT + 1, ID_MENSAJES.maximo],
  ])('rejects %s naming the given field', (_case, value, mensaje) => {
    expect(violationsOf(() => requirePositiveId(value, 'bodegaId'))).toEqual([{ campo: 'bodegaId', mensaje }]);
    expect(checkPositiveId(value)).toEqual({ mensaje });
  });
});

describe('requirePositiveIds', () => {
  const range = (n: number, from = 1): number[] => Array.from({ length: n }, (_, i) => from + i);

  it.each<[string, number[], number[]]>([
    ['an empty filter as no filter', [], []],
    ['ids in the order given', [9, 3, 7], [9, 3, 7]],
    ['repeats once, first occurrence first', [4, 9, 4, 9, 4], [4, 9]],
    [`${MAX_FILTER_IDS} distinct ids`, range(MAX_FILTER_IDS), range(MAX_FILTER_IDS)],
    [
      'more entries than the maximum when repeats bring them under it',
      [...range(MAX_FILTER_IDS), 1, 2],
      range(MAX_FILTER_IDS),
    ],
  ])('returns %s', (_case, values, expected) => {
    expect(requirePositiveIds(values, 'ids')).toEqual(expected);
  });

  it.each<[string, number[], string]>([
    ['a 0 among valid ids', [1, 0], ID_MENSAJES.positivo],
    ['a negative id', [-1], ID_MENSAJES.positivo],
    ['an id beyond INT UNSIGNED', [MAX_UNSIGNED_INT + 1], ID_MENSAJES.maximo],
    [`${MAX_FILTER_IDS + 1} distinct ids`, range(MAX_FILTER_IDS + 1), ID_MENSAJES.demasiados],
  ])('rejects %s once, naming the filter', (_case, values, mensaje) => {
    expect(violationsOf(() => requirePositiveIds(values, 'bodegaIds'))).toEqual([{ campo: 'bodegaIds', mensaje }]);
  });
});
