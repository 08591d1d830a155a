/**
 * The built process, as Kubernetes runs it: SIGTERM runs the written
 * shutdown sequence and exits 0, also while start-up still waits for the
 * database.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createDb } from '@inventario/platform';
import {
  connectTestNats,
  createTestDatabase,
  deleteStream,
  freePort,
  TEST_NATS_URL,
  testEventNamespace,
  waitFor,
  type TestDatabase,
} from '@inventario/testkit';

import { migrations } from '../src/store/migrations';

const MAIN = join(__dirname, '..', 'dist', 'main.js');

interface LogLine {
  msg: string;
  step?: string;
  err?: { message?: string };
}

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'info', NATS_URL: TEST_NATS_URL, SHUTDOWN_DRAIN_MS: '100', ...env },
  });
  const lines: LogLine[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const complete = buffered.split('\n');
    buffered = complete.pop() ?? '';
    for (const line of complete) if (line.trim()) lines.push(JSON.parse(line) as LogLine);
  });
  // 'close', not 'exit': only then has all of the child's output been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  // Fails at once, with what the process said, if it exits before logging `msg`.
  const logged = async (msg: string): Promise<void> => {
    const seen = () => lines.some((l) => l.msg === msg);
    await Promise.race([
      waitFor(seen, `the log line "${msg}"`, 30_000),
      exited.then((code) => {
        if (!seen())
          throw new Error(`exited (${code}) before logging "${msg}": ${JSON.stringify(lines.slice(-5))} ${stderr}`);
      }),
    ]);
  };
  return { child, lines, exited, logged };
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
    await database.drop();
    const nc = await connectTestNats();
    await deleteStream(nc, ns.stream);
    await nc.close();
  });

  it('runs the written shutdown sequence on SIGTERM and exits 0', async () => {
    const p = run(await serviceEnv(database.url));
    try {
      await p.logged('producto-svc started');
      await p.logged('events ready');
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
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
      p.child.kill('SIGKILL');
    }
  });

  it('exits 0 on SIGTERM while start-up still waits for an unreachable database', async () => {
    const p = run(await serviceEnv(`mysql://root@127.0.0.1:${await freePort()}/inventario_producto`));
    try {
      await p.logged('grpc server listening');
      await p.logged('migrations failed; will retry');
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
      expect(p.lines.some((l) => l.msg === 'producto-svc stopped during start-up')).toBe(true);
    } finally {
      p.child.kill('SIGKILL');
    }
  });

  it('with MIGRATE_ON_START=false on an unmigrated database, exits 1 with a message naming the missing migrations', async () => {
    const empty = await createTestDatabase('p_proc_nomig');
    try {
      const p = run({ ...(await serviceEnv(empty.url)), MIGRATE_ON_START: 'false' });
      try {
        expect(await p.exited).toBe(1);
        const fatal = p.lines.find((l) => l.msg === 'producto-svc failed to start');
        expect(fatal?.err?.message).toMatch(
          /^the database lacks the migrations 0001_create_productos, .+; apply them first/,
        );
        for (const name of Object.keys(migrations)) expect(fatal?.err?.message).toContain(name);
      } finally {
        p.child.kill('SIGKILL');
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
    const p = run(await serviceEnv(database.url));
    try {
      await p.logged('migrations failed; will retry');
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
      expect(p.lines.some((l) => l.msg === 'producto-svc stopped during start-up')).toBe(true);
    } finally {
      p.child.kill('SIGKILL');
      release();
      await holding;
      await other.destroy();
    }
  });
});
