import type { Logger } from '@inventario/platform';
import type { Registry } from 'prom-client';
import type { Config } from '../config';
import { startEventFollower } from './event-follower';
import { createReadCacheMetrics } from './metrics';
import { ReadCache } from './read-cache';
import { WriteAcks } from './write-acks';

/** A replica's read cache and what keeps it coherent. */
export interface ReadCacheRuntime {
  cache: ReadCache;
  acks: WriteAcks;
  /** Ends the event subscription and the NATS connection; the cache stays bypassed. */
  stop(): Promise<void>;
}

/**
 * The read cache of READ_CACHE_MAX_ENTRIES entries, bypassed until its
 * event subscription is confirmed; undefined when the setting is 0 (the
 * BFF then opens no NATS connection). NATS is reached in the background:
 * the BFF serves (uncached) without it.
 */
export function startReadCache(config: Config, registry: Registry, logger: Logger): ReadCacheRuntime | undefined {
  const settings = config.readCache;
  if (settings.maxEntries === 0) return undefined;
  const metrics = createReadCacheMetrics(registry);
  const cache = new ReadCache({ maxEntries: settings.maxEntries, ttlMs: settings.ttlMs, observer: metrics.observer });
  metrics.watch(cache);
  const acks = new WriteAcks();
  const follower = startEventFollower({
    natsUrl: settings.natsUrl,
    credentials: settings.natsCredentials,
    stream: settings.natsStream,
    prefix: settings.natsSubjectPrefix,
    cache,
    acks,
    logger,
    onEventDelay: (seconds, measuredFrom) => metrics.eventDelay(seconds, measuredFrom),
  });
  return { cache, acks, stop: () => follower.stop() };
}
