import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { TooManyRequestsError } from './http-errors';

const AUTH_FAILURE_WINDOW_MS = 15 * 60_000;

/**
 * Basic-auth brute-force protection (docs/contract.md §3.3), per client IP and replica. Once the
 * failures are used up even right credentials get 429, or a 200 would reveal the password; a
 * success does not reset the count, or someone else's behind a shared address would. Both methods
 * are synchronous and run without an await between them, so pipelined guesses cannot all pass the
 * check before the first failure is counted.
 */
export interface AuthFailureLimit {
  refusal(req: Request): TooManyRequestsError | undefined;
  recordFailure(req: Request): void;
}

/** The client's key: its IP as `trust proxy` reads it, an IPv6 client by its /56 network. */
function clientKey(req: Request): string {
  return ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

interface Window {
  failures: number;
  endsAt: number;
}

export function createAuthFailureLimit(maxFailures: number, now: () => number = Date.now): AuthFailureLimit {
  const windows = new Map<string, Window>();
  // Ended windows are dropped at most once per window length, so memory is bounded by the clients of two windows.
  let nextSweep = now() + AUTH_FAILURE_WINDOW_MS;

  function current(key: string): Window | undefined {
    const window = windows.get(key);
    if (window && window.endsAt <= now()) {
      windows.delete(key);
      return undefined;
    }
    return window;
  }

  function sweep(): void {
    const at = now();
    if (at < nextSweep) return;
    nextSweep = at + AUTH_FAILURE_WINDOW_MS;
    for (const [key, window] of windows) if (window.endsAt <= at) windows.delete(key);
  }

  return {
    refusal(req) {
      const window = current(clientKey(req));
      if (!window || window.failures < maxFailures) return undefined;
      return new TooManyRequestsError(Math.max(1, Math.ceil((window.endsAt - now()) / 1000)));
    },
    recordFailure(req) {
      sweep();
      const key = clientKey(req);
      const window = current(key);
      if (window) window.failures += 1;
      else windows.set(key, { failures: 1, endsAt: now() + AUTH_FAILURE_WINDOW_MS });
    },
  };
}
