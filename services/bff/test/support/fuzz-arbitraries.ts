/**
 * fast-check arbitraries for the fuzz suites: JSON documents written as
 * text (so they can hold what JSON.stringify never writes: numbers such as
 * 1e400 or 30 digits, duplicate keys, `__proto__`), path ids and query
 * strings. Each mixes values a route accepts with hostile ones.
 */
import fc from 'fast-check';

/** A JSON value as a tree whose numbers are kept as text and whose objects are key/value lists. */
export type JsonTree = null | boolean | string | { num: string } | JsonTree[] | { entries: [string, JsonTree][] };

/** Serialises a JsonTree: numbers verbatim, keys in order, duplicates kept. */
export function jsonText(tree: JsonTree): string {
  if (tree === null || typeof tree === 'boolean' || typeof tree === 'string') return JSON.stringify(tree);
  if (Array.isArray(tree)) return `[${tree.map(jsonText).join(',')}]`;
  if ('num' in tree) return tree.num;
  return `{${tree.entries.map(([key, value]) => `${JSON.stringify(key)}:${jsonText(value)}`).join(',')}}`;
}

/** Number texts: ordinary, negative, fractional, too precise, huge, tiny, exponent forms. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: -5, max: 2_000 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom(
    '0',
    '-0',
    '19.90',
    '19.999',
    '0.001',
    '99999999.99',
    '100000000',
    '1e3',
    '1E-7',
    '1e400',
    '-1e400',
    '2147483648',
    '9007199254740993',
    '123456789012345678901234567890',
    '0.1234567890123456789',
    `1${'0'.repeat(80)}`,
  ),
);

/** Strings: ASCII, any Unicode (astral planes included), lone surrogates, control and markup characters, long. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'Bodega Central',
      '\u0000',
      '\ud800',
      'a\ud83dz',
      '<script>alert(1)</script>',
      "' OR 1=1 --",
      '%00',
      'ñandú ü €',
      '😀',
    ),
  },
  // Just over the limits of nombre (255) and descripcion (65,535 bytes); in a URL, over Node's 16 KiB of headers.
  { weight: 1, arbitrary: fc.constantFrom(256, 1_000, 65_536, 70_000).map((n) => 'x'.repeat(n)) },
);

/** Keys a hostile client may send: prototype keys, empty, unicode, near-misses of real fields. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    '',
    ' nombre',
    'Nombre',
    'cantidad',
    'id',
    'fechaCreacion',
  ),
  fc.string({ maxLength: 12 }),
);

/** Any JSON value, nested a few levels deep, with hostile numbers, strings and keys. */
export const hostileJson: fc.Arbitrary<JsonTree> = fc.letrec<{ value: JsonTree }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    hostileString,
    numberText.map((num) => ({ num })),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 }).map((entries) => ({ entries })),
  ),
})).value;

/** A value for one field: mostly of the right kind, often of a wrong one. */
export function fieldValue(kind: 'text' | 'number' | 'integer' | 'id'): fc.Arbitrary<JsonTree> {
  const right: Record<typeof kind, fc.Arbitrary<JsonTree>> = {
    text: hostileString,
    number: numberText.map((num) => ({ num })),
    integer: fc.oneof(
      fc.integer({ min: -3, max: 5_000 }).map((n) => ({ num: String(n) })),
      numberText.map((num) => ({ num })),
    ),
    id: fc.oneof(
      fc.integer({ min: 1, max: 8 }).map((n) => ({ num: String(n) })),
      fc.integer({ min: 1, max: 8 }).map(String),
      numberText.map((num) => ({ num })),
    ),
  };
  return fc.oneof({ weight: 4, arbitrary: right[kind] }, { weight: 1, arbitrary: hostileJson });
}

/** A value the API accepts for a field of this kind (a short name, a price with two decimals, a small count, an existing id). */
function validValue(kind: 'text' | 'number' | 'integer' | 'id'): fc.Arbitrary<JsonTree> {
  switch (kind) {
    case 'text':
      return fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 30 }).map((text) => `Fuzz ${text}`);
    case 'number':
      return fc.integer({ min: 0, max: 9_999_999 }).map((cents) => ({ num: (cents / 100).toFixed(2) }));
    case 'integer':
      return fc.integer({ min: 0, max: 5_000 }).map((n) => ({ num: String(n) }));
    case 'id':
      return fc.integer({ min: 1, max: 3 }).map((n) => ({ num: String(n) }));
  }
}

/**
 * A JSON object built from a route's fields: either every field with a
 * value the API accepts, or each field present or not, with a right or
 * wrong value, plus sometimes an unknown, duplicate or prototype key.
 */
export function objectOf(fields: Record<string, 'text' | 'number' | 'integer' | 'id'>): fc.Arbitrary<JsonTree> {
  const valid = fc
    .tuple(
      ...Object.entries(fields).map(([key, kind]) => validValue(kind).map((value): [string, JsonTree] => [key, value])),
    )
    .map((entries): JsonTree => ({ entries }));
  return fc.oneof({ weight: 1, arbitrary: valid }, { weight: 3, arbitrary: hostileObjectOf(fields) });
}

function hostileObjectOf(fields: Record<string, 'text' | 'number' | 'integer' | 'id'>): fc.Arbitrary<JsonTree> {
  const known = Object.entries(fields).map(([key, kind]) =>
    fc.option(
      fieldValue(kind).map((value): [string, JsonTree] => [key, value]),
      { freq: 4 },
    ),
  );
  return fc
    .tuple(fc.tuple(...known), fc.array(fc.tuple(hostileKey, hostileJson), { maxLength: 2 }))
    .map(([entries, extra]) => ({
      entries: [...entries.filter((e): e is [string, JsonTree] => e !== null), ...extra],
    }));
}

/** RFC 3986 percent-encoding of the UTF-8 bytes (a lone surrogate, which encodeURIComponent refuses, becomes U+FFFD). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Path ids: existing small ids, zero, negative, fractional, huge, words, unicode, escapes (percent-encoded for the URL). */
export const pathId: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 8 }).map(String) },
    fc.constantFrom(
      '0',
      '-1',
      '1.5',
      '1e3',
      '01',
      '+1',
      ' 1',
      '0x10',
      '4294967296',
      '9007199254740993',
      `9${'9'.repeat(40)}`,
    ),
    fc.constantFrom('abc', 'null', '__proto__', '..', '%zz'),
    hostileString.filter((s) => s !== '' && s !== '.' && s !== '..'),
  )
  .map((id) => (id === '%zz' ? id : percentEncode(id)));

/** A query string (with its `?`, or empty) over the route's parameter names and hostile ones; repeated keys included. */
export function queryString(names: readonly string[]): fc.Arbitrary<string> {
  const key = names.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...names) }, hostileKey) : hostileKey;
  const value = fc.oneof(numberText, hostileString, fc.constantFrom('true', 'false', 'TRUE', '1', ''));
  return fc.array(fc.tuple(key, value), { maxLength: 4 }).map((pairs) => {
    if (pairs.length === 0) return '';
    return `?${pairs.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&')}`;
  });
}
