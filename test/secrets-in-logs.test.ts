/**
 * The real entry points, started with credentials in every URL they take
 * (DATABASE_URL, NATS_URL, SMTP_URL), never print the secret: not in a
 * config error, not in a driver's error or stack, not in a start-up line.
 * Each process runs until it has failed or logged the line that proves it
 * got past the step in question, then is stopped; everything it wrote to
 * stdout and stderr is searched for the password.
 */
import { join } from 'node:path';
import {
  createTestDatabase,
  freePort,
  killAllServiceProcesses,
  startProcess,
  testEventNamespace,
  TEST_NATS_URL,
  uniqueName,
  waitFor,
  connectTestNats,
  deleteStream,
  type TestDatabase,
} from '@inventario/testkit';

const SECRET = 'SECRETpw';
const MYSQL_SERVER = new URL(process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
const nats = new URL(TEST_NATS_URL);
/** The test NATS has no authorization: it accepts any user and password, so the URL below connects. */
const NATS_WITH_SECRET = `nats://inventario:${SECRET}@${nats.host}`;

interface Run {
  /** Everything written to stdout and stderr so far. */
  output(): string;
  exited: Promise<number | null>;
  /** Waits until the output contains `text`; fails if the process exits first. */
  printed(text: string): Promise<void>;
  stop(): Promise<number | null>;
}

// A process still running when its test ends (a failed test) is killed.
afterEach(killAllServiceProcesses);

async function run(entry: string, env: Record<string, string>): Promise<Run> {
  const p = await startProcess(entry, [join(__dirname, '..', entry)], { LOG_LEVEL: 'debug', ...env }, { noWait: true });
  const output = () => p.stdout() + p.stderr();
  const exited = p.exited.then((how) => how.code);
  return {
    output,
    exited,
    async printed(text) {
      await Promise.race([
        waitFor(() => output().includes(text), `"${text}" in the output`, 30_000),
        exited.then(() => {
          if (!output().includes(text)) throw new Error(`exited before printing "${text}":\n${output()}`);
        }),
      ]);
    },
    stop() {
      p.signal('SIGTERM');
      return exited;
    },
  };
}

/** A gRPC service's environment with `env` over it; ports are ephemeral. */
const serviceEnv = (env: Record<string, string>) => ({
  GRPC_PORT: '0',
  GRPC_HOST: '127.0.0.1',
  METRICS_PORT: '0',
  METRICS_HOST: '127.0.0.1',
  SHUTDOWN_DRAIN_MS: '0',
  ...env,
});

let database: TestDatabase;
const namespace = testEventNamespace();
const bucket = uniqueName('notifier_sent');

beforeAll(async () => {
  database = await createTestDatabase('secrets');
});

afterAll(async () => {
  await database?.drop();
  const nc = await connectTestNats();
  try {
    for (const stream of [namespace.stream, `KV_${bucket}`]) await deleteStream(nc, stream);
  } finally {
    await nc.close();
  }
});

/** The test database's URL with a user and the secret as its password. */
function databaseUrlWith(host: string): string {
  return `mysql://inventario:${SECRET}@${host}${new URL(database.url).pathname}`;
}

describe.each([
  'services/producto-svc/dist/main.js',
  'services/producto-svc/dist/migrate-main.js',
  'services/bodega-svc/dist/migrate-main.js',
])('%s', (entry) => {
  test('a DATABASE_URL that does not parse (port 99999): exit 1 naming DATABASE_URL, without the password', async () => {
    const p = await run(entry, serviceEnv({ DATABASE_URL: databaseUrlWith(`${MYSQL_SERVER.hostname}:99999`) }));
    const code = await p.exited;
    expect(p.output()).not.toContain(SECRET);
    expect(code).toBe(1);
    expect(p.output()).toContain('DATABASE_URL');
  });

  test('a DATABASE_URL with a malformed %-escape in the password: exit 1, the password not printed', async () => {
    const p = await run(
      entry,
      serviceEnv({
        DATABASE_URL: `mysql://inventario:${SECRET}%zz@${MYSQL_SERVER.host}${new URL(database.url).pathname}`,
      }),
    );
    const code = await p.exited;
    expect(p.output()).not.toContain(SECRET);
    expect(code).toBe(1);
    expect(p.output()).toContain('DATABASE_URL');
  });
});

describe('producto-svc', () => {
  test('a database that refuses the password: the driver error is logged, the password is not', async () => {
    const p = await run(
      'services/producto-svc/dist/main.js',
      serviceEnv({ DATABASE_URL: databaseUrlWith(MYSQL_SERVER.host) }),
    );
    const code = await p.exited;
    expect(p.output()).not.toContain(SECRET);
    expect(code).toBe(1);
    expect(p.output()).toContain('Access denied');
  });

  test('NATS_URL with a user and password: the start-up lines name the server, never the password', async () => {
    const p = await run(
      'services/producto-svc/dist/main.js',
      serviceEnv({
        DATABASE_URL: database.url,
        NATS_URL: NATS_WITH_SECRET,
        NATS_STREAM: namespace.stream,
        NATS_SUBJECT_PREFIX: namespace.prefix,
      }),
    );
    try {
      await p.printed('nats connected');
      await p.printed('events ready');
    } finally {
      await p.stop();
    }
    expect(p.output()).not.toContain(SECRET);
    expect(p.output()).toContain(`nats://[redacted]@${nats.host}`);
  });

  test('NATS_URL that does not parse: exit 1 naming NATS_URL, without the password', async () => {
    const p = await run(
      'services/producto-svc/dist/main.js',
      serviceEnv({ DATABASE_URL: database.url, NATS_URL: `nats://inventario:${SECRET}@${nats.hostname}:99999` }),
    );
    const code = await p.exited;
    expect(p.output()).not.toContain(SECRET);
    expect(code).toBe(1);
    expect(p.output()).toContain('NATS_URL');
  });
});

describe('notifier', () => {
  test('SMTP_URL and NATS_URL with passwords, the SMTP server down: every line is free of both', async () => {
    const p = await run('services/notifier/dist/main.js', {
      SMTP_URL: `smtp://notifier:${SECRET}@127.0.0.1:${await freePort()}`,
      NATS_URL: NATS_WITH_SECRET,
      NATS_STREAM: namespace.stream,
      NATS_SUBJECT_PREFIX: namespace.prefix,
      NOTIFIER_SENT_BUCKET: bucket,
      SENDER_EMAIL: 'inventario@example.com',
      RECIPIENT_EMAIL: 'almacen@example.com',
      METRICS_PORT: '0',
      METRICS_HOST: '127.0.0.1',
    });
    try {
      await p.printed('smtp server not reachable yet');
      await p.printed('notifier started');
    } finally {
      await p.stop();
    }
    expect(p.output()).not.toContain(SECRET);
    expect(p.output()).toContain(`nats://[redacted]@${nats.host}`);
  });

  test('an SMTP_URL that does not parse (port 99999): exit 1 naming SMTP_URL, without the password', async () => {
    const p = await run('services/notifier/dist/main.js', {
      SMTP_URL: `smtp://notifier:${SECRET}@127.0.0.1:99999`,
      SENDER_EMAIL: 'inventario@example.com',
      RECIPIENT_EMAIL: 'almacen@example.com',
    });
    const code = await p.exited;
    expect(p.output()).not.toContain(SECRET);
    expect(code).toBe(1);
    expect(p.output()).toContain('SMTP_URL');
  });
});
