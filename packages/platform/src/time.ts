/** The public timestamp form: ISO 8601 without zone, always UTC, whole seconds (`2026-11-22T14:03:07`). */
export function formatLocalUtc(date: Date): string {
  return date.toISOString().slice(0, 19);
}

/** Whole seconds: the precision we store and publish. */
export function nowToSecond(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000);
}
