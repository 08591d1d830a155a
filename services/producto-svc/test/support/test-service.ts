import type { NatsConnection } from '@nats-io/transport-node';
import { countPendingEvents, createDb, createLogger, type Knex } from '@inventario/platform';
import type { ProductoServiceClient } from '@inventario/proto';
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
import { startApp, type App } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import {
  createProductoClient,
  productoApi,
  startFakeLibro,
  type FakeLibro,
  type ProductoApi,
} from '@inventario/testkit/grpc';

/**
 * The whole producto-svc in-process on an ephemeral port, against a fresh
 * database and a private stream / subject prefix on the shared NATS.
 */
export interface TestService {
  app: App;
  config: Config;
  database: TestDatabase;
  namespace: EventNamespace;
  /** The test's own connection (reads the stream, publishes BodegaEliminada). */
  nc: NatsConnection;
  /** The stand-in ledger the service records units in (unless the test named a BODEGA_SVC_ADDR). */
  libro: FakeLibro;
  /** The test's own pool on the service database (outbox state, direct checks). */
  db: Knex;
  client: ProductoServiceClient;
  /** Calls as `tester`. */
  api: ProductoApi;
  /** Waits until the relay published every committed event, then reads the stream. */
  settledEvents(): Promise<StoredEvent[]>;
  close(): Promise<void>;
}

/** Environment overrides, e.g. a NATS URL; a function gets the fresh database (to reach it through a proxy). */
export type TestServiceEnv = Record<string, string> | ((database: TestDatabase) => Record<string, string>);

export function testConfig(database: TestDatabase, namespace: EventNamespace, env: TestServiceEnv = {}): Config {
  const overrides = typeof env === 'function' ? env(database) : env;
  return loadConfig({
    DATABASE_URL: database.url,
    GRPC_PORT: '0',
    GRPC_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    NATS_URL: TEST_NATS_URL,
    NATS_STREAM: namespace.stream,
    NATS_SUBJECT_PREFIX: namespace.prefix,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_DRAIN_MS: '0',
    SHUTDOWN_TIMEOUT_MS: '10000',
    DB_CHECK_INTERVAL_MS: '200',
    ...overrides,
  });
}

export async function startTestService(label: string, env: TestServiceEnv = {}): Promise<TestService> {
  const database = await createTestDatabase(label);
  const namespace = testEventNamespace();
  // Where producto-svc records units (a stand-in: testkit's fake-libro.ts), unless the test names a bodega-svc.
  const libro = await startFakeLibro();
  const overrides = typeof env === 'function' ? env(database) : env;
  const config = testConfig(database, namespace, { BODEGA_SVC_ADDR: libro.address, ...overrides });
  // A failed start must not leave the database behind.
  const app = await startApp(config, createLogger('producto-svc', config.logLevel)).catch(async (err: unknown) => {
    await libro.close();
    await database.drop();
    throw err;
  });
  const nc = await connectTestNats();
  const db = createDb(database.url);
  const client = createProductoClient(app.grpcPort);

  return {
    app,
    config,
    database,
    namespace,
    nc,
    libro,
    db,
    client,
    api: productoApi(client, { usuario: 'tester' }),
    async settledEvents() {
      await waitFor(async () => (await countPendingEvents(db)) === 0, 'the outbox relay to publish every event');
      return readStream(nc, namespace.stream);
    },
    async close() {
      client.close();
      await app.stop();
      await libro.close();
      await db.destroy();
      await deleteStream(nc, namespace.stream);
      await nc.close();
      await database.drop();
    },
  };
}
