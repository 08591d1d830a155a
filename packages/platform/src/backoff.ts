export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

/** The one back-off rule: attempt 1 (or below) waits `baseMs`, doubling per failure, capped at `maxMs`. */
export function backoffDelayMs(attempt: number, { baseMs, maxMs }: BackoffOptions): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
}
