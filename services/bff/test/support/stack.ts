/**
 * The whole Inventario back end in-process for BFF tests: the two gRPC
 * services (support/backend.ts) and the BFF on an ephemeral HTTP port in
 * front of them. One stack per test file (beforeAll / afterAll);
 * close() removes everything it created.
 */
import { createLogger, type Logger, type NatsConnection } from '@inventario/platform';
import type { EventNamespace, StoredEvent } from '@inventario/testkit';
import { startApp as startBffApp, type BffApp } from '../../src/app';
import { loadConfig as loadBffConfig } from '../../src/config';
import { cleanupList, LOG_LEVEL, startTestBackend, type TestBackend } from './backend';

export const TEST_USER = 'tester';
export const TEST_PASSWORD = 's3cret-test';

/** What every test BFF starts with: ephemeral ports, the test credentials, no rate limit, a quick shutdown. */
export const TEST_BFF_ENV = {
  PORT: '0',
  HOST: '127.0.0.1',
  METRICS_PORT: '0',
  METRICS_HOST: '127.0.0.1',
  BFF_USER: TEST_USER,
  BFF_PASSWORD: TEST_PASSWORD,
  RATE_LIMIT_PER_MINUTE: '0',
  LOG_LEVEL,
  SHUTDOWN_DRAIN_MS: '0',
  SHUTDOWN_TIMEOUT_MS: '10000',
};

/** A test BFF in front of `backend`'s services, following its stream when the read cache is on. */
export const backendEnv = (backend: TestBackend) => ({
  PRODUCTO_SVC_ADDR: backend.productoSvcAddr,
  BODEGA_SVC_ADDR: backend.bodegaSvcAddr,
  NATS_URL: backend.natsUrl,
  NATS_STREAM: backend.namespace.stream,
  NATS_SUBJECT_PREFIX: backend.namespace.prefix,
});

/** The `Authorization` value for a user and password. */
export function basicAuth(usuario: string, password: string): string {
  return `Basic ${Buffer.from(`${usuario}:${password}`, 'utf8').toString('base64')}`;
}

export interface StackRequestOptions {
  /** Sent as JSON (`Content-Type: application/json`). */
  body?: unknown;
  /** Sent as is; set the content type in `headers` (default application/json). */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Another Authorization value, or false to send none; default the test user's. */
  auth?: string | false;
}

export interface StackResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  body: any;
  text: string;
}

export interface TestStack {
  /** e.g. `http://127.0.0.1:34567`. */
  baseUrl: string;
  /** The BFF's METRICS_PORT (GET /metrics). */
  metricsPort: number;
  /** bodega-svc's METRICS_PORT (GET /metrics: the stock verification's gauge). */
  bodegaMetricsPort: number;
  /** `Basic ...` for the BFF's user (the test user unless `env` overrides BFF_USER / BFF_PASSWORD). */
  auth: string;
  request(method: string, path: string, options?: StackRequestOptions): Promise<StackResponse>;
  /** The test's own NATS connection. */
  nc: NatsConnection;
  /** The stream and subject prefix both services publish to. */
  namespace: EventNamespace;
  /** `mysql://...` of each service's database (to count rows). */
  databaseUrls: { producto: string; bodega: string };
  /** Waits until both outboxes are drained, then reads the stream. */
  settledEvents(): Promise<StoredEvent[]>;
  /** Stops producto-svc (its port then refuses connections). */
  stopProductoSvc(): Promise<void>;
  /** Starts producto-svc again on the same port and database. */
  startProductoSvc(): Promise<void>;
  close(): Promise<void>;
}

export interface TestStackOptions {
  /** BFF environment overrides (e.g. `RATE_LIMIT_PER_MINUTE`, `BREAKER_RESET_MS`). */
  env?: Record<string, string>;
  /** The BFF's logger (e.g. one writing into the test); default the platform logger at TEST_LOG_LEVEL. */
  logger?: Logger;
}

export async function startTestStack(label: string, options: TestStackOptions = {}): Promise<TestStack> {
  const cleanups = cleanupList();
  try {
    const backend = await startTestBackend(label);
    cleanups.push(() => backend.close());
    const bff: BffApp = await startBffApp(
      loadBffConfig({
        ...TEST_BFF_ENV,
        // The read cache (off by default) follows the backend's stream when a test turns it on (READ_CACHE_MAX_ENTRIES).
        ...backendEnv(backend),
        ENABLE_INIT: 'true',
        ...options.env,
      }),
      options.logger ?? createLogger('bff', LOG_LEVEL),
    );
    cleanups.push(() => bff.stop());

    const baseUrl = `http://127.0.0.1:${bff.httpPort}`;
    const auth = basicAuth(options.env?.BFF_USER ?? TEST_USER, options.env?.BFF_PASSWORD ?? TEST_PASSWORD);
    return {
      baseUrl,
      metricsPort: bff.metricsPort,
      bodegaMetricsPort: backend.bodegaMetricsPort,
      auth,
      nc: backend.nc,
      namespace: backend.namespace,
      databaseUrls: backend.databaseUrls,
      request: (method, path, requestOptions = {}) => httpRequest(baseUrl, auth, method, path, requestOptions),
      settledEvents: () => backend.settledEvents(),
      stopProductoSvc: () => backend.stopProductoSvc(),
      startProductoSvc: () => backend.startProductoSvc(),
      close: () => cleanups.run(),
    };
  } catch (err) {
    await cleanups.run();
    throw err;
  }
}

/** One HTTP request to the BFF, answered with its status, headers and (JSON) body. */
export async function httpRequest(baseUrl: string, defaultAuth: string, method: string, path: string, options: StackRequestOptions): Promise<StackResponse> {
  const headers: Record<string, string> = {};
  const auth = options.auth ?? defaultAuth;
  if (auth !== false) headers.authorization = auth;
  let body: string | Uint8Array | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    headers['content-type'] = 'application/json';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}
