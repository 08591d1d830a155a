export interface BackoffOptions {
  /** The first delay. */
  baseMs: number;
  /** No delay is longer. */
  maxMs: number;
}

/**
 * The one back-off rule: `baseMs` before the second attempt, doubling after
 * each failure, capped at `maxMs` (attempt 1 waits `baseMs`; counts below 1
 * are read as 1).
 */
export function backoffDelayMs(attempt: number, { baseMs, maxMs }: BackoffOptions): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
}
