/**
 * The whole Inventario back end in-process for BFF tests: producto-svc and
 * bodega-svc on ephemeral gRPC ports against fresh databases, sharing ONE
 * private stream / subject prefix (so producto-svc's BodegaEliminada
 * reconciliation sees bodega-svc's events), and the BFF on an ephemeral HTTP
 * port in front of them. One stack per test file (beforeAll / afterAll);
 * close() removes everything it created.
 */
import { countPendingEvents, createDb, createLogger, type Knex, type NatsConnection } from '@inventario/platform';
import {
  connectTestNats,
  createTestDatabase,
  deleteStream,
  readStream,
  testEventNamespace,
  TEST_NATS_URL,
  waitFor,
  type EventNamespace,
  type StoredEvent,
  type TestDatabase,
} from '@inventario/testkit';
import { startApp as startProductoApp, type App as ProductoApp } from '../../../producto-svc/src/app';
import { loadConfig as loadProductoConfig } from '../../../producto-svc/src/config';
import { startApp as startBodegaApp, type App as BodegaApp } from '../../../bodega-svc/src/app';
import { loadConfig as loadBodegaConfig } from '../../../bodega-svc/src/config';
import { startApp as startBffApp, type BffApp } from '../../src/app';
import { loadConfig as loadBffConfig } from '../../src/config';

export const TEST_USER = 'tester';
export const TEST_PASSWORD = 's3cret-test';

/** The `Authorization` value for a user and password. */
export function basicAuth(usuario: string, password: string): string {
  return `Basic ${Buffer.from(`${usuario}:${password}`, 'utf8').toString('base64')}`;
}

export interface StackRequestOptions {
  /** Sent as JSON (`Content-Type: application/json`). */
  body?: unknown;
  /** Sent as is; set the content type in `headers` (default application/json). */
  rawBody?: string;
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
  /** `Basic ...` for the BFF's user (the test user unless `env` overrides BFF_USER / BFF_PASSWORD). */
  auth: string;
  request(method: string, path: string, options?: StackRequestOptions): Promise<StackResponse>;
  /** The test's own NATS connection. */
  nc: NatsConnection;
  /** The stream and subject prefix both services publish to. */
  namespace: EventNamespace;
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
}

const LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';

function serviceEnv(database: TestDatabase, namespace: EventNamespace, grpcPort: number): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: database.url,
    GRPC_PORT: String(grpcPort),
    GRPC_HOST: '127.0.0.1',
    NATS_URL: TEST_NATS_URL,
    NATS_STREAM: namespace.stream,
    NATS_SUBJECT_PREFIX: namespace.prefix,
    LOG_LEVEL,
    SHUTDOWN_DRAIN_MS: '0',
    SHUTDOWN_TIMEOUT_MS: '10000',
    DB_CHECK_INTERVAL_MS: '200',
  };
}

export async function startTestStack(label: string, options: TestStackOptions = {}): Promise<TestStack> {
  const namespace = testEventNamespace();
  const cleanups: (() => Promise<void>)[] = [];
  const cleanUp = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };

  try {
    const productoDb = await createTestDatabase(`${label}_p`);
    cleanups.push(() => productoDb.drop());
    const bodegaDb = await createTestDatabase(`${label}_b`);
    cleanups.push(() => bodegaDb.drop());
    const nc = await connectTestNats();
    cleanups.push(async () => {
      await deleteStream(nc, namespace.stream);
      await nc.close();
    });
    const pools: Knex[] = [createDb(productoDb.url), createDb(bodegaDb.url)];
    cleanups.push(async () => {
      for (const pool of pools) await pool.destroy();
    });

    const bodega: BodegaApp = await startBodegaApp(
      loadBodegaConfig(serviceEnv(bodegaDb, namespace, 0)),
      createLogger('bodega-svc', LOG_LEVEL),
    );
    cleanups.push(() => bodega.stop());

    // Port 0 the first time; the same port on a restart, so the BFF's channel finds it again.
    let productoPort = 0;
    let producto: ProductoApp | undefined;
    const startProductoSvc = async () => {
      if (producto) return;
      producto = await startProductoApp(
        loadProductoConfig(serviceEnv(productoDb, namespace, productoPort)),
        createLogger('producto-svc', LOG_LEVEL),
      );
      productoPort = producto.grpcPort;
    };
    const stopProductoSvc = async () => {
      const running = producto;
      producto = undefined;
      await running?.stop();
    };
    await startProductoSvc();
    cleanups.push(stopProductoSvc);

    const bff: BffApp = await startBffApp(
      loadBffConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        BFF_USER: TEST_USER,
        BFF_PASSWORD: TEST_PASSWORD,
        PRODUCTO_SVC_ADDR: `127.0.0.1:${productoPort}`,
        BODEGA_SVC_ADDR: `127.0.0.1:${bodega.grpcPort}`,
        RATE_LIMIT_PER_MINUTE: '0',
        ENABLE_INIT: 'true',
        LOG_LEVEL,
        SHUTDOWN_DRAIN_MS: '0',
        SHUTDOWN_TIMEOUT_MS: '10000',
        ...options.env,
      }),
      createLogger('bff', LOG_LEVEL),
    );
    cleanups.push(() => bff.stop());

    const baseUrl = `http://127.0.0.1:${bff.httpPort}`;
    const auth = basicAuth(options.env?.BFF_USER ?? TEST_USER, options.env?.BFF_PASSWORD ?? TEST_PASSWORD);

    return {
      baseUrl,
      auth,
      nc,
      namespace,
      request: (method, path, requestOptions = {}) => httpRequest(baseUrl, auth, method, path, requestOptions),
      async settledEvents() {
        await waitFor(
          async () => {
            for (const pool of pools) if ((await countPendingEvents(pool)) > 0) return false;
            return true;
          },
          'both outbox relays to publish every event',
          30_000,
        );
        return readStream(nc, namespace.stream);
      },
      stopProductoSvc,
      startProductoSvc,
      close: cleanUp,
    };
  } catch (err) {
    await cleanUp();
    throw err;
  }
}

/** One HTTP request to the BFF, answered with its status, headers and (JSON) body. */
export async function httpRequest(
  baseUrl: string,
  defaultAuth: string,
  method: string,
  path: string,
  options: StackRequestOptions,
): Promise<StackResponse> {
  const headers: Record<string, string> = {};
  const auth = options.auth ?? defaultAuth;
  if (auth !== false) headers.authorization = auth;
  let body: string | undefined;
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
