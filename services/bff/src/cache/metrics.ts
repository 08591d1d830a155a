import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { CachedKind, InvalidationCause, ReadCache, ReadCacheObserver } from './read-cache';

/** The read cache's series (docs/operations.md, "Read cache"). */
export interface ReadCacheMetrics {
  observer: ReadCacheObserver;
  /**
   * Seconds from a write's acknowledgement (this replica's writes) or the stream's timestamp to its event applied here.
   */
  eventDelay(seconds: number, measuredFrom: 'write_ack' | 'stream'): void;
  /** Lets the entries gauge read the cache (created after the metrics). */
  watch(cache: ReadCache): void;
}

const KINDS: readonly CachedKind[] = ['producto', 'bodega'];
const CAUSES: readonly InvalidationCause[] = ['event', 'write', 'doubt', 'conflict'];

// The read cache's metrics registry: each metric's name, help and labels declared where it is
// registered, so the whole exported set (what dashboards and alerts read) is one list.
export function createReadCacheMetrics(registry: Registry): ReadCacheMetrics {
  const hits = new Counter({
    name: 'bff_read_cache_hits_total',
    help: 'Reads by id answered from the read cache',
    labelNames: ['kind'],
    registers: [registry],
  });
  const misses = new Counter({
    name: 'bff_read_cache_misses_total',
    help: 'Reads by id the read cache did not hold (not counted while bypassed)',
    labelNames: ['kind'],
    registers: [registry],
  });
  const invalidations = new Counter({
    name: 'bff_read_cache_invalidations_total',
    help:
      'Entries dropped: by an event, by a write through this replica, emptied on a doubt about the event stream, ' +
      'or by a conflict (reads of one record that cannot be ordered: the next read fills it again)',
    labelNames: ['cause'],
    registers: [registry],
  });
  for (const kind of KINDS) {
    hits.inc({ kind }, 0);
    misses.inc({ kind }, 0);
  }
  for (const cause of CAUSES) invalidations.inc({ cause }, 0);

  // Bypass time is accounted up to the scrape, so a bypass that lasts shows while it lasts.
  let bypassedSince: number | undefined = performance.now();
  const bypassSeconds = new Counter({
    name: 'bff_read_cache_bypass_seconds_total',
    help:
      'Seconds the read cache was bypassed (every read went to the services): at start and after each doubt ' +
      'about the event stream',
    registers: [registry],
    collect() {
      if (bypassedSince === undefined) return;
      const now = performance.now();
      this.inc((now - bypassedSince) / 1000);
      bypassedSince = now;
    },
  });
  const bypassed = new Gauge({
    name: 'bff_read_cache_bypassed',
    help: '1 while the read cache is bypassed, else 0',
    registers: [registry],
  });
  bypassed.set(1);
  let watched: ReadCache | undefined;
  new Gauge({
    name: 'bff_read_cache_entries',
    help: 'Records the read cache holds',
    registers: [registry],
    collect() {
      this.set(watched?.size ?? 0);
    },
  });
  const delay = new Histogram({
    name: 'bff_read_cache_event_delay_seconds',
    help:
      "Time from a write's acknowledgement (write_ack: writes through this replica) or from the stream's " +
      "timestamp (stream) to its event invalidating this replica's cache",
    labelNames: ['measured_from'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  return {
    observer: {
      hit: (kind) => hits.inc({ kind }),
      miss: (kind) => misses.inc({ kind }),
      invalidated: (cause, count) => invalidations.inc({ cause }, count),
      bypassChanged(now) {
        bypassed.set(now ? 1 : 0);
        if (now) bypassedSince ??= performance.now();
        else if (bypassedSince !== undefined) {
          bypassSeconds.inc((performance.now() - bypassedSince) / 1000);
          bypassedSince = undefined;
        }
      },
    },
    eventDelay: (seconds, measuredFrom) => delay.observe({ measured_from: measuredFrom }, seconds),
    watch(cache) {
      watched = cache;
    },
  };
}
