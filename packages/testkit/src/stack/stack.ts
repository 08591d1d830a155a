/**
 * The whole Inventario back end in-process, for the BFF's tests and the
 * repository's system tests: the two gRPC services (backend.ts), identidad-svc
 * when asked (identidad.ts) and the BFF on an ephemeral HTTP port in front of
 * them, each started by the InProcessServices handed in. One stack per test
 * file (beforeAll / afterAll); close() removes everything it created.
 */
import { createLogger, type Logger, type NatsConnection } from '@inventario/platform';
import {
  basicAuth,
  httpRequest,
  testEventNamespace,
  TEST_NATS_URL,
  type EventNamespace,
  type StackRequestOptions,
  type StackResponse,
  type StoredEvent,
} from '../index';
import {
  cleanupList,
  LOG_LEVEL,
  startTestBackend,
  type InProcessServices,
  type TestBackend,
  type TestBackendOptions,
} from './backend';
import { startTestIdentidad, type TestIdentidad } from './identidad';

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
  /** `host:port` of each gRPC service (the notifier's name lookups). */
  serviceAddrs: { producto: string; bodega: string };
  /** Waits until both outboxes are drained, then reads the stream. */
  settledEvents(): Promise<StoredEvent[]>;
  /** Stops producto-svc (its port then refuses connections). */
  stopProductoSvc(): Promise<void>;
  /** Starts producto-svc again on the same port and database. */
  startProductoSvc(): Promise<void>;
  /** identidad-svc, when the stack authenticates through it. */
  identidad?: TestIdentidad;
  close(): Promise<void>;
}

/** Set to `true`, every test stack authenticates through identidad-svc (the test user is its first ADMIN). */
export const IDENTIDAD_BY_DEFAULT = process.env.TEST_BFF_IDENTIDAD === 'true';

export interface TestStackOptions {
  /** Run identidad-svc and authenticate through it (issue 26); default TEST_BFF_IDENTIDAD. */
  identidad?: boolean;
  /** identidad-svc environment overrides. */
  identidadEnv?: Record<string, string>;
  /**
   * With identidad-svc: producto-svc and bodega-svc verify every caller (REQUIRE_PRINCIPAL=true, docs/contract.md
   * §12.9), each with a service account's token of its own for the calls it makes for itself.
   */
  serviciosExigenPrincipal?: boolean;
  /** Environment of both services on top of that (e.g. PRINCIPAL_TOKEN_CACHE_MS). */
  serviceEnv?: Record<string, string>;
  /** BFF environment overrides (e.g. `RATE_LIMIT_PER_MINUTE`, `BREAKER_RESET_MS`). */
  env?: Record<string, string>;
  /** The BFF's logger (e.g. one writing into the test); default the platform logger at TEST_LOG_LEVEL. */
  logger?: Logger;
  /** The services' loggers (producto-svc, bodega-svc, identidad-svc); default the platform's at TEST_LOG_LEVEL. */
  serviceLogger?: (service: string) => Logger;
}

export async function startTestStack(
  services: InProcessServices,
  label: string,
  options: TestStackOptions = {},
): Promise<TestStack> {
  const cleanups = cleanupList();
  try {
    // identidad-svc first (the services may need its address and their tokens), on the backend's stream.
    const namespace = testEventNamespace();
    let identidad: TestIdentidad | undefined;
    const backendOptions: TestBackendOptions = { namespace, serviceLogger: options.serviceLogger };
    if (options.identidad ?? IDENTIDAD_BY_DEFAULT) {
      const admin = {
        usuario: options.env?.BFF_USER ?? TEST_USER,
        password: options.env?.BFF_PASSWORD ?? TEST_PASSWORD,
      };
      const started = await startTestIdentidad(services, label, {
        namespace,
        natsUrl: TEST_NATS_URL,
        admin,
        env: options.identidadEnv,
        logger: options.serviceLogger?.('identidad-svc'),
      });
      identidad = started;
      cleanups.push(() => started.close());
      if (options.serviciosExigenPrincipal) {
        const como = await started.como(admin.usuario, admin.password);
        backendOptions.serviceEnv = {
          REQUIRE_PRINCIPAL: 'true',
          IDENTIDAD_SVC_ADDR: started.addr,
          ...options.serviceEnv,
        };
        backendOptions.productoEnv = { SERVICE_TOKEN: (await started.cuentaDeServicio(como, 'producto-svc')).token };
        backendOptions.bodegaEnv = { SERVICE_TOKEN: (await started.cuentaDeServicio(como, 'bodega-svc')).token };
      }
    }
    const backend = await startTestBackend(services, label, backendOptions);
    cleanups.push(() => backend.close());
    const bff = await services.bff(
      {
        ...TEST_BFF_ENV,
        // The read cache (off by default) follows the backend's stream when a test turns it on
        // (READ_CACHE_MAX_ENTRIES).
        ...backendEnv(backend),
        ENABLE_INIT: 'true',
        ...(identidad ? { IDENTIDAD_SVC_ADDR: identidad.addr } : {}),
        ...options.env,
      },
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
      serviceAddrs: { producto: backend.productoSvcAddr, bodega: backend.bodegaSvcAddr },
      request: (method, path, requestOptions = {}) => httpRequest(baseUrl, auth, method, path, requestOptions),
      settledEvents: () => backend.settledEvents(),
      stopProductoSvc: () => backend.stopProductoSvc(),
      startProductoSvc: () => backend.startProductoSvc(),
      identidad,
      close: () => cleanups.run(),
    };
  } catch (err) {
    await cleanups.run();
    throw err;
  }
}
