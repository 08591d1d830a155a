import fc from 'fast-check';
import * as losslessJson from 'lossless-json';
import { isLosslessNumber, LosslessNumber } from 'lossless-json';
import { parseRestJson } from '../src/http/json-body';
import { motivoSintaxisJson } from '../src/http/json-syntax';

// The real parse, counted: which bodies still need lossless-json's own reading.
jest.mock('lossless-json', () => {
  const actual = jest.requireActual<typeof losslessJson>('lossless-json');
  return { ...actual, parse: jest.fn(actual.parse) };
});
const losslessParse = jest.mocked(losslessJson.parse);
const { parse: parseLossless } = jest.requireActual<typeof losslessJson>('lossless-json');

/** What the REST reader gave before (issue 23): lossless-json's value, or its refusal in the answer's words. */
function before(text: string): { value: unknown } | { refused: string } {
  try {
    return { value: parseLossless(text) };
  } catch (err) {
    return { refused: motivoSintaxisJson(err) };
  }
}

function now(text: string): { value: unknown } | { refused: string } {
  try {
    return { value: parseRestJson(text) };
  } catch (err) {
    return { refused: motivoSintaxisJson(err) };
  }
}

const nested = (depth: number, inner: string) => `${'{"a":['.repeat(depth)}${inner}${']}'.repeat(depth)}`;

beforeEach(() => losslessParse.mockClear());

describe('a REST body read by JSON.parse reads as lossless-json read it', () => {
  it.each([
    ['a stock movement', '{"productoId":7,"tipo":"SALIDA","cantidad":1}', 'JSON.parse'],
    [
      'a product',
      '{"nombre":"Tornillo","descripcion":null,"precio":12.50,"cantidadEnStock":10,"bodegaId":3}',
      'JSON.parse',
    ],
    ['a big integer', '{"cantidad":12345678901234567890123}', 'JSON.parse'],
    ['a price no float holds', '{"precio":19.999999999999999999}', 'JSON.parse'],
    ['minus zero', '{"cantidad":-0}', 'JSON.parse'],
    ['an exponent past a double', '{"cantidad":1e400}', 'JSON.parse'],
    ['exponents', '{"a":1E+2,"b":-2.5e-3,"c":0.0}', 'JSON.parse'],
    ['numbers in nested arrays and objects', '{"a":[1,[2,-3],{"b":[4.0]}],"c":{"d":5}}', 'JSON.parse'],
    ['a number alone', '42', 'JSON.parse'],
    ['an array of numbers', ' [ 1 , 2 ,3 ] ', 'JSON.parse'],
    ['whitespace around numbers', '{ "a" :\t1 ,\n"b":\r2 }', 'JSON.parse'],
    ['integer-like keys (JS orders them first)', '{"2":1,"1":2,"b":3,"0":4}', 'JSON.parse'],
    ['__proto__ with a number', '{"__proto__":1,"a":2}', 'JSON.parse'],
    ['__proto__ with an object of numbers', '{"__proto__":{"x":1},"a":2}', 'JSON.parse'],
    ['digits, quotes and backslashes in strings', '{"a":"-1","b":"\\"2\\"","c":"[{3}]\\\\","d":4}', 'JSON.parse'],
    ['a key with an escaped backslash', '{"b\\\\":"\\"2\\"","d":4}', 'lossless-json'],
    ['escapes in values', '{"a":"\\u00e9\\n\\t\\/","b":1}', 'JSON.parse'],
    ['a lone surrogate', '{"a":"\\ud800","b":1}', 'JSON.parse'],
    ['true, false and null', '{"a":true,"b":false,"c":null,"d":[true,1,null]}', 'JSON.parse'],
    ['one key in two objects', '{"a":{"k":1},"b":{"k":2},"k":3}', 'JSON.parse'],
    ['nesting 64 deep', nested(32, '1'), 'JSON.parse'],
    ['a key given twice with different numbers', '{"cantidad":1,"cantidad":2}', 'lossless-json'],
    ['a key given twice with the same number', '{"cantidad":1,"cantidad":1}', 'lossless-json'],
    ['a key given twice with the same number written twice', '{"cantidad":1,"cantidad":1.0}', 'lossless-json'],
    ['a key given twice, once escaped', '{"cantidad":1,"\\u0063antidad":2}', 'lossless-json'],
    ['an escaped key', '{"\\u0063antidad":2}', 'lossless-json'],
    ['nesting 66 deep', nested(33, '1'), 'lossless-json'],
    ['a key given twice, a number under the first', '{"a":{"a":[0],"a":"a"}}', 'lossless-json'],
    ['a key given twice, an array then an object', '{"a":[1,2],"a":{"0":1}}', 'lossless-json'],
    ['a key given twice, two objects', '{"a":{"x":1},"a":{"x":2}}', 'lossless-json'],
    ['nesting far too deep for lossless-json', nested(100_000, '1'), 'lossless-json'],
    ['a leading zero', '{"cantidad":01}', 'lossless-json'],
    ['a minus alone', '{"cantidad":-}', 'lossless-json'],
    ['a point with no digit after it', '{"cantidad":1.}', 'lossless-json'],
    ['a trailing comma', '{"cantidad":1,}', 'lossless-json'],
    ['NaN', '{"cantidad":NaN}', 'lossless-json'],
    ['a byte order mark left in the text', '\ufeff{"cantidad":1}', 'lossless-json'],
    ['text after the value', '{"cantidad":1} x', 'lossless-json'],
    ['an unterminated string', '{"nombre":"x', 'lossless-json'],
  ])('%s (read by %s)', (_case, text, reader) => {
    expect(now(text)).toStrictEqual(before(text));
    expect(losslessParse).toHaveBeenCalledTimes(reader === 'lossless-json' ? 1 : 0);
  });

  it('a number keeps its text as a LosslessNumber', () => {
    const value = parseRestJson('{"precio":19.999999999999999999,"l":[-0,1e400]}') as Record<string, unknown>;
    expect(value.precio).toBeInstanceOf(LosslessNumber);
    expect(isLosslessNumber(value.precio) && value.precio.value).toBe('19.999999999999999999');
    expect((value.l as LosslessNumber[]).map((n) => n.value)).toEqual(['-0', '1e400']);
  });

  it('many distinct keys in one object are told apart in linear time', () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":${i}`);
    const text = `{${keys.join(',')}}`;
    const value = parseRestJson(text) as Record<string, LosslessNumber>;
    expect(Object.keys(value)).toHaveLength(100_000);
    expect(value.k99999!.value).toBe('99999');
    expect(losslessParse).not.toHaveBeenCalled();
  });

  const keyText = fc.constantFrom('"a"', '"b"', '"\\u0061"', '"a\\\\"', '"1"', '"0"', '"__proto__"');
  const numberText = fc.constantFrom('0', '-0', '1', '1.0', '-2e3', '1E+2', '1e400', '12345678901234567890', '0.1');
  const valueText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom('"a"', '"1"', '"-2"', 'true', 'false', 'null', '"\\\\"', '[]', '{}'),
      numberText,
      fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
      fc
        .array(fc.tuple(keyText, tie('value')), { maxLength: 4 })
        .map((pairs) => `{${pairs.map(([k, v]) => `${k}:${v}`).join(',')}}`),
    ),
  })).value;

  it('for any body of a few keys (repeated, escaped, nested) and numbers', () => {
    fc.assert(
      fc.property(valueText, fc.constantFrom('', ' ', '\n'), (text, space) => {
        const spaced = text.replaceAll(',', `${space},${space}`).replaceAll(':', `${space}:`);
        expect(now(spaced)).toStrictEqual(before(spaced));
      }),
      { numRuns: 2_000, seed: 20261130 },
    );
  });

  it('for any text cut or spliced from a valid body', () => {
    fc.assert(
      fc.property(
        valueText,
        fc.nat(),
        fc.nat(),
        fc.constantFrom('', '1', '-', '"', ',', '}', ']', ':', 'e'),
        (t, a, b, s) => {
          const at = a % (t.length + 1);
          const text = `${t.slice(0, at)}${s}${t.slice(at + (b % 3))}`;
          expect(now(text)).toStrictEqual(before(text));
        },
      ),
      { numRuns: 2_000, seed: 20261201 },
    );
  });
});
