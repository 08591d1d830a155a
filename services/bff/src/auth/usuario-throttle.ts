import { TooManyRequestsError } from '../http/http-errors';

const WINDOW_MS = 15 * 60_000;
/** Names followed at once; beyond it the oldest window is forgotten (a spray of random names cannot grow memory). */
const MAX_NAMES = 100_000;

/**
 * The per-user-name throttle against credential stuffing from many
 * addresses (each address stays under its own failure limit): once a name
 * has `maxFailures` failed logins in 15 minutes, from anywhere, attempts
 * for that name are let through at most one per `intervalMs`, the rest
 * answered 429 at once. A throttle, not a lock-out: the account is never
 * disabled, its owner still gets in at that rate, and it ends with the
 * window. Cached logins are throttled too while it lasts, or a guess could
 * be tested for free against the cache of the owner's recent login.
 */
export interface UsuarioThrottle {
  /** Undefined when this attempt may go on (and then it took the name's slot). */
  admit(usuario: string): TooManyRequestsError | undefined;
  recordFailure(usuario: string): void;
}

interface NameWindow {
  failures: number;
  endsAt: number;
  nextAt: number;
}

/** Names compare as identidad-svc compares them: NFC, case-insensitive. */
export const nombreClave = (usuario: string) => usuario.normalize('NFC').toLowerCase();

export function createUsuarioThrottle(
  maxFailures: number,
  intervalMs: number,
  now: () => number = Date.now,
): UsuarioThrottle {
  const windows = new Map<string, NameWindow>();

  function current(key: string): NameWindow | undefined {
    const window = windows.get(key);
    if (window && window.endsAt <= now()) {
      windows.delete(key);
      return undefined;
    }
    return window;
  }

  return {
    admit(usuario) {
      // Every request passes here: with no name failing anywhere, nothing to normalise or look up.
      if (windows.size === 0) return undefined;
      const window = current(nombreClave(usuario));
      if (!window || window.failures < maxFailures) return undefined;
      const at = now();
      if (at >= window.nextAt) {
        window.nextAt = at + intervalMs;
        return undefined;
      }
      return new TooManyRequestsError(Math.max(1, Math.ceil((window.nextAt - at) / 1000)));
    },
    recordFailure(usuario) {
      const key = nombreClave(usuario);
      const window = current(key);
      if (window) {
        window.failures += 1;
        return;
      }
      while (windows.size >= MAX_NAMES) {
        const oldest = windows.keys().next();
        if (oldest.done) break;
        windows.delete(oldest.value);
      }
      windows.set(key, { failures: 1, endsAt: now() + WINDOW_MS, nextAt: 0 });
    },
  };
}
