/**
 * Runs a whole identidad-svc in-process on an ephemeral port, against a
 * fresh database and a private stream / subject prefix on the shared NATS,
 * with a fresh signing key and a first ADMIN (`admin` / ADMIN_PASSWORD).
 * Gives tests a promise-based client, helpers to log in and call as a
 * principal, and handles to check what was written and published.
 */
import { generateKeyPairSync } from 'node:crypto';
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { PRINCIPAL_METADATA_KEY } from '@inventario/contract';
import { countPendingEvents, createDb, createLogger, type Knex, type NatsConnection } from '@inventario/platform';
import { IdentidadServiceClient, type AutenticarResponse } from '@inventario/proto';
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
  logLineSink,
} from '@inventario/testkit';
import { identidadRpcOf, type IdentidadRpc } from '@inventario/testkit/stack';
import { startApp, type App } from '../../src/app';
import { loadConfig } from '../../src/config';

export const ADMIN = 'admin';
export const ADMIN_PASSWORD = 'canario-admin-7f3a9c';

/** Metadata carrying a signed principal. */
export function como(sesion: { principalFirmado: string }): Metadata {
  const md = new Metadata();
  md.set(PRINCIPAL_METADATA_KEY, sesion.principalFirmado);
  return md;
}

/** The error a call failed with; fails the test when the call succeeded. */
export async function grpcError(call: Promise<unknown>): Promise<ServiceError> {
  try {
    await call;
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

export interface TestService {
  app: App;
  rpc: IdentidadRpc;
  db: Knex;
  ns: EventNamespace;
  /** Basic login. */
  login(usuario: string, password: string, direccion?: string): Promise<AutenticarResponse>;
  /** The bootstrap ADMIN's session. */
  admin(): Promise<AutenticarResponse>;
  publishedEvents(): Promise<StoredEvent[]>;
  nats(): Promise<NatsConnection>;
  /** Stops the service and starts it again on the same database and stream, with `env` over the first start's. */
  restart(env?: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

/**
 * The environment of a test identidad-svc on `databaseUrl` and `ns`: ephemeral ports, silent logs, no drain delay, a
 * fresh signing key and the first ADMIN, with `env` over it. Replicas of one deployment share one.
 */
export function testServiceEnv(
  databaseUrl: string,
  ns: EventNamespace,
  env: Record<string, string> = {},
): Record<string, string> {
  const { privateKey } = generateKeyPairSync('ed25519');
  return {
    DATABASE_URL: databaseUrl,
    GRPC_PORT: '0',
    GRPC_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    NATS_URL: TEST_NATS_URL,
    LOG_LEVEL: 'silent',
    NATS_STREAM: ns.stream,
    NATS_SUBJECT_PREFIX: ns.prefix,
    SHUTDOWN_DRAIN_MS: '0',
    PRINCIPAL_SIGNING_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    BFF_USER: ADMIN,
    BFF_PASSWORD: ADMIN_PASSWORD,
    ...env,
  };
}

/** A parsed line of the service's JSON log. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** With `logs`, every start logs at `info` (unless `env` says otherwise) into that array, across restarts. */
export async function startTestService(
  label: string,
  env: Record<string, string> = {},
  logs?: LogLine[],
): Promise<TestService> {
  const testDb: TestDatabase = await createTestDatabase(label);
  const ns = testEventNamespace();
  const baseEnv = testServiceEnv(testDb.url, ns, logs ? { LOG_LEVEL: 'info', ...env } : env);
  const sink = logs && logLineSink(logs);
  const start = async (overrides: Record<string, string>): Promise<App> => {
    const config = loadConfig({ ...baseEnv, ...overrides });
    const started = await startApp(config, createLogger('identidad-svc', config.logLevel, sink));
    await started.ready.catch(async (err: unknown) => {
      await started.stop();
      throw err;
    });
    return started;
  };
  let app = await start({}).catch(async (err: unknown) => {
    await testDb.drop();
    throw err;
  });
  let client = new IdentidadServiceClient(`127.0.0.1:${app.grpcPort}`, credentials.createInsecure());
  let actual = identidadRpcOf(client);
  // Follows the running app across restarts (its port changes).
  const rpc = new Proxy({} as IdentidadRpc, { get: (_t, name) => actual[name as keyof IdentidadRpc] });
  const db = createDb(testDb.url);
  let nc: NatsConnection | undefined;
  const nats = async () => (nc ??= await connectTestNats());
  const login = (usuario: string, password: string, direccion = '127.0.0.1') =>
    rpc.autenticar({ basica: { usuario, password }, direccion });
  return {
    get app() {
      return app;
    },
    rpc,
    db,
    ns,
    login,
    admin: () => login(ADMIN, ADMIN_PASSWORD),
    async publishedEvents() {
      await waitFor(async () => (await countPendingEvents(db)) === 0, 'the outbox relay to publish every event');
      return readStream(await nats(), ns.stream);
    },
    nats,
    async restart(overrides = {}) {
      client.close();
      await app.stop();
      app = await start(overrides);
      client = new IdentidadServiceClient(`127.0.0.1:${app.grpcPort}`, credentials.createInsecure());
      actual = identidadRpcOf(client);
    },
    async close() {
      client.close();
      await app.stop();
      const conn = await nats();
      await deleteStream(conn, ns.stream);
      await conn.close();
      await db.destroy();
      await testDb.drop();
    },
  };
}
