/**
 * Start-up against a database that is not there yet, and several replicas
 * starting at once: the service waits (health NOT_SERVING, calls
 * UNAVAILABLE) instead of exiting, and migrations take turns.
 */
import { status } from '@grpc/grpc-js';
import { createDb, createLogger } from '@inventario/platform';
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
import { createHealthClient } from './support/health-client';
import { createProductoClient, productoApi, rejectionOf } from './support/producto-client';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';
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
    const config = testConfig(database, namespace(), (d) => ({ DATABASE_URL: through(proxy, d.url), GRPC_PORT: String(port) }));
    const health = createHealthClient(port);
    const client = createProductoClient(port);
    try {
      const starting = startApp(config, logger);
      await waitFor(async () => (await health.check('').catch(() => undefined)) === 'NOT_SERVING', 'health NOT_SERVING while the database is unreachable');
      const refused = await rejectionOf(productoApi(client).get(1));
      expect(refused.code).toBe(status.UNAVAILABLE);

      await proxy.restore();
      apps.push(await starting);
      await waitFor(async () => (await health.check('')) === 'SERVING', 'health SERVING once the database answers');
      const { producto } = await productoApi(client).create({ nombre: 'Llega tarde', precio: '1.00', cantidadEnStock: 1 });
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
});
