/**
 * The read cache's test stack: one producto-svc, one bodega-svc (support/
 * backend.ts) and TWO BFF replicas in-process, each with its read cache on
 * and following the services' stream on `natsUrl` (a private nats-server for
 * the outage tests). close() removes everything it created.
 */
import { createLogger } from '@inventario/platform';
import { metricSample, scrapeMetrics, waitFor } from '@inventario/testkit';
import { startApp as startBffApp } from '../../src/app';
import { loadConfig as loadBffConfig } from '../../src/config';
import { cleanupList, LOG_LEVEL, startTestBackend, type TestBackend } from './stack';
import {
  backendEnv,
  basicAuth,
  httpRequest,
  TEST_BFF_ENV,
  TEST_PASSWORD,
  TEST_USER,
  type StackRequestOptions,
  type StackResponse,
} from './stack';

export interface CacheReplica {
  name: string;
  baseUrl: string;
  metricsPort: number;
  request(method: string, path: string, options?: StackRequestOptions): Promise<StackResponse>;
  /** One sample of the replica's metrics (label match), 0 when absent. */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
}

export interface CacheStack {
  backend: TestBackend;
  replicas: [CacheReplica, CacheReplica];
  /** Resolves once every replica's cache follows the stream (bff_read_cache_bypassed 0). */
  allServing(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface CacheStackOptions {
  natsUrl?: string;
  /** BFF environment overrides (both replicas). */
  env?: Record<string, string>;
  /** Overrides for one replica, after `env` (e.g. B's NATS_URL through a link the test cuts). */
  replicaEnv?: [Record<string, string>, Record<string, string>];
}

export async function startCacheStack(label: string, options: CacheStackOptions = {}): Promise<CacheStack> {
  const cleanups = cleanupList();
  try {
    const backend = await startTestBackend(label, { natsUrl: options.natsUrl });
    cleanups.push(() => backend.close());
    const auth = basicAuth(TEST_USER, TEST_PASSWORD);
    const replicas: CacheReplica[] = [];
    for (const [index, name] of ['bff-a', 'bff-b'].entries()) {
      const app = await startBffApp(
        loadBffConfig({
          ...TEST_BFF_ENV,
          ...backendEnv(backend),
          READ_CACHE_MAX_ENTRIES: '1000',
          ...options.env,
          ...options.replicaEnv?.[index],
        }),
        createLogger(name, LOG_LEVEL),
      );
      cleanups.push(() => app.stop());
      const baseUrl = `http://127.0.0.1:${app.httpPort}`;
      replicas.push({
        name,
        baseUrl,
        metricsPort: app.metricsPort,
        request: (method, path, requestOptions = {}) => httpRequest(baseUrl, auth, method, path, requestOptions),
        metric: async (metric, labels) => metricSample(await scrapeMetrics(app.metricsPort), metric, labels) ?? 0,
      });
    }
    return {
      backend,
      replicas: replicas as [CacheReplica, CacheReplica],
      async allServing(timeoutMs = 20_000) {
        await waitFor(
          async () =>
            (await Promise.all(replicas.map((r) => r.metric('bff_read_cache_bypassed')))).every((v) => v === 0),
          'every replica to follow the event stream',
          timeoutMs,
        );
      },
      close: () => cleanups.run(),
    };
  } catch (err) {
    await cleanups.run();
    throw err;
  }
}
