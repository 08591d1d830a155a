import { FIELD_MENSAJES, ID_MENSAJES, MAX_INT32, MAX_UNSIGNED_INT, PRECIO } from '@inventario/platform';

export { MAX_INT32 };

/**
 * Exact reading of JSON number texts (as lossless-json hands them over), so
 * money never passes through binary floating point: `19.999999999999999999`
 * is "more than 2 decimals", never 20. Exponent forms (`1e3`, `1.5E2`) and
 * trailing zeros (`5.0`, `19.90`) are read exactly too, since a client's
 * serializer may write them for values that are perfectly valid.
 */

/** A rule's outcome: the value, or the reason (a `mensaje`) it is rejected. */
export type Checked<T> = { ok: T } | { mensaje: string };

/**
 * Longest number text read. Every valid value fits in far fewer characters
 * (`99999999.99`, `4294967295`, or those with an exponent and zeros a
 * serializer may add); anything longer is refused before any work on it, so
 * a huge number in a body costs nothing beyond reading the body.
 */
export const MAX_NUMBER_TEXT = 64;

export const NUMBER_MENSAJES = {
  ...FIELD_MENSAJES,
  demasiadoLargo: `tiene demasiados dígitos (como máximo ${MAX_NUMBER_TEXT} caracteres)`,
} as const;

/** value = (negative ? -1 : 1) × digits × 10^scale, with `digits` free of leading and trailing zeros ('' for zero). */
interface Decomposed {
  negative: boolean;
  digits: string;
  scale: number;
}

/** Anchored at both ends and free of nested quantifiers: linear in the text's length. */
const JSON_NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * `digits` without leading and trailing zeros, and how many trailing zeros
 * went. A loop, not `/0+$/`: an unanchored regex retries from every zero of
 * a long run and takes quadratic time (seconds for `1` + 100000 zeros + `1`).
 */
function trimZeros(digits: string): { significant: string; trailingZeros: number } {
  let start = 0;
  while (start < digits.length && digits[start] === '0') start += 1;
  let end = digits.length;
  while (end > start && digits[end - 1] === '0') end -= 1;
  return { significant: digits.slice(start, end), trailingZeros: digits.length - end };
}

function decompose(text: string): Decomposed | undefined {
  const match = JSON_NUMBER.exec(text);
  if (!match) return undefined;
  const [, sign = '', integer = '', fraction = '', exponent = '0'] = match;
  const { significant, trailingZeros } = trimZeros(`${integer}${fraction}`);
  if (significant === '') return { negative: false, digits: '', scale: 0 };
  // Number() of a long exponent may be huge: only compared, never used to build text.
  return { negative: sign === '-', digits: significant, scale: Number(exponent) - fraction.length + trailingZeros };
}

/** Digits before the point and after it, in the exact value. */
function shape(d: Decomposed): { integerDigits: number; decimals: number } {
  return { integerDigits: Math.max(0, d.digits.length + d.scale), decimals: Math.max(0, -d.scale) };
}

/** The exact decimal text of a value already known to be small (few integer digits, few decimals). */
function plainText(d: Decomposed): string {
  if (d.digits === '') return '0';
  if (d.scale >= 0) return `${d.digits}${'0'.repeat(d.scale)}`;
  const padded = d.digits.padStart(-d.scale + 1, '0');
  return `${padded.slice(0, d.scale)}.${padded.slice(d.scale)}`;
}

/**
 * A price (DECIMAL(10,2)): >= 0, at most 2 decimals, at most 99999999.99,
 * as canonical text with two decimals (`"19.90"`).
 */
export function precioFromNumberText(text: string): Checked<string> {
  if (text.length > MAX_NUMBER_TEXT) return { mensaje: NUMBER_MENSAJES.demasiadoLargo };
  const d = decompose(text);
  if (!d) return { mensaje: NUMBER_MENSAJES.numero };
  if (d.negative) return { mensaje: NUMBER_MENSAJES.negativo };
  const { integerDigits, decimals } = shape(d);
  if (decimals > PRECIO.decimales) return { mensaje: NUMBER_MENSAJES.dosDecimales };
  if (integerDigits > PRECIO.digitosEnteros) return { mensaje: NUMBER_MENSAJES.precioMaximo };
  const [integer = '0', fraction = ''] = plainText(d).split('.');
  return { ok: `${integer}.${fraction.padEnd(2, '0')}` };
}

/** Why a whole number below `min` is rejected, in the services' words. */
function belowMinimum(min: number): string {
  if (min === 1) return ID_MENSAJES.positivo;
  if (min === 0) return NUMBER_MENSAJES.negativo;
  return NUMBER_MENSAJES.minimo(min);
}

/** A whole number within [min, max] (max at most MAX_UNSIGNED_INT). */
export function integerFromNumberText(text: string, min: number, max: number): Checked<number> {
  if (text.length > MAX_NUMBER_TEXT) return { mensaje: NUMBER_MENSAJES.demasiadoLargo };
  const d = decompose(text);
  if (!d) return { mensaje: NUMBER_MENSAJES.entero };
  const { integerDigits, decimals } = shape(d);
  if (decimals > 0) return { mensaje: NUMBER_MENSAJES.entero };
  if (d.negative) return { mensaje: belowMinimum(min) };
  if (integerDigits > String(MAX_UNSIGNED_INT).length) return { mensaje: NUMBER_MENSAJES.maximo(max) };
  const value = Number(plainText(d));
  if (value < min) return { mensaje: belowMinimum(min) };
  if (value > max) return { mensaje: NUMBER_MENSAJES.maximo(max) };
  return { ok: value };
}
