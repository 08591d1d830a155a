/** Spanish, and independent of the host's locale data (Intl output varies with the ICU build). */

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

/** Timestamps are UTC by contract, so say so. */
export function formatFecha(date: Date): string {
  const mes = MESES[date.getUTCMonth()] ?? '';
  const hora = `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}`;
  return `${date.getUTCDate()} de ${mes} de ${date.getUTCFullYear()}, ${hora} UTC`;
}

/** `2026-11-22T14:03:07Z`, for `<time datetime>`. */
export function formatIsoUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** From DECIMAL(10,2) a double is exact enough for toFixed(2); a string (another producer) is shown as sent. */
export function formatPrecio(precio: number | string | null | undefined): string {
  if (precio === null || precio === undefined) return '—';
  return typeof precio === 'number' ? precio.toFixed(2) : precio;
}

export function orElse(value: string | number | null | undefined, absent: string): string {
  return value === null || value === undefined || value === '' ? absent : String(value);
}

/** Counts code points, so no emoji or accented letter is split in half. */
export function shorten(text: string, maxChars: number): string {
  const chars = Array.from(text);
  if (chars.length <= maxChars) return text;
  return `${chars.slice(0, maxChars).join('').trimEnd()}…`;
}
