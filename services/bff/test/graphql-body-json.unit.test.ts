import fc from 'fast-check';
import { isLosslessNumber, parse as parseLossless } from 'lossless-json';
import { parseExactJson } from '../src/graphql/exact-json';

/** What the body's two readings gave before (issue 23): both values, or the refusal. */
function twoReadings(text: string): { value: unknown; exact: unknown } | 'refused' {
  try {
    return { exact: parseLossless(text), value: JSON.parse(text) as unknown };
  } catch {
    return 'refused';
  }
}

function oneReading(text: string): { value: unknown; exact: unknown } | 'refused' {
  try {
    return parseExactJson(text);
  } catch {
    return 'refused';
  }
}

const nested = (depth: number, inner: string) => `${'{"a":['.repeat(depth)}${inner}${']}'.repeat(depth)}`;

describe('a GraphQL body read once reads as the two readings did', () => {
  it.each([
    [
      'a query with string variables',
      '{"query":"query ($id: ID!) { producto(id: $id) { id } }","variables":{"id":"1"}}',
    ],
    ['a number', '{"query":"{ a }","variables":{"p":19.999999999999999999}}'],
    ['a negative number in an array', '{"variables":{"l":["x",-1]}}'],
    ['a key given twice with different strings', '{"query":"a","query":"b"}'],
    ['a key given twice with the same string', '{"query":"a","query":"a"}'],
    ['a key given twice with equal objects', '{"v":{"x":"1","y":"2"},"v":{"y":"2","x":"1"}}'],
    ['an array, then an object with the same keys', '{"v":["1"],"v":{"0":"1"}}'],
    ['a key given twice, once escaped', '{"query":"a","\\u0071uery":"b"}'],
    ['escaped keys that differ', '{"\\u0071":"a","\\u0072":"b"}'],
    ['one key in two objects', '{"a":{"k":"1"},"b":{"k":"1"},"k":"2"}'],
    ['one key in two objects of an array', '{"a":[{"k":"1"},{"k":"2"}]}'],
    ['a key after a nested object that had it', '{"a":{"b":"1"},"b":"2"}'],
    ['a key given twice after a nested object', '{"a":"1","n":{"a":"2"},"a":"3"}'],
    ['quotes, backslashes and digits in strings', '{"a\\\\":"\\\\\\"1","b":"\\"-2\\"","c":"[{3}]"}'],
    ['a key ending in a backslash, then the same key', '{"a\\\\":"1","a\\\\":"2"}'],
    ['whitespace around a colon', '{ "a" \n:\t"1" , "a"\r: "2" }'],
    ['__proto__', '{"__proto__":{"x":"1"},"query":"a"}'],
    ['true, false and null', '{"a":true,"b":false,"c":null,"a":true}'],
    ['a string', '"a"'],
    ['an array', '[{"query":"a"},{"query":"a"}]'],
    ['nesting a little deep', nested(63, '"x"')],
    ['nesting deeper', nested(64, '"x"')],
    ['nesting far too deep for lossless-json', nested(100_000, '"x"')],
    ['not JSON', '{"query": '],
    ['a lone surrogate', '{"query":"\\ud800"}'],
  ])('%s', (_case, text) => {
    expect(oneReading(text)).toEqual(twoReadings(text));
  });

  it('a body with no number and no repeated key is read once: the exact reading is the same value', () => {
    const read = parseExactJson('{"query":"{ a }","variables":{"id":"1","l":[{"k":"v"}]}}');
    expect(read.exact).toBe(read.value);
  });

  it('a number keeps its text', () => {
    const read = parseExactJson('{"variables":{"p":19.999999999999999999}}');
    const p = (read.exact as { variables: { p: unknown } }).variables.p;
    expect(isLosslessNumber(p) && p.value).toBe('19.999999999999999999');
    expect(read.value).toEqual({ variables: { p: 20 } });
  });

  const keyText = fc.constantFrom('"a"', '"b"', '"\\u0061"', '"a\\\\"', '"1"');
  const valueText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom('"a"', '"1"', '1', '1.0', '-2e3', 'true', 'null', '"\\"', '[]', '{}'),
      fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
      fc
        .array(fc.tuple(keyText, tie('value')), { maxLength: 4 })
        .map((pairs) => `{${pairs.map(([k, v]) => `${k}:${v}`).join(',')}}`),
    ),
  })).value;

  it('for any body of a few keys (repeated, escaped, nested) and values', () => {
    fc.assert(
      fc.property(valueText, fc.constantFrom('', ' ', '\n'), (text, space) => {
        const spaced = text.replaceAll(',', `${space},${space}`).replaceAll(':', `${space}:`);
        expect(oneReading(spaced)).toEqual(twoReadings(spaced));
      }),
      { numRuns: 2_000, seed: 20261130 },
    );
  });
});
