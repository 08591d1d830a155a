import { hash, randomBytes } from 'node:crypto';
import type { Autenticacion } from '../downstream/identidad-client';

/**
 * The verified-credential cache (docs/decisions.md, "Identities at the
 * gateway"): a Basic password or a Bearer token identidad-svc accepted,
 * kept at most `ttlMs` (<= 60 s) so the next request with the same
 * credential costs no argon2id verification and no network hop.
 *
 * - The key is SHA-256 of a random 256-bit secret made at start and never
 *   written anywhere, followed by `basic \0 usuario \0 password` or `bearer \0 token`:
 *   no plaintext and nothing a dump of memory could be tested offline against
 *   without that secret. A keyed hash rather than HMAC because it is computed on
 *   every request and a one-shot hash costs about half an HMAC's set-up; the
 *   difference (length extension) needs the digest, which only ever serves as a
 *   Map key and is never shown, logged or sent.
 * - Only successes are cached: a wrong password is verified every time
 *   (and counted by the failure limit).
 * - Coherence follows the read cache's rule: the identity events (password
 *   changed, suspended, bindings changed, deleted, token revoked) empty it
 *   at once; any doubt about the event stream bypasses it (every request is
 *   verified) until a fresh subscription is confirmed. A verification that
 *   began before an event is not stored after it (the epoch check).
 * - An entry never outlives the signed principal it holds, less a margin for
 *   the downstream calls made with it.
 */
export interface CredentialCache {
  /** The key of a credential: a base64 keyed SHA-256, never the credential. */
  keyOf(credencial: Credencial): string;
  get(key: string): Autenticacion | undefined;
  /** Stores `value` unless an event or doubt arrived since `epoch` was read, or the cache is bypassed. */
  put(key: string, value: Autenticacion, epoch: number): void;
  /** Read before verifying, passed to put. */
  readonly epoch: number;
  /** An identity event: forget every verification (and those still in flight). */
  invalidate(): void;
  /** The event stream cannot vouch for the cache: empty and stop serving until resume. */
  bypass(): void;
  /** Serves again if nothing happened since `epoch` (read when the subscription was created). */
  resume(epoch: number): boolean;
  readonly bypassed: boolean;
  readonly size: number;
}

export type Credencial = { basica: { usuario: string; password: string } } | { bearer: string };

export interface CredentialCacheOptions {
  /** At most 60 s (the bound); 0 turns the cache off. */
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}

/**
 * What an entry leaves of its signed principal's life for the calls made with it (the BFF's downstream deadline is 5
 * s).
 */
const SIGNED_MARGIN_MS = 15_000;

interface Entry {
  value: Autenticacion;
  expiresAt: number;
}

export function createCredentialCache(options: CredentialCacheOptions): CredentialCache {
  const now = options.now ?? Date.now;
  const secret = randomBytes(32).toString('base64');
  const entries = new Map<string, Entry>();
  let epoch = 0;
  let bypassed = true;

  return {
    keyOf(credencial) {
      const texto =
        'basica' in credencial
          ? `${secret}\0basic\0${credencial.basica.usuario}\0${credencial.basica.password}`
          : `${secret}\0bearer\0${credencial.bearer}`;
      return hash('sha256', texto, 'base64');
    },
    get(key) {
      if (bypassed || options.ttlMs === 0) return undefined;
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= now()) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    put(key, value, at) {
      if (bypassed || at !== epoch || options.ttlMs === 0) return;
      const expiresAt = Math.min(now() + options.ttlMs, value.firmadoExpiraEn.getTime() - SIGNED_MARGIN_MS);
      if (expiresAt <= now()) return;
      // Oldest first out (Map keeps insertion order): bounded whatever the number of distinct credentials.
      entries.delete(key);
      while (entries.size >= options.maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done) break;
        entries.delete(oldest.value);
      }
      entries.set(key, { value, expiresAt });
    },
    get epoch() {
      return epoch;
    },
    invalidate() {
      epoch++;
      entries.clear();
    },
    bypass() {
      epoch++;
      bypassed = true;
      entries.clear();
    },
    resume(at) {
      if (at !== epoch) return false;
      bypassed = false;
      return true;
    },
    get bypassed() {
      return bypassed;
    },
    get size() {
      return entries.size;
    },
  };
}
