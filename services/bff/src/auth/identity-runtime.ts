import type { Logger } from '@inventario/platform';
import type { Registry } from 'prom-client';
import type { Config } from '../config';
import type { IdentidadClient } from '../downstream/identidad-client';
import { createCredentialCache } from './credential-cache';
import { createAuthMetrics, type IdentityAuthDeps } from './identity-auth';
import { startIdentityFollower } from './identity-follower';
import { createUsuarioThrottle } from './usuario-throttle';

/** A replica's authentication through identidad-svc: what the middleware needs, and what keeps its cache honest. */
export interface IdentityAuthRuntime {
  deps: Omit<IdentityAuthDeps, 'failures'>;
  /** Ends the identity events' subscription; the cache stays bypassed. */
  stop(): Promise<void>;
}

/**
 * The credential cache starts bypassed and serves once its subscription to
 * the identity events is confirmed (NATS_URL / NATS_STREAM /
 * NATS_SUBJECT_PREFIX, the read cache's); without NATS every request is
 * verified by identidad-svc. AUTH_CACHE_TTL_MS=0: no cache, no subscription.
 */
export function startIdentityAuth(
  config: Config,
  identidad: IdentidadClient,
  registry: Registry,
  logger: Logger,
): IdentityAuthRuntime {
  const cache = createCredentialCache({ ttlMs: config.auth.cacheTtlMs, maxEntries: config.auth.cacheMaxEntries });
  const throttle =
    config.auth.failuresPerUsuario > 0
      ? createUsuarioThrottle(config.auth.failuresPerUsuario, config.auth.usuarioThrottleMs)
      : undefined;
  const follower =
    config.auth.cacheTtlMs > 0
      ? startIdentityFollower({
          natsUrl: config.readCache.natsUrl,
          credentials: config.readCache.natsCredentials,
          stream: config.readCache.natsStream,
          prefix: config.readCache.natsSubjectPrefix,
          cache,
          logger,
        })
      : undefined;
  return {
    deps: { identidad, cache, throttle, metrics: createAuthMetrics(registry) },
    stop: async () => {
      await follower?.stop();
    },
  };
}
