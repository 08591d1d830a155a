import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { TooManyRequestsError } from './http-errors';

/** The window failed authentications are counted in (AUTH_FAILURES_PER_15_MIN). */
const AUTH_FAILURE_WINDOW_MS = 15 * 60_000;

/**
 * Brute-force protection for Basic auth: at most `maxFailures` failed
 * authentications (a wrong or malformed Authorization header; a missing one
 * is how every client starts, and reveals nothing) per client IP in a fixed
 * 15-minute window that starts at its first failure. Once they are used up,
 * every request of that client is TooManyRequestsError (429, Retry-After =
 * the rest of the window) until the window ends, with right credentials
 * too: otherwise a guess that answers 200 instead of 429 would still tell
 * the attacker the password. A success does not reset the count (behind a
 * shared address, someone else's success would reset an attacker's).
 *
 * Both methods are synchronous, and the caller runs `refusal` and
 * `recordFailure` for one request without yielding in between: the check
 * and the count are one step. With an await between them, every request
 * already parsed (500 guesses pipelined on one connection, or sent on many)
 * would pass the check before the first failure was counted. Counts live
 * in this process's memory: per replica.
 */
export interface AuthFailureLimit {
  /** The refusal for a client that used up its failures, or undefined while it may still try. */
  refusal(req: Request): TooManyRequestsError | undefined;
  /** Counts one failed authentication of the request's client. */
  recordFailure(req: Request): void;
}

/** The client's key: its IP as `trust proxy` reads it, an IPv6 client by its /56 network. */
function clientKey(req: Request): string {
  return ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

interface Window {
  failures: number;
  /** Epoch ms when the window (and the client's block) ends. */
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
