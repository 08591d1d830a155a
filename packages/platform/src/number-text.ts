import { FIELD_MENSAJES as M, MAX_NUMBER_TEXT, PRECIO } from './field-rules';
import { ID_MENSAJES, MAX_UNSIGNED_INT } from './positive-id';

/** A rule's outcome: the value, or the reason (a `mensaje`) it is rejected. */
export type Checked<T> = { ok: T } | { mensaje: string };

/*
 * Numbers are read from their exact text (a JSON number as lossless-json
 * hands it over, a GraphQL literal, producto-svc's decimal string), so money
 * never passes through binary floating point: `19.999999999999999999` has
 * more than 2 decimals, it is not 20. Exponents (`1e3`) and trailing zeros
 * (`5.0`, `1.500`) are read exactly: a serializer may write them for valid values.
 */

/** value = (negative ? -1 : 1) × digits × 10^scale, `digits` free of leading and trailing zeros ('' for zero). */
interface Decomposed {
  negative: boolean;
  digits: string;
  scale: number;
}

/** Anchored at both ends and free of nested quantifiers: linear in the text's length. */
const JSON_NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

function decompose(text: string): Decomposed | undefined {
  const match = JSON_NUMBER.exec(text);
  if (!match) return undefined;
  const [, sign = '', integer = '', fraction = '', exponent = '0'] = match;
  // Loops, not `/0+$/`: an unanchored regex retries from every zero of a long run (quadratic time).
  const digits = `${integer}${fraction}`;
  let start = 0;
  while (start < digits.length && digits[start] === '0') start += 1;
  let end = digits.length;
  while (end > start && digits[end - 1] === '0') end -= 1;
  if (start === end) return { negative: false, digits: '', scale: 0 };
  // Number() of a long exponent may be huge: only compared, never used to build text.
  return {
    negative: sign === '-',
    digits: digits.slice(start, end),
    scale: Number(exponent) - fraction.length + digits.length - end,
  };
}

/** Digits before the point and after it, in the exact value. */
const shape = (d: Decomposed) => ({
  integerDigits: Math.max(0, d.digits.length + d.scale),
  decimals: Math.max(0, -d.scale),
});

/** The exact decimal text of a value already known to be small. */
function plainText(d: Decomposed): string {
  if (d.digits === '') return '0';
  if (d.scale >= 0) return `${d.digits}${'0'.repeat(d.scale)}`;
  const padded = d.digits.padStart(-d.scale + 1, '0');
  return `${padded.slice(0, d.scale)}.${padded.slice(d.scale)}`;
}

/**
 * A price (DECIMAL(10,2)): >= 0, at most 2 decimals, at most 99999999.99, as canonical text with two decimals
 * (`"19.90"`; `-0` is `"0.00"`).
 */
export function precioFromNumberText(text: string): Checked<string> {
  if (text.length > MAX_NUMBER_TEXT) return { mensaje: M.demasiadoLargo };
  const d = decompose(text);
  if (!d) return { mensaje: M.numero };
  if (d.negative) return { mensaje: M.negativo };
  const { integerDigits, decimals } = shape(d);
  if (decimals > PRECIO.decimales) return { mensaje: M.dosDecimales };
  if (integerDigits > PRECIO.digitosEnteros) return { mensaje: M.precioMaximo };
  const [integer = '0', fraction = ''] = plainText(d).split('.');
  return { ok: `${integer}.${fraction.padEnd(2, '0')}` };
}

/** Why a whole number below `min` is rejected, in the BFF's words. */
const belowMinimum = (min: number) => (min === 1 ? ID_MENSAJES.positivo : min === 0 ? M.negativo : M.minimo(min));

/** A whole number within [min, max] (max at most MAX_UNSIGNED_INT); `debajo` says why one below `min` is refused. */
export function integerFromNumberText(
  text: string,
  min: number,
  max: number,
  debajo = belowMinimum(min),
): Checked<number> {
  if (text.length > MAX_NUMBER_TEXT) return { mensaje: M.demasiadoLargo };
  const d = decompose(text);
  if (!d || shape(d).decimals > 0) return { mensaje: M.entero };
  if (d.negative) return { mensaje: debajo };
  if (shape(d).integerDigits > String(MAX_UNSIGNED_INT).length) return { mensaje: M.maximo(max) };
  const value = Number(plainText(d));
  if (value < min) return { mensaje: debajo };
  return value > max ? { mensaje: M.maximo(max) } : { ok: value };
}
