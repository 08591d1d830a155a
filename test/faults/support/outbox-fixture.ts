import {
  countPendingEvents,
  createDb,
  dropDatabase,
  ensureDatabase,
  type Knex,
  type NatsConnection,
} from '@inventario/platform';
import type { ProductoServiceClient } from '@inventario/proto';
import {
  connectTestNats,
  deleteStream,
  freePort,
  readStream,
  startPrivateNatsServer,
  testEventNamespace,
  uniqueName,
  type EventNamespace,
  type PrivateNatsServer,
  type TestDatabase,
} from '@inventario/testkit';
import { createProductoClient, productoApi, type ProductoApi } from '@inventario/testkit/grpc';
import { grpcServiceEnv, startServiceProcess, type ServiceProcess } from './processes';
import { faultsMysqlServer } from './suite-mariadb';

/**
 * producto-svc as a built process against a private nats-server and the
 * suite's private mariadbd (suite-mariadb.ts), with what the outbox fault
 * tests look at from outside: the outbox table (the test's own pool on the
 * service's database) and the stream (the test's own connection to the
 * private server, which reconnects across its restarts).
 */
export interface OutboxFaultFixture {
  nats: PrivateNatsServer;
  database: TestDatabase;
  namespace: EventNamespace;
  /** The service's environment (same port, database and stream on every start). */
  env: Record<string, string>;
  /** The current producto-svc process. */
  service(): ServiceProcess;
  /** Starts producto-svc (again) with `env` plus `extraEnv`; the previous process must have ended. */
  startService(faults?: { relayMarkDelayMs?: number }): Promise<ServiceProcess>;
  /** Calls the service over gRPC as `fault-tester`. */
  api: ProductoApi;
  /** Outbox rows not yet acknowledged by JetStream. */
  pendingEvents(): Promise<number>;
  /** Event ids of every outbox row, in commit order. */
  outboxEventIds(): Promise<string[]>;
  /** Event ids of every message in the stream, in stream order (duplicates kept). */
  streamEventIds(): Promise<string[]>;
  /** Kills the service, deletes the stream, drops the database, stops the server. */
  close(): Promise<void>;
}

export async function startOutboxFaultFixture(label: string): Promise<OutboxFaultFixture> {
  const nats = await startPrivateNatsServer();
  const databaseUrl = `${faultsMysqlServer()}/${uniqueName(`t_${label}`)}`;
  await ensureDatabase(databaseUrl).catch(async (err: unknown) => {
    await nats.dispose();
    throw err;
  });
  const database: TestDatabase = { url: databaseUrl, drop: () => dropDatabase(databaseUrl) };
  const namespace = testEventNamespace();
  const grpcPort = await freePort();
  const env = {
    ...grpcServiceEnv({ databaseUrl: database.url, grpcPort, natsUrl: nats.url, namespace }),
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
  };
  const db: Knex = createDb(database.url);
  const nc: NatsConnection = await connectTestNats(nats.url);
  const client: ProductoServiceClient = createProductoClient(grpcPort);
  let current: ServiceProcess | undefined;

  return {
    nats,
    database,
    namespace,
    env,
    service() {
      if (!current) throw new Error('producto-svc was never started');
      return current;
    },
    async startService(faults) {
      if (current?.running()) throw new Error('producto-svc still runs; kill it first');
      current = await startServiceProcess('producto-svc', env, { faults });
      return current;
    },
    api: productoApi(client, { usuario: 'fault-tester' }),
    pendingEvents: () => countPendingEvents(db),
    async outboxEventIds() {
      const rows = await db('outbox').select('event_id').orderBy('id');
      return rows.map((r: { event_id: string }) => r.event_id);
    },
    async streamEventIds() {
      return (await readStream(nc, namespace.stream)).map((m) => m.body.id);
    },
    async close() {
      client.close();
      await current?.kill();
      await nats.start(); // a test may have failed while it was stopped
      await deleteStream(nc, namespace.stream);
      await nc.close();
      await db.destroy();
      await database.drop();
      await nats.dispose();
    },
  };
}
