/**
 * Start-up against a database that is not there yet, and several replicas
 * starting at once: the service waits (health NOT_SERVING, calls
 * UNAVAILABLE) instead of exiting, and migrations take turns. Rollbacks:
 * a database a newer release migrated is served all the same, and with
 * MIGRATE_ON_START=false the service runs no DDL and refuses a database
 * that lacks one of its migrations.
 */
import { createServer, type AddressInfo } from 'node:net';
import { status } from '@grpc/grpc-js';
import { createDb, createLogger, MigrationsMissingError, parseMysqlUrl, type Knex } from '@inventario/platform';
import {
  connectTestNats,
  createTestDatabase,
  deleteStream,
  freePort,
  testEventNamespace,
  waitFor,
  type EventNamespace,
  type TestDatabase,
} from '@inventario/testkit';
import { startApp, type App } from '../src/app';
import { migrations } from '../src/store/migrations';
import { createHealthClient, createProductoClient, productoApi, rejectionOf } from '@inventario/testkit/grpc';
import { startTcpProxy, type TcpProxy } from '@inventario/testkit';
import { testConfig } from './support/test-service';

const logger = createLogger('producto-svc', 'silent');

/** `url` with its host and port replaced by the proxy's. */
function through(proxy: TcpProxy, url: string): string {
  const u = new URL(url);
  u.host = `127.0.0.1:${proxy.port}`;
  return u.toString();
}

describe('start-up', () => {
  let database: TestDatabase;
  const apps: App[] = [];
  const namespaces: EventNamespace[] = [];
  const namespace = () => {
    const ns = testEventNamespace();
    namespaces.push(ns);
    return ns;
  };

  beforeEach(async () => {
    database = await createTestDatabase('p_start');
  });

  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.stop()));
    await database.drop();
    const nc = await connectTestNats();
    for (const ns of namespaces.splice(0)) await deleteStream(nc, ns.stream);
    await nc.close();
  });

  it('waits for an unreachable database, answering NOT_SERVING and UNAVAILABLE, then serves once it answers', async () => {
    const target = new URL(database.url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 3306));
    await proxy.cut();
    const port = await freePort();
    const config = testConfig(database, namespace(), (d) => ({
      DATABASE_URL: through(proxy, d.url),
      GRPC_PORT: String(port),
    }));
    const health = createHealthClient(port);
    const client = createProductoClient(port);
    try {
      const starting = startApp(config, logger);
      await waitFor(
        async () => (await health.check('').catch(() => undefined)) === 'NOT_SERVING',
        'health NOT_SERVING while the database is unreachable',
      );
      const refused = await rejectionOf(productoApi(client).get(1));
      expect(refused.code).toBe(status.UNAVAILABLE);

      await proxy.restore();
      apps.push(await starting);
      await waitFor(async () => (await health.check('')) === 'SERVING', 'health SERVING once the database answers');
      const { producto } = await productoApi(client).create({
        nombre: 'Llega tarde',
        precio: '1.00',
        cantidadEnStock: 1,
      });
      expect(producto?.id).toBeGreaterThan(0);
    } finally {
      health.close();
      client.close();
      await proxy.close();
    }
  });

  it('starts three replicas together on an empty database, applying each migration once', async () => {
    const ns = namespace();
    const started = await Promise.all([1, 2, 3].map(() => startApp(testConfig(database, ns), logger)));
    apps.push(...started);

    const db = createDb(database.url);
    try {
      const rows = await db('knex_migrations').select('name');
      expect(rows.map((r: { name: string }) => r.name).sort()).toEqual(Object.keys(migrations).sort());
    } finally {
      await db.destroy();
    }
  });

  it('starts on a database a newer release migrated (an applied migration it does not know), names that migration, and serves', async () => {
    const ns = namespace();
    await (await startApp(testConfig(database, ns), logger)).stop();
    const db = createDb(database.url);
    const newer = '9000_de_una_version_posterior';
    const lines: Record<string, unknown>[] = [];
    const sink = { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
    try {
      // What `helm rollback` leaves: the schema and migration list of the release rolled back from.
      await db('knex_migrations').insert({ name: newer, batch: 99, migration_time: new Date() });
      const app = await startApp(testConfig(database, ns), createLogger('producto-svc', 'warn', sink));
      apps.push(app);
      const client = createProductoClient(app.grpcPort);
      try {
        const { producto } = await productoApi(client).create({
          nombre: 'Tras un rollback',
          precio: '2.00',
          cantidadEnStock: 1,
        });
        expect(producto?.id).toBeGreaterThan(0);
      } finally {
        client.close();
      }
      expect(lines).toContainEqual(expect.objectContaining({ level: 40, unknownMigrations: [newer] }));
      expect(await appliedNames(db)).toEqual([...Object.keys(migrations), newer].sort());
    } finally {
      await db.destroy();
    }
  });

  it('with MIGRATE_ON_START=false refuses an unmigrated database, naming every missing migration, and creates nothing', async () => {
    const refused: unknown = await startApp(
      testConfig(database, namespace(), { MIGRATE_ON_START: 'false' }),
      logger,
    ).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(MigrationsMissingError);
    const message = (refused as Error).message;
    for (const name of Object.keys(migrations)) expect(message).toContain(name);
    expect(message).toContain('MIGRATE_ON_START');
    const db = createDb(database.url);
    try {
      expect(await db.raw('SHOW TABLES').then(([rows]: [unknown[]]) => rows)).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it("with MIGRATE_ON_START=false serves a migrated database as a user without DDL privileges, a newer release's migration included", async () => {
    const ns = namespace();
    await (await startApp(testConfig(database, ns), logger)).stop();
    const root = createDb(database.url);
    const { database: name } = parseMysqlUrl(database.url);
    const user = `dml_${name.slice(-12)}`;
    const password = 'sin-ddl';
    try {
      await root('knex_migrations').insert({
        name: '9000_de_una_version_posterior',
        batch: 99,
        migration_time: new Date(),
      });
      await root.raw("CREATE USER ?@'%' IDENTIFIED BY ?", [user, password]);
      await root.raw(`GRANT SELECT, INSERT, UPDATE, DELETE ON \`${name}\`.* TO ?@'%'`, [user]);
      const url = new URL(database.url);
      url.username = user;
      url.password = password;
      const app = await startApp(
        testConfig(database, ns, { DATABASE_URL: url.toString(), MIGRATE_ON_START: 'false' }),
        logger,
      );
      apps.push(app);
      const client = createProductoClient(app.grpcPort);
      try {
        const api = productoApi(client);
        const { producto } = await api.create({ nombre: 'Sin DDL', precio: '3.00', cantidadEnStock: 2 });
        expect((await api.get(producto!.id)).producto?.nombre).toBe('Sin DDL');
      } finally {
        client.close();
      }
    } finally {
      await root.raw("DROP USER IF EXISTS ?@'%'", [user]);
      await root.destroy();
    }
  });

  it('starts even when a migration killed halfway left the knex migration lock set', async () => {
    const ns = namespace();
    const first = await startApp(testConfig(database, ns), logger);
    await first.stop();
    const db = createDb(database.url);
    try {
      // What a process killed between knex taking and releasing its lock leaves behind.
      await db('knex_migrations_lock').update({ is_locked: 1 });
      apps.push(await startApp(testConfig(database, ns), logger));
      expect((await db('knex_migrations_lock').first()) as { is_locked: number }).toMatchObject({ is_locked: 0 });
    } finally {
      await db.destroy();
    }
  });

  it('closes what it opened (the metrics server) when a later start-up step fails: its gRPC port in use', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, resolve));
    const grpcPort = (squatter.address() as AddressInfo).port;
    const metricsPort = await freePort();
    try {
      const config = testConfig(database, namespace(), {
        GRPC_PORT: String(grpcPort),
        METRICS_PORT: String(metricsPort),
        METRICS_HOST: '127.0.0.1',
      });
      await expect(startApp(config, logger)).rejects.toThrow();
      expect(await portIsFree(metricsPort)).toBe(true);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

async function appliedNames(db: Knex): Promise<string[]> {
  const rows = (await db('knex_migrations').select('name').orderBy('name')) as { name: string }[];
  return rows.map((row) => row.name);
}
