/**
 * The public timestamp form: ISO 8601 local form without zone, always UTC,
 * second precision, e.g. `2026-11-22T14:03:07`.
 */
export function formatLocalUtc(date: Date): string {
  return date.toISOString().slice(0, 19);
}

/** Now, truncated to whole seconds (the precision we store and publish). */
export function nowToSecond(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000);
}
