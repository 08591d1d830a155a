import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchDb } from './bench-db';
import { forEachLimited, requestJson } from './http-client';
import { runLoad, type LoadResult } from './load';
import type { Seed } from './seed';
import { pick } from './stats';
import type { Stack } from './stack';

/** What `bff-cached`'s GET /metrics says of its read cache at one moment (services/bff/src/cache/metrics.ts). */
export interface CacheMetrics {
  entries: number;
  /** 1 while bypassed (every read goes to the services). */
  bypassed: number;
  /** Summed over kinds (producto, bodega). */
  hits: number;
  misses: number;
  /** By cause: event, write, doubt, conflict. */
  invalidations: Record<string, number>;
}

/** The cached BFF's part of the soak (README "Soak"): its reads, its paced PUTs, its cache at both ends. */
export interface CacheSoakFigures {
  maxEntries: number;
  /** Products the reads pick from: the seeded ones and those inserted for the soak, more than the cache holds. */
  records: number;
  rate: number;
  load: LoadResult;
  /** PUTs sent during the soak (half through each BFF) and those that did not answer 2xx. */
  writes: number;
  writeErrors: number;
  /** The cache right after it was filled (the soak's start) and right after the soak. */
  start: CacheMetrics;
  end: CacheMetrics;
}

/** One sample's value: `name` or `name{...}` at the start of a line of the Prometheus text format. */
function sum(text: string, name: string, label?: string): Record<string, number> {
  const out: Record<string, number> = {};
  const line = new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm');
  for (const [, labels = '', value] of text.matchAll(line)) {
    const key = label ? (new RegExp(`${label}="([^"]*)"`).exec(labels)?.[1] ?? '') : '';
    out[key] = (out[key] ?? 0) + Number(value);
  }
  return out;
}

export async function readCacheMetrics(metricsUrl: string): Promise<CacheMetrics> {
  const response = await fetch(metricsUrl);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${metricsUrl} answered ${response.status}: ${text.slice(0, 200)}`);
  /** Every sample of `name` added up; NaN when the BFF does not export it. */
  const total = (name: string) => {
    const values = Object.values(sum(text, name));
    return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0);
  };
  return {
    entries: total('bff_read_cache_entries'),
    bypassed: total('bff_read_cache_bypassed'),
    hits: total('bff_read_cache_hits_total'),
    misses: total('bff_read_cache_misses_total'),
    invalidations: sum(text, 'bff_read_cache_invalidations_total', 'cause'),
  };
}

/**
 * Before the soak: inserts as many products as the cache holds (directly,
 * without events), so the reads range over the seeded products plus those,
 * more than the cache can keep and its LRU evicts; then reads every one of
 * them once through `bff-cached`, which leaves the cache full. Returns the
 * ids the soak reads.
 */
export async function prepareCacheSoak(stack: Stack, db: BenchDb, seed: Seed): Promise<number[]> {
  const url = stack.bffCachedUrl as string;
  const maxEntries = stack.readCacheMaxEntries as number;
  const extra = await db.insertProductos(maxEntries, seed.bodegaIds);
  const ids = [...seed.productoIds, ...extra];
  await forEachLimited(ids, 16, async (id) => {
    const res = await requestJson(url, stack.auth, 'GET', `/api/productos/${id}`);
    if (res.status !== 200) throw new Error(`filling the read cache: GET /api/productos/${id} answered ${res.status}`);
  });
  return ids;
}

/**
 * The cached BFF under the soak: GET-by-id at `rate` over `ids` (a random
 * one per request: with more ids than entries, about one read in
 * `1 - maxEntries/ids` misses, fills and evicts), and `writeRate` PUTs/s of
 * a random one of `ids`, alternately through `bff-cached` (its entry is
 * dropped by the write) and through the BFF without the cache (dropped by
 * the event), so both invalidation paths run with the cache full.
 */
export async function cacheSoak(
  stack: Stack,
  ids: readonly number[],
  rate: number,
  writeRate: number,
  seconds: number,
): Promise<Pick<CacheSoakFigures, 'load' | 'writes' | 'writeErrors'>> {
  const url = stack.bffCachedUrl as string;
  const auth = { authorization: stack.auth };
  const writes = (async () => {
    let errors = 0;
    const inFlight: Promise<void>[] = [];
    const start = Date.now();
    const total = Math.round(writeRate * seconds);
    for (let i = 0; i < total; i++) {
      const wait = start + (i * 1000) / writeRate - Date.now();
      if (wait > 0) await sleep(wait);
      const through = i % 2 === 0 ? url : stack.bffUrl;
      inFlight.push(
        requestJson(through, stack.auth, 'PUT', `/api/productos/${pick(ids)}`, {
          cantidadEnStock: Math.floor(Math.random() * 500),
        }).then(
          (res) => void ((res.status < 200 || res.status > 299) && errors++),
          () => void errors++,
        ),
      );
    }
    await Promise.all(inFlight);
    return { writes: total, writeErrors: errors };
  })();
  const [load, written] = await Promise.all([
    runLoad({
      url,
      request: {
        method: 'GET',
        path: `/api/productos/${ids[0]}`,
        headers: auth,
        setup: () => ({ path: `/api/productos/${pick(ids)}` }),
      },
      connections: 10,
      durationSeconds: seconds,
      overallRate: rate,
    }),
    writes,
  ]);
  return { load, ...written };
}
