/**
 * How values read in an email. Spanish, like the subjects, and independent
 * of the host's locale data (Intl output varies with the ICU build).
 */

const MESES = [
  'enero',
  'febrero',
  'marzo',
  'abril',
  'mayo',
  'junio',
  'julio',
  'agosto',
  'septiembre',
  'octubre',
  'noviembre',
  'diciembre',
] as const;

const two = (n: number) => String(n).padStart(2, '0');

/** `22 de noviembre de 2026, 14:03:07 UTC`: timestamps are UTC by contract, so say so. */
export function formatFecha(date: Date): string {
  const mes = MESES[date.getUTCMonth()] ?? '';
  const hora = `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}`;
  return `${date.getUTCDate()} de ${mes} de ${date.getUTCFullYear()}, ${hora} UTC`;
}

/** `2026-11-22T14:03:07Z`, for `<time datetime>`. */
export function formatIsoUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/**
 * `1234.50`. Events carry precio as a JSON number rendered from DECIMAL(10,2)
 * (at most 10 digits, so the double holds it exactly enough for toFixed(2));
 * a string, from another producer, is shown as sent.
 */
export function formatPrecio(precio: number | string | null | undefined): string {
  if (precio === null || precio === undefined) return '—';
  return typeof precio === 'number' ? precio.toFixed(2) : precio;
}

/** A value that may be absent, with the words shown instead. */
export function orElse(value: string | number | null | undefined, absent: string): string {
  return value === null || value === undefined || value === '' ? absent : String(value);
}

/**
 * `text` cut to its first `maxChars` characters (code points, so no emoji or
 * accented letter is split in half) followed by `…`, when it is longer;
 * otherwise `text` unchanged. Whitespace left at the cut is dropped, so the
 * ellipsis follows the last word.
 */
export function shorten(text: string, maxChars: number): string {
  const chars = Array.from(text);
  if (chars.length <= maxChars) return text;
  return `${chars.slice(0, maxChars).join('').trimEnd()}…`;
}
