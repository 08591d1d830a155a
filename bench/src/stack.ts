import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { dropDatabase, ensureDatabase } from '@inventario/platform';
import { connectTestNats, deleteStream, freePort, uniqueName, waitFor } from '@inventario/testkit';
import { prepareBdbWrites } from './bdb-writes';
import { startChild, type Child, type ChildSpec } from './children';
import { startSmtpSink, type SmtpSink } from './smtp-sink';

/** Repository root (bench/dist/ -> ../..). */
const ROOT = resolve(__dirname, '..', '..');
const USER = 'bench';

/** Where the stack under test is and how to reach its parts. */
export interface Stack {
  /** The BFF as deployed before the read cache: READ_CACHE_MAX_ENTRIES 0 (the cache-off figures). */
  bffUrl: string;
  /** A second BFF on the same services with its read cache on (issue 14); absent on a running stack (--target). */
  bffCachedUrl?: string;
  /** That BFF's GET /metrics (its admin port), for the cache's entry count and counters. */
  bffCachedMetricsUrl?: string;
  /** That BFF's READ_CACHE_MAX_ENTRIES. */
  readCacheMaxEntries?: number;
  /**
   * Issue 26: a third BFF, read cache on, authenticating through identidad-svc, with a LECTOR user of its own
   * (`basic`, its own password) and that user's API token (`bearer`); absent on a running stack.
   */
  identidad?: { bffUrl: string; basic: string; bearer: string };
  /** `Basic ...` for the BFF. */
  auth: string;
  /** B_db's base URL (`/productos/:id`). */
  bdbUrl: string;
  /** Whether B_db answers the write yardsticks (bdb-writes.ts): only on a stack the harness started. */
  bdbWrites: boolean;
  /** producto-svc's database (B_db reads it; the harness reads the outbox and trims POSTed rows). */
  productoDbUrl: string;
  /** bodega-svc's database (the harness reads its outbox only); unknown on a running stack without --bodega-db. */
  bodegaDbUrl?: string;
  natsUrl: string;
  stream: string;
  prefix: string;
  /** Receives the notifier's emails; absent when a running stack sends elsewhere. */
  sink?: SmtpSink;
  /** Processes whose event-loop delay and RSS are measured (the services started here, and B_db). */
  children: Child[];
  /** True when the harness started the services (and may trim their tables). */
  owned: boolean;
  /** Stops what was started and removes the databases and stream created here. */
  close(): Promise<void>;
}

export interface StackOptions {
  mysqlServer: string;
  natsUrl: string;
  logLevel: string;
  logDir: string;
  /** `--cpu-prof` into this directory for every child. */
  profileDir?: string;
  baseEnv: NodeJS.ProcessEnv;
  /** READ_CACHE_MAX_ENTRIES of `bff-cached`. */
  readCacheMaxEntries: number;
}

/** A running stack given with --target. */
export interface TargetOptions {
  bffUrl: string;
  user: string;
  password: string;
  productoDbUrl: string;
  bodegaDbUrl?: string;
  natsUrl: string;
  stream: string;
  prefix: string;
  /** Port for the harness's SMTP sink, if the running notifier sends to it. */
  smtpPort?: number;
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Runs cleanups in reverse order, each even if another failed. */
function cleanupList() {
  const steps: Array<() => Promise<unknown>> = [];
  return {
    push: (step: () => Promise<unknown>) => steps.push(step),
    async run() {
      for (const step of steps.reverse()) await step().catch(() => undefined);
      steps.length = 0;
    },
  };
}

function childOptions(options: StackOptions) {
  mkdirSync(options.logDir, { recursive: true });
  if (options.profileDir) mkdirSync(options.profileDir, { recursive: true });
  return {
    logDir: options.logDir,
    preload: join(__dirname, 'loop-monitor.js'),
    ...(options.profileDir ? { profileDir: options.profileDir } : {}),
    baseEnv: options.baseEnv,
  };
}

/** B_db as a child process on `producto`'s database; with `writeDbUrl`, its write yardsticks on that database. */
async function startBdb(
  productoDbUrl: string,
  options: StackOptions,
  writeDbUrl?: string,
): Promise<{ child: Child; url: string }> {
  const port = await freePort();
  const child = startChild(
    {
      name: 'bdb',
      entry: join(__dirname, 'bdb-main.js'),
      env: {
        DATABASE_URL: productoDbUrl,
        PORT: String(port),
        ...(writeDbUrl ? { BDB_WRITE_DATABASE_URL: writeDbUrl } : {}),
      },
    },
    childOptions(options),
  );
  await child.ready;
  return { child, url: `http://127.0.0.1:${port}` };
}

/**
 * Starts the whole stack from its built entry points: fresh databases on
 * the MySQL server, a stream and subject prefix of its own on NATS (and its
 * own sent-registry bucket for the notifier), the SMTP sink, producto-svc,
 * bodega-svc and B_db, then the BFF and the notifier.
 */
export async function startOwnStack(options: StackOptions): Promise<Stack> {
  const cleanups = cleanupList();
  const name = uniqueName('bench');
  const productoDbUrl = `${options.mysqlServer}/${name}_producto`;
  const bodegaDbUrl = `${options.mysqlServer}/${name}_bodega`;
  // B_db's write yardsticks write here, never in the services' databases (their relays would publish the rows).
  const bdbDbUrl = `${options.mysqlServer}/${name}_bdb`;
  const identidadDbUrl = `${options.mysqlServer}/${name}_identidad`;
  const stream = name.toUpperCase();
  const prefix = name;
  const bucket = `${name}-sent`;
  const children: Child[] = [];
  try {
    for (const url of [productoDbUrl, bodegaDbUrl, bdbDbUrl, identidadDbUrl]) {
      await ensureDatabase(url);
      cleanups.push(() => dropDatabase(url));
    }
    cleanups.push(async () => {
      const nc = await connectTestNats(options.natsUrl);
      await deleteStream(nc, stream);
      await deleteStream(nc, `KV_${bucket}`);
      await nc.close();
    });
    const sink = await startSmtpSink();
    cleanups.push(() => sink.close());

    const opts = childOptions(options);
    const start = (spec: ChildSpec) => {
      const child = startChild(spec, opts);
      children.push(child);
      cleanups.push(() => child.stop(30_000));
      return child;
    };
    const shared = {
      NATS_URL: options.natsUrl,
      NATS_STREAM: stream,
      NATS_SUBJECT_PREFIX: prefix,
      LOG_LEVEL: options.logLevel,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: '0',
    };
    const entry = (service: string) => join(ROOT, 'services', service, 'dist', 'main.js');
    const [productoPort, bodegaPort, bffPort, bffCachedPort, bffCachedMetricsPort, identidadPort, bffIdentidadPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const password = uniqueName('pw');
    const services = [
      // Issue 26: users, tokens and the argon2id verifications, with the bench user as its first ADMIN.
      start({
        name: 'identidad-svc',
        entry: entry('identidad-svc'),
        env: {
          ...shared,
          GRPC_HOST: '127.0.0.1',
          GRPC_PORT: String(identidadPort),
          DATABASE_URL: identidadDbUrl,
          PRINCIPAL_SIGNING_KEY: generateKeyPairSync('ed25519')
            .privateKey.export({ format: 'pem', type: 'pkcs8' })
            .toString(),
          BFF_USER: USER,
          BFF_PASSWORD: password,
        },
      }),
      start({
        name: 'producto-svc',
        entry: entry('producto-svc'),
        // BODEGA_SVC_ADDR: a product's initial stock and its counts are recorded in bodega-svc's ledger (one answer).
        env: {
          ...shared,
          GRPC_HOST: '127.0.0.1',
          GRPC_PORT: String(productoPort),
          DATABASE_URL: productoDbUrl,
          BODEGA_SVC_ADDR: `127.0.0.1:${bodegaPort}`,
        },
      }),
      start({
        name: 'bodega-svc',
        entry: entry('bodega-svc'),
        // PRODUCTO_SVC_ADDR: it asks producto-svc about a product it has not seen, and whether a deleted one is gone.
        env: {
          ...shared,
          GRPC_HOST: '127.0.0.1',
          GRPC_PORT: String(bodegaPort),
          DATABASE_URL: bodegaDbUrl,
          PRODUCTO_SVC_ADDR: `127.0.0.1:${productoPort}`,
        },
      }),
    ];
    await Promise.all(services.map((s) => s.ready));
    // The services have migrated: B_db's write tables copy their shape.
    await prepareBdbWrites(bdbDbUrl, `${name}_producto`, `${name}_bodega`);
    const bdb = await startBdb(productoDbUrl, options, bdbDbUrl);
    children.push(bdb.child);
    cleanups.push(() => bdb.child.stop(10_000));
    const late = [
      ...(
        [
          ['bff', bffPort, 0, '0'],
          // The same BFF with its read cache on, following the services' stream (issue 14); a
          // known metrics port, where the soak reads the cache's entry count.
          ['bff-cached', bffCachedPort, options.readCacheMaxEntries, String(bffCachedMetricsPort)],
        ] as const
      ).map(([name, port, cacheEntries, metricsPort]) =>
        start({
          name,
          entry: entry('bff'),
          env: {
            ...shared,
            HOST: '127.0.0.1',
            PORT: String(port),
            BFF_USER: USER,
            BFF_PASSWORD: password,
            PRODUCTO_SVC_ADDR: `127.0.0.1:${productoPort}`,
            BODEGA_SVC_ADDR: `127.0.0.1:${bodegaPort}`,
            // The harness is one client IP sending thousands of requests a second.
            RATE_LIMIT_PER_MINUTE: '0',
            READ_CACHE_MAX_ENTRIES: String(cacheEntries),
            METRICS_PORT: metricsPort,
          },
        }),
      ),
      start({
        name: 'bff-identidad',
        entry: entry('bff'),
        env: {
          ...shared,
          HOST: '127.0.0.1',
          PORT: String(bffIdentidadPort),
          BFF_USER: USER,
          BFF_PASSWORD: password,
          PRODUCTO_SVC_ADDR: `127.0.0.1:${productoPort}`,
          BODEGA_SVC_ADDR: `127.0.0.1:${bodegaPort}`,
          IDENTIDAD_SVC_ADDR: `127.0.0.1:${identidadPort}`,
          RATE_LIMIT_PER_MINUTE: '0',
          READ_CACHE_MAX_ENTRIES: String(options.readCacheMaxEntries),
        },
      }),
      start({
        name: 'notifier',
        entry: entry('notifier'),
        env: {
          ...shared,
          SMTP_URL: sink.url,
          SENDER_EMAIL: 'bench@localhost.localdomain',
          RECIPIENT_EMAIL: 'almacen@localhost.localdomain',
          NOTIFIER_SENT_BUCKET: bucket,
          // An email names the records its event does not (a product's warehouse): asked of their owners. Without
          // these the notifier asked the default ports, where nothing listens, and logged a failed lookup per email.
          PRODUCTO_SVC_ADDR: `127.0.0.1:${productoPort}`,
          BODEGA_SVC_ADDR: `127.0.0.1:${bodegaPort}`,
        },
      }),
    ];
    await Promise.all(late.map((s) => s.ready));
    await waitForStream(options.natsUrl, stream);
    const bffIdentidadUrl = `http://127.0.0.1:${bffIdentidadPort}`;
    const identidad = { bffUrl: bffIdentidadUrl, ...(await benchUser(bffIdentidadUrl, basic(USER, password))) };
    return {
      identidad,
      bffUrl: `http://127.0.0.1:${bffPort}`,
      bffCachedUrl: `http://127.0.0.1:${bffCachedPort}`,
      bffCachedMetricsUrl: `http://127.0.0.1:${bffCachedMetricsPort}/metrics`,
      readCacheMaxEntries: options.readCacheMaxEntries,
      auth: basic(USER, password),
      bdbUrl: bdb.url,
      bdbWrites: true,
      productoDbUrl,
      bodegaDbUrl,
      natsUrl: options.natsUrl,
      stream,
      prefix,
      sink,
      children,
      owned: true,
      close: () => cleanups.run(),
    };
  } catch (err) {
    await cleanups.run();
    throw err;
  }
}

/** Uses a running stack (--target); starts only B_db and, when asked, the SMTP sink. */
export async function useRunningStack(target: TargetOptions, options: StackOptions): Promise<Stack> {
  const cleanups = cleanupList();
  try {
    const bdb = await startBdb(target.productoDbUrl, options);
    cleanups.push(() => bdb.child.stop(10_000));
    let sink: SmtpSink | undefined;
    if (target.smtpPort !== undefined) {
      sink = await startSmtpSink(target.smtpPort);
      const started = sink;
      cleanups.push(() => started.close());
    }
    return {
      bffUrl: target.bffUrl.replace(/\/+$/, ''),
      auth: basic(target.user, target.password),
      bdbUrl: bdb.url,
      // B_db writes only into a database of its own, which a running stack's harness does not create.
      bdbWrites: false,
      productoDbUrl: target.productoDbUrl,
      ...(target.bodegaDbUrl === undefined ? {} : { bodegaDbUrl: target.bodegaDbUrl }),
      natsUrl: target.natsUrl,
      stream: target.stream,
      prefix: target.prefix,
      ...(sink ? { sink } : {}),
      children: [bdb.child],
      owned: false,
      close: () => cleanups.run(),
    };
  } catch (err) {
    await cleanups.run();
    throw err;
  }
}

/** A LECTOR of every warehouse with a password of its own, and an API token of that user (issue 26's reads). */
async function benchUser(bffUrl: string, admin: string): Promise<{ basic: string; bearer: string }> {
  const usuario = 'bench.lector';
  const password = uniqueName('pw-lector');
  const post = async (path: string, auth: string, body: unknown) => {
    const res = await fetch(`${bffUrl}${path}`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST ${path} on bff-identidad answered ${res.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  await post('/api/usuarios', admin, { usuario, password, asignaciones: [{ rol: 'LECTOR' }] });
  const own = basic(usuario, password);
  const token = await post('/api/tokens', own, { nombre: 'bench' });
  return { basic: own, bearer: `Bearer ${String(token.token)}` };
}

/** The services create the stream in the background after start-up; wait for it. */
async function waitForStream(natsUrl: string, stream: string): Promise<void> {
  const nc = await connectTestNats(natsUrl);
  try {
    const jsm = await jetstreamManager(nc);
    await waitFor(() => jsm.streams.info(stream).then(() => true), `stream ${stream}`, 30_000, 200);
  } finally {
    await nc.close();
  }
}
