/**
 * The built process, stopped as Kubernetes stops it: SIGTERM runs the written
 * shutdown sequence and exits 0, also while start-up still waits for the
 * database. (testkit's spawner adds an IPC channel, which only carries the
 * ready message and the test process going away.)
 */
import { createDb } from '@inventario/platform';
import {
  connectTestNats,
  createTestDatabase,
  deleteStream,
  freePort,
  killAllServiceProcesses,
  startServiceProcess,
  TEST_NATS_URL,
  testEventNamespace,
  type TestDatabase,
} from '@inventario/testkit';

import { migrations } from '../src/store/migrations';

/** The built service, watched from its first line: `logged` fails at once, with what it said, if it exits first. */
function run(env: Record<string, string>) {
  return startServiceProcess(
    'producto-svc',
    { LOG_LEVEL: 'info', NATS_URL: TEST_NATS_URL, SHUTDOWN_DRAIN_MS: '100', ...env },
    { noWait: true },
  );
}

describe('producto-svc process', () => {
  let database: TestDatabase;
  const ns = testEventNamespace();

  beforeAll(async () => {
    database = await createTestDatabase('p_proc');
  });

  /** The service's environment: its database, a free port, this file's stream. */
  const serviceEnv = async (databaseUrl: string) => ({
    DATABASE_URL: databaseUrl,
    GRPC_PORT: String(await freePort()),
    METRICS_PORT: '0',
    NATS_STREAM: ns.stream,
    NATS_SUBJECT_PREFIX: ns.prefix,
  });

  afterAll(async () => {
    await killAllServiceProcesses();
    await database.drop();
    const nc = await connectTestNats();
    await deleteStream(nc, ns.stream);
    await nc.close();
  });

  it('runs the written shutdown sequence on SIGTERM and exits 0', async () => {
    const p = await run(await serviceEnv(database.url));
    try {
      await p.logged('producto-svc started');
      await p.logged('events ready');
      p.signal('SIGTERM');
      expect(await p.exited).toEqual({ code: 0, signal: null });
      expect(p.lines.filter((l) => l.msg === 'shutdown step').map((l) => l.step)).toEqual([
        'health NOT_SERVING',
        'drain delay',
        'grpc server',
        'consumers',
        'outbox relay',
        'nats drain',
        'database pool',
        'metrics server',
      ]);
      expect(p.lines.at(-1)?.msg).toBe('shutdown complete');
    } finally {
      await p.kill();
    }
  });

  it('exits 0 on SIGTERM while start-up still waits for an unreachable database', async () => {
    const p = await run(await serviceEnv(`mysql://root@127.0.0.1:${await freePort()}/inventario_producto`));
    try {
      await p.logged('grpc server listening');
      await p.logged('migrations failed; will retry');
      p.signal('SIGTERM');
      expect(await p.exited).toEqual({ code: 0, signal: null });
      expect(p.lines.some((l) => l.msg === 'producto-svc stopped during start-up')).toBe(true);
    } finally {
      await p.kill();
    }
  });

  it('with MIGRATE_ON_START=false on an unmigrated database, exits 1 with a message naming the missing migrations', async () => {
    const empty = await createTestDatabase('p_proc_nomig');
    try {
      const p = await run({ ...(await serviceEnv(empty.url)), MIGRATE_ON_START: 'false' });
      try {
        expect(await p.exited).toEqual({ code: 1, signal: null });
        const fatal = p.lines.find((l) => l.msg === 'producto-svc failed to start') as { err?: { message?: string } };
        expect(fatal?.err?.message).toMatch(
          /^the database lacks the migrations 0001_create_productos, .+; apply them first/,
        );
        for (const name of Object.keys(migrations)) expect(fatal?.err?.message).toContain(name);
      } finally {
        await p.kill();
      }
    } finally {
      await empty.drop();
    }
  });

  it('exits 0 on SIGTERM while another replica holds the migration lock', async () => {
    const other = createDb(database.url);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Another replica, mid-migration: holds the named lock on its own connection.
    const holding = other.transaction(async (session) => {
      await session.raw("SELECT GET_LOCK(CONCAT('inventario.migrate.', DATABASE()), 0)");
      await released;
      await session.raw("SELECT RELEASE_LOCK(CONCAT('inventario.migrate.', DATABASE()))");
    });
    const p = await run(await serviceEnv(database.url));
    try {
      await p.logged('migrations failed; will retry');
      p.signal('SIGTERM');
      expect(await p.exited).toEqual({ code: 0, signal: null });
      expect(p.lines.some((l) => l.msg === 'producto-svc stopped during start-up')).toBe(true);
    } finally {
      await p.kill();
      release();
      await holding;
      await other.destroy();
    }
  });
});
