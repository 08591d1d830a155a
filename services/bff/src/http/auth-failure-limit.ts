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
  /**
   * For a check that awaits (identidad-svc, issue 26): takes one of the address's remaining
   * failures *before* the credential is verified, so concurrent guesses cannot all pass the check
   * before the first failure counts. A slot held by a check in flight counts as a failure for
   * everyone else (refusal included) until the check ends: `fail()` keeps it as a failure,
   * `release()` gives it back. Exactly one of them counts; later calls do nothing.
   */
  reserve(req: Request): AuthSlot | TooManyRequestsError;
}

/** One reserved failure slot of an address. */
export interface AuthSlot {
  fail(): void;
  release(): void;
}

/** The client's key: its IP as `trust proxy` reads it, an IPv6 client by its /56 network. */
function clientKey(req: Request): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  // Every request passes here: an IPv4 address (no colon) is its own key, as ipKeyGenerator would answer.
  return ip.includes(':') ? ipKeyGenerator(ip) : ip;
}

interface Window {
  failures: number;
  endsAt: number;
}

export function createAuthFailureLimit(maxFailures: number, now: () => number = Date.now): AuthFailureLimit {
  const windows = new Map<string, Window>();
  // Slots held by checks in flight, per address; an entry is removed at 0, so this holds only addresses being checked.
  const pending = new Map<string, number>();
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

  function refusalOf(key: string): TooManyRequestsError | undefined {
    const window = current(key);
    const used = (window?.failures ?? 0) + (pending.get(key) ?? 0);
    if (used < maxFailures) return undefined;
    // Only slots in flight: they end within a call's deadline.
    if (!window || window.failures < maxFailures) return new TooManyRequestsError(1);
    return new TooManyRequestsError(Math.max(1, Math.ceil((window.endsAt - now()) / 1000)));
  }

  function recordFailureOf(key: string): void {
    sweep();
    const window = current(key);
    if (window) window.failures += 1;
    else windows.set(key, { failures: 1, endsAt: now() + AUTH_FAILURE_WINDOW_MS });
  }

  function unhold(key: string): void {
    const held = (pending.get(key) ?? 1) - 1;
    if (held <= 0) pending.delete(key);
    else pending.set(key, held);
  }

  return {
    // With no failure and no check in flight anywhere nobody can be refused: the client's address (`trust proxy`
    // parsing) is not worked out on every authenticated request (issue 26's cached read).
    refusal: (req) => (windows.size === 0 && pending.size === 0 ? undefined : refusalOf(clientKey(req))),
    recordFailure: (req) => recordFailureOf(clientKey(req)),
    reserve(req) {
      const key = clientKey(req);
      const refused = refusalOf(key);
      if (refused) return refused;
      pending.set(key, (pending.get(key) ?? 0) + 1);
      let open = true;
      return {
        fail() {
          if (!open) return;
          open = false;
          unhold(key);
          recordFailureOf(key);
        },
        release() {
          if (!open) return;
          open = false;
          unhold(key);
        },
      };
    },
  };
}
