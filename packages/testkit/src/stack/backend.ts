/**
 * producto-svc and bodega-svc in-process (started by the InProcessServices a test hands in): ephemeral gRPC ports,
 * fresh databases, and ONE private stream / subject prefix shared by both (so
 * producto-svc's BodegaEliminada reconciliation sees bodega-svc's events).
 * Used by the full stack (stack.ts) and by tests that build their own
 * client of the services (the seed command, a router wired by hand).
 * close() removes everything it created.
 */
import {
  createDb,
  createLogger,
  type GrpcServiceApp,
  type Knex,
  type Logger,
  type NatsConnection,
} from '@inventario/platform';
import {
  connectTestNats,
  createTestDatabase,
  deleteStream,
  freePort,
  readStream,
  testEventNamespace,
  TEST_NATS_URL,
  waitForOutboxesDrained,
  type EventNamespace,
  type StoredEvent,
  type TestDatabase,
} from '../index';

/** Starts a service in this process from its environment, as its main does: loadConfig(env), then startApp. */
export type StartInProcess<A> = (env: NodeJS.ProcessEnv, logger: Logger) => Promise<A>;

/** A BFF started in this process. */
export interface InProcessBff {
  httpPort: number;
  metricsPort: number;
  stop(): Promise<void>;
}

/**
 * How each service starts in this process. Testkit is built before the services and imports none of them: the
 * workspace whose tests run a stack hands in its services' `startApp` / `loadConfig` (from their src/, so its tests
 * and the stack share one copy of every module), e.g. services/bff/test/support/stack.ts.
 */
export interface InProcessServices {
  'producto-svc': StartInProcess<GrpcServiceApp>;
  'bodega-svc': StartInProcess<GrpcServiceApp>;
  'identidad-svc': StartInProcess<GrpcServiceApp>;
  bff: StartInProcess<InProcessBff>;
}

export interface TestBackend {
  /** `127.0.0.1:<port>` of each service (producto-svc keeps its port across a restart). */
  productoSvcAddr: string;
  bodegaSvcAddr: string;
  /** bodega-svc's METRICS_PORT (GET /metrics: the stock verification's gauge). */
  bodegaMetricsPort: number;
  /** The test's own NATS connection. */
  nc: NatsConnection;
  /** The NATS the services publish to. */
  natsUrl: string;
  /** The stream and subject prefix both services publish to. */
  namespace: EventNamespace;
  /** `mysql://...` of each service's database (to count rows). */
  databaseUrls: { producto: string; bodega: string };
  /** Every event in the stream now (waits for nothing: poll with waitFor). */
  events(): Promise<StoredEvent[]>;
  /** Waits until both outboxes are drained, then reads the stream. */
  settledEvents(): Promise<StoredEvent[]>;
  /** Stops producto-svc (its port then refuses connections). */
  stopProductoSvc(): Promise<void>;
  /** Starts producto-svc again on the same port and database. */
  startProductoSvc(): Promise<void>;
  close(): Promise<void>;
}

export const LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';

function serviceEnv(
  database: TestDatabase,
  namespace: EventNamespace,
  grpcPort: number,
  natsUrl: string,
): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: database.url,
    GRPC_PORT: String(grpcPort),
    GRPC_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    NATS_URL: natsUrl,
    NATS_STREAM: namespace.stream,
    NATS_SUBJECT_PREFIX: namespace.prefix,
    LOG_LEVEL,
    SHUTDOWN_DRAIN_MS: '0',
    SHUTDOWN_TIMEOUT_MS: '10000',
    DB_CHECK_INTERVAL_MS: '200',
  };
}

/** Runs cleanups in reverse order, each once, ignoring failures (the rest must still run). */
export function cleanupList(): { push(cleanup: () => Promise<void>): void; run(): Promise<void> } {
  const cleanups: (() => Promise<void>)[] = [];
  return {
    push: (cleanup) => void cleanups.push(cleanup),
    async run() {
      while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
    },
  };
}

export interface TestBackendOptions {
  /** The NATS both services (and the test's connection) use; default the shared one (TEST_NATS_URL). */
  natsUrl?: string;
  /**
   * Each service's logger (e.g. one writing into the test, to read every line); default the platform's at
   * TEST_LOG_LEVEL.
   */
  serviceLogger?: (service: string) => Logger;
  /** The stream and subject prefix (default a fresh one), e.g. one identidad-svc started first publishes to. */
  namespace?: EventNamespace;
  /** Environment of both services on top of the test's (e.g. REQUIRE_PRINCIPAL, IDENTIDAD_SVC_ADDR). */
  serviceEnv?: Record<string, string>;
  /** Per service on top of serviceEnv (e.g. each one's own SERVICE_TOKEN). */
  productoEnv?: Record<string, string>;
  bodegaEnv?: Record<string, string>;
}

/**
 * producto-svc that a test can stop and start again on the same port and database; `start` starts it from its
 * environment, once while it runs.
 */
function restartable(start: () => Promise<GrpcServiceApp>): Pick<TestBackend, 'startProductoSvc' | 'stopProductoSvc'> {
  let producto: GrpcServiceApp | undefined;
  return {
    async startProductoSvc() {
      if (producto) return;
      producto = await start();
    },
    async stopProductoSvc() {
      const running = producto;
      producto = undefined;
      await running?.stop();
    },
  };
}

export async function startTestBackend(
  services: InProcessServices,
  label: string,
  options: TestBackendOptions = {},
): Promise<TestBackend> {
  const natsUrl = options.natsUrl ?? TEST_NATS_URL;
  const loggerFor = options.serviceLogger ?? ((service: string) => createLogger(service, LOG_LEVEL));
  const namespace = options.namespace ?? testEventNamespace();
  const cleanups = cleanupList();
  try {
    const productoDb = await createTestDatabase(`${label}_p`);
    cleanups.push(() => productoDb.drop());
    const bodegaDb = await createTestDatabase(`${label}_b`);
    cleanups.push(() => bodegaDb.drop());
    const nc = await connectTestNats(natsUrl);
    cleanups.push(async () => {
      await deleteStream(nc, namespace.stream);
      await nc.close();
    });
    const pools: Knex[] = [createDb(productoDb.url), createDb(bodegaDb.url)];
    cleanups.push(async () => {
      for (const pool of pools) await pool.destroy();
    });

    // The same port on a restart, so a BFF's channel finds it again; from freePort, not port 0: a
    // port the kernel handed out for port 0 is free for any other listen on port 0 to take while
    // the service is stopped, and the restart would fail with EADDRINUSE.
    const productoPort = await freePort();
    const bodega = await services['bodega-svc'](
      // Its reconciliation asks producto-svc (started next) whether a deleted product is really gone.
      {
        ...serviceEnv(bodegaDb, namespace, 0, natsUrl),
        PRODUCTO_SVC_ADDR: `127.0.0.1:${productoPort}`,
        ...options.serviceEnv,
        ...options.bodegaEnv,
      },
      loggerFor('bodega-svc'),
    );
    cleanups.push(() => bodega.stop());
    const { startProductoSvc, stopProductoSvc } = restartable(() =>
      services['producto-svc'](
        // Its reconciliation asks bodega-svc (started first) whether a deleted warehouse is really gone.
        {
          ...serviceEnv(productoDb, namespace, productoPort, natsUrl),
          BODEGA_SVC_ADDR: `127.0.0.1:${bodega.grpcPort}`,
          ...options.serviceEnv,
          ...options.productoEnv,
        },
        loggerFor('producto-svc'),
      ),
    );
    await startProductoSvc();
    cleanups.push(stopProductoSvc);

    return {
      productoSvcAddr: `127.0.0.1:${productoPort}`,
      bodegaSvcAddr: `127.0.0.1:${bodega.grpcPort}`,
      bodegaMetricsPort: bodega.metricsPort,
      nc,
      natsUrl,
      namespace,
      databaseUrls: { producto: productoDb.url, bodega: bodegaDb.url },
      events: () => readStream(nc, namespace.stream),
      async settledEvents() {
        await waitForOutboxesDrained(pools, 'both outbox relays to publish every event', 30_000);
        return readStream(nc, namespace.stream);
      },
      stopProductoSvc,
      startProductoSvc,
      close: () => cleanups.run(),
    };
  } catch (err) {
    await cleanups.run();
    throw err;
  }
}
