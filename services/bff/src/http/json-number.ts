import { ID_MENSAJES, MAX_UNSIGNED_INT } from '@inventario/platform';

/**
 * Exact reading of JSON number texts (as lossless-json hands them over), so
 * money never passes through binary floating point: `19.999999999999999999`
 * is "more than 2 decimals", never 20. Exponent forms (`1e3`, `1.5E2`) and
 * trailing zeros (`5.0`, `19.90`) are read exactly too, since a client's
 * serializer may write them for values that are perfectly valid.
 */

/** A rule's outcome: the value, or the reason (a `mensaje`) it is rejected. */
export type Checked<T> = { ok: T } | { mensaje: string };

/** Largest value of the INT columns (cantidadEnStock, capacidad). */
export const MAX_INT32 = 2_147_483_647;

export const NUMBER_MENSAJES = {
  negativo: 'no puede ser negativo',
  dosDecimales: 'admite como máximo 2 decimales',
  precioMaximo: 'no puede superar 99999999.99',
  entero: 'debe ser un número entero',
  maximo: (max: number) => `no puede superar ${max}`,
  minimo: (min: number) => `debe ser al menos ${min}`,
} as const;

/** value = (negative ? -1 : 1) × digits × 10^scale, with `digits` free of leading and trailing zeros ('' for zero). */
interface Decomposed {
  negative: boolean;
  digits: string;
  scale: number;
}

const JSON_NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

function decompose(text: string): Decomposed | undefined {
  const match = JSON_NUMBER.exec(text);
  if (!match) return undefined;
  const [, sign = '', integer = '', fraction = '', exponent = '0'] = match;
  const all = `${integer}${fraction}`.replace(/^0+/, '');
  const trimmed = all.replace(/0+$/, '');
  // Number() of an absurd exponent is huge or Infinity: only compared, never used to build text.
  const scale = Number(exponent) - fraction.length + (all.length - trimmed.length);
  return { negative: sign === '-' && trimmed !== '', digits: trimmed, scale: trimmed === '' ? 0 : scale };
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
  const d = decompose(text);
  if (!d) return { mensaje: 'debe ser un número' };
  if (d.negative) return { mensaje: NUMBER_MENSAJES.negativo };
  const { integerDigits, decimals } = shape(d);
  if (decimals > 2) return { mensaje: NUMBER_MENSAJES.dosDecimales };
  if (integerDigits > 8) return { mensaje: NUMBER_MENSAJES.precioMaximo };
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
