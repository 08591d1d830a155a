import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, MemoryStore, type Options } from 'express-rate-limit';
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
 * Counting lives in express-rate-limit's MemoryStore (in memory: per
 * replica). Unlike its `skipSuccessfulRequests`, which counts every request
 * while it runs, only failures are counted here, so a busy client with the
 * right password is never limited by its own requests in flight.
 */
export interface AuthFailureLimit {
  /** Before the password check: refuses a client that used up its failures. */
  gate: RequestHandler;
  /** Counts one failed authentication of the request's client. */
  recordFailure(req: Request): Promise<void>;
}

/** The client's key: its IP as `trust proxy` reads it, an IPv6 client by its /56 network. */
function clientKey(req: Request): string {
  return ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

export function createAuthFailureLimit(maxFailures: number): AuthFailureLimit {
  const store = new MemoryStore();
  // The store reads only windowMs of the limiter's options.
  store.init({ windowMs: AUTH_FAILURE_WINDOW_MS } as Options);
  return {
    gate: async (req, _res, next) => {
      const info = await store.get(clientKey(req));
      if (info && info.totalHits >= maxFailures) {
        next(TooManyRequestsError.until(info.resetTime, AUTH_FAILURE_WINDOW_MS));
        return;
      }
      next();
    },
    async recordFailure(req) {
      await store.increment(clientKey(req));
    },
  };
}
