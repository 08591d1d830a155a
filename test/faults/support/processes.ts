/**
 * The BUILT services (`services/<name>/dist/main.js`) as real child
 * processes, for fault tests that kill, stop and restart them. A process is
 * ready when the service's main sends its IPC ready message (after
 * migrations for a gRPC service, so health is SERVING then); the same IPC
 * channel makes a service shut down if the test process dies. Every process
 * started here is remembered, so `killAllServiceProcesses()` in an afterAll
 * leaves nothing running even when a test failed halfway.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createDb, dropDatabase, ensureDatabase, READY_MESSAGE_TYPE } from '@inventario/platform';
import {
  connectTestNats,
  deleteStream,
  freePort,
  readStream,
  testEventNamespace,
  uniqueName,
  waitFor,
  waitForOutboxesDrained,
  type EventNamespace,
  type StoredEvent,
} from '@inventario/testkit';
import { basicAuth, httpRequest, type StackRequestOptions, type StackResponse } from '../../../services/bff/test/support/stack';
import { faultsMysqlServer } from './suite-mariadb';

export type ServiceName = 'producto-svc' | 'bodega-svc' | 'bff' | 'notifier';

/** One JSON log line of a service (pino). */
export interface LogLine {
  msg: string;
  level?: number;
  [field: string]: unknown;
}

/** How a process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  readonly name: ServiceName;
  readonly pid: number;
  /** The environment it was started with (start it again with the same one to restart on the same port). */
  readonly env: Readonly<Record<string, string>>;
  readonly child: ChildProcess;
  /** Its parsed JSON log lines so far. */
  readonly lines: LogLine[];
  stderr(): string;
  /** Resolves once it ended and all of its output was read. */
  readonly exited: Promise<ProcessExit>;
  running(): boolean;
  /** Waits for a log line with `msg` (and `fields`); fails at once if the process exits first. */
  logged(msg: string, fields?: Record<string, unknown>, timeoutMs?: number): Promise<LogLine>;
  /** Sends `sig` (SIGTERM, SIGKILL, SIGSTOP, SIGCONT...). */
  signal(sig: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs` (default 30 s); resolves with how it ended. */
  stop(graceMs?: number): Promise<ProcessExit>;
  /** SIGKILL (after SIGCONT, in case it was stopped); resolves once it is gone. */
  kill(): Promise<ProcessExit>;
}

export interface StartProcessOptions {
  /** How long to wait for the ready message (default 60 s). */
  readyTimeoutMs?: number;
  /** Resolve as soon as it is spawned, without waiting for ready (default false). */
  noWait?: boolean;
  /**
   * Fault injection, passed to the service's main by test/fixtures/main-with-faults.js
   * (no environment variable sets it): producto-svc and bodega-svc take
   * `{ relayMarkDelayMs }`, the notifier `{ ackDelayMs }`.
   */
  faults?: Record<string, number>;
}

/** The test-only entry that runs a service's main with fault injection options. */
const MAIN_WITH_FAULTS = join(__dirname, '..', '..', 'fixtures', 'main-with-faults.js');

const ROOT = join(__dirname, '..', '..', '..');
const started = new Set<ServiceProcess>();

/** The compiled entry point of a service. */
export function serviceMain(name: ServiceName): string {
  return join(ROOT, 'services', name, 'dist', 'main.js');
}

/**
 * Spawns the built service with exactly `env` (plus PATH; LOG_LEVEL
 * defaults to warn) and waits until it reports ready. Rejects with its last
 * log lines if it exits first or is not ready in time (it is killed then).
 */
export async function startServiceProcess(name: ServiceName, env: Record<string, string>, options: StartProcessOptions = {}): Promise<ServiceProcess> {
  const fullEnv: Record<string, string> = { LOG_LEVEL: 'warn', ...env };
  const entry = options.faults ? [MAIN_WITH_FAULTS, serviceMain(name), JSON.stringify(options.faults)] : [serviceMain(name)];
  const child = spawn(process.execPath, entry, {
    env: { PATH: process.env.PATH ?? '', ...fullEnv },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const lines: LogLine[] = [];
  let stderr = '';
  let buffered = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const complete = buffered.split('\n');
    buffered = complete.pop() ?? '';
    for (const line of complete) {
      if (!line.trim()) continue;
      try {
        lines.push(JSON.parse(line) as LogLine);
      } catch {
        lines.push({ msg: line });
      }
    }
  });
  let ended = false;
  // 'close', not 'exit': only then has all of the child's output been read.
  const exited = new Promise<ProcessExit>((resolve) =>
    child.once('close', (code, signal) => {
      ended = true;
      resolve({ code, signal });
    }),
  );
  const ready = new Promise<void>((resolve) => {
    child.on('message', (message: unknown) => {
      if ((message as { type?: unknown } | null)?.type === READY_MESSAGE_TYPE) resolve();
    });
  });
  const describe = () => `${name} (pid ${child.pid}): ${JSON.stringify(lines.slice(-5))} ${stderr.slice(-2000)}`;

  const proc: ServiceProcess = {
    name,
    pid: child.pid ?? -1,
    env: fullEnv,
    child,
    lines,
    stderr: () => stderr,
    exited,
    running: () => !ended && child.exitCode === null && child.signalCode === null,
    async logged(msg, fields = {}, timeoutMs = 30_000) {
      const find = () => lines.find((l) => l.msg === msg && Object.entries(fields).every(([k, v]) => l[k] === v));
      return Promise.race([
        waitFor(find, `${name} to log "${msg}"`, timeoutMs),
        exited.then((how) => {
          const line = find();
          if (line) return line;
          throw new Error(`${name} exited (${how.code ?? how.signal}) before logging "${msg}": ${describe()}`);
        }),
      ]);
    },
    signal(sig) {
      if (proc.running()) child.kill(sig);
    },
    async stop(graceMs = 30_000) {
      proc.signal('SIGTERM');
      const timer = setTimeout(() => proc.signal('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    async kill() {
      proc.signal('SIGCONT');
      proc.signal('SIGKILL');
      return exited;
    },
  };
  started.add(proc);
  void exited.then(() => started.delete(proc));
  if (options.noWait) return proc;

  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      ready,
      exited.then((how) => {
        throw new Error(`${name} exited (${how.code ?? how.signal}) before it was ready: ${describe()}`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${name} was not ready within ${timeoutMs} ms: ${describe()}`)), timeoutMs);
      }),
    ]);
  } catch (err) {
    await proc.kill();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return proc;
}

/** SIGKILLs every service process started here that still runs (for afterAll). */
export async function killAllServiceProcesses(): Promise<void> {
  await Promise.all([...started].map((p) => p.kill()));
}

/** The environment of a gRPC service on 127.0.0.1:`grpcPort` (metrics on an ephemeral port), with quick shutdown and health checks. */
export function grpcServiceEnv(options: { databaseUrl: string; grpcPort: number; natsUrl: string; namespace: EventNamespace }): Record<string, string> {
  return {
    DATABASE_URL: options.databaseUrl,
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(options.grpcPort),
    NATS_URL: options.natsUrl,
    NATS_STREAM: options.namespace.stream,
    NATS_SUBJECT_PREFIX: options.namespace.prefix,
    DB_CHECK_INTERVAL_MS: '200',
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    SHUTDOWN_DRAIN_MS: '500',
    SHUTDOWN_TIMEOUT_MS: '20000',
  };
}

export const FAULT_USER = 'fault-tester';
export const FAULT_PASSWORD = 'fault-s3cret';

/** The environment of a BFF on 127.0.0.1:`port` (metrics on an ephemeral port) in front of the two services; no rate limit. */
export function bffEnv(options: { port: number; productoSvcAddr: string; bodegaSvcAddr: string }): Record<string, string> {
  return {
    PORT: String(options.port),
    HOST: '127.0.0.1',
    BFF_USER: FAULT_USER,
    BFF_PASSWORD: FAULT_PASSWORD,
    PRODUCTO_SVC_ADDR: options.productoSvcAddr,
    BODEGA_SVC_ADDR: options.bodegaSvcAddr,
    RATE_LIMIT_PER_MINUTE: '0',
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    SHUTDOWN_DRAIN_MS: '500',
    SHUTDOWN_TIMEOUT_MS: '20000',
  };
}

export interface ProcessStackOptions {
  /** Part of the database names (`t_<label>_p_...`). */
  label: string;
  /** The (private) NATS server the services publish to. */
  natsUrl: string;
  /** Server part of the MySQL URL (no database); default the suite's private mariadbd (suite-mariadb.ts). */
  mysqlServer?: string;
  /** Extra environment per service, over the defaults above (e.g. GRPC_DEADLINE_MS for the BFF). */
  env?: Partial<Record<'producto-svc' | 'bodega-svc' | 'bff', Record<string, string>>>;
}

/** producto-svc, bodega-svc and the BFF as processes, with their own databases and stream. */
export interface ProcessStack {
  namespace: EventNamespace;
  databaseUrls: { 'producto-svc': string; 'bodega-svc': string };
  /** The fixed ports (a restarted process binds the same one). */
  ports: { 'producto-svc': number; 'bodega-svc': number; bff: number };
  /** e.g. `http://127.0.0.1:34567`. */
  baseUrl: string;
  /** `Basic ...` for the BFF's user. */
  auth: string;
  /** The current process of a service (the restarted one after restart()). */
  process(name: 'producto-svc' | 'bodega-svc' | 'bff'): ServiceProcess;
  /** Starts the service again with the same environment (same port, database, stream); the old one must have ended. */
  restart(name: 'producto-svc' | 'bodega-svc' | 'bff'): Promise<ServiceProcess>;
  /** One request to the BFF as its user (auth: false to send none). */
  request(method: string, path: string, options?: StackRequestOptions): Promise<StackResponse>;
  /** Waits (up to `timeoutMs`, default 60 s) until both outboxes are drained, then reads the whole stream. */
  settledEvents(timeoutMs?: number): Promise<StoredEvent[]>;
  /** Kills what still runs, drops the databases (when reachable), deletes the stream (when NATS is). */
  close(): Promise<void>;
}

/** Starts the gRPC services, then the BFF, each waited for; on failure removes what it created. */
export async function startProcessStack(options: ProcessStackOptions): Promise<ProcessStack> {
  const server = options.mysqlServer ?? faultsMysqlServer();
  const namespace = testEventNamespace();
  const databaseUrls = {
    'producto-svc': `${server}/${uniqueName(`t_${options.label}_p`)}`,
    'bodega-svc': `${server}/${uniqueName(`t_${options.label}_b`)}`,
  };
  const ports = { 'producto-svc': await freePort(), 'bodega-svc': await freePort(), bff: await freePort() };
  const envs = {
    'producto-svc': {
      ...grpcServiceEnv({ databaseUrl: databaseUrls['producto-svc'], grpcPort: ports['producto-svc'], natsUrl: options.natsUrl, namespace }),
      // The reconciliation asks bodega-svc whether a deleted warehouse is really gone.
      BODEGA_SVC_ADDR: `127.0.0.1:${ports['bodega-svc']}`,
      ...options.env?.['producto-svc'],
    },
    'bodega-svc': {
      ...grpcServiceEnv({ databaseUrl: databaseUrls['bodega-svc'], grpcPort: ports['bodega-svc'], natsUrl: options.natsUrl, namespace }),
      // The reconciliation asks producto-svc whether a deleted product is really gone.
      PRODUCTO_SVC_ADDR: `127.0.0.1:${ports['producto-svc']}`,
      ...options.env?.['bodega-svc'],
    },
    bff: {
      ...bffEnv({ port: ports.bff, productoSvcAddr: `127.0.0.1:${ports['producto-svc']}`, bodegaSvcAddr: `127.0.0.1:${ports['bodega-svc']}` }),
      ...options.env?.bff,
    },
  };
  const current = new Map<'producto-svc' | 'bodega-svc' | 'bff', ServiceProcess>();
  const baseUrl = `http://127.0.0.1:${ports.bff}`;
  const auth = basicAuth(envs.bff.BFF_USER ?? FAULT_USER, envs.bff.BFF_PASSWORD ?? FAULT_PASSWORD);

  const close = async () => {
    await Promise.all([...current.values()].map((p) => p.kill()));
    await Promise.all(Object.values(databaseUrls).map((url) => dropDatabase(url).catch(() => undefined)));
    const nc = await connectTestNats(options.natsUrl).catch(() => undefined);
    if (nc) {
      await deleteStream(nc, namespace.stream);
      await nc.close();
    }
  };
  const start = async (name: 'producto-svc' | 'bodega-svc' | 'bff') => {
    const proc = await startServiceProcess(name, envs[name]);
    current.set(name, proc);
    return proc;
  };

  try {
    await Promise.all(Object.values(databaseUrls).map((url) => ensureDatabase(url)));
    await Promise.all([start('producto-svc'), start('bodega-svc')]);
    await start('bff');
  } catch (err) {
    await close();
    throw err;
  }
  return {
    namespace,
    databaseUrls,
    ports,
    baseUrl,
    auth,
    process(name) {
      const proc = current.get(name);
      if (!proc) throw new Error(`${name} was never started`);
      return proc;
    },
    async restart(name) {
      if (current.get(name)?.running()) throw new Error(`${name} still runs; stop or kill it first`);
      return start(name);
    },
    request: (method, path, requestOptions = {}) => httpRequest(baseUrl, auth, method, path, requestOptions),
    async settledEvents(timeoutMs = 60_000) {
      const pools = Object.values(databaseUrls).map((url) => createDb(url, { poolMax: 1 }));
      const nc = await connectTestNats(options.natsUrl);
      try {
        await waitForOutboxesDrained(pools, 'both outbox relays to publish every event', timeoutMs, 200);
        return await readStream(nc, namespace.stream);
      } finally {
        await nc.close();
        await Promise.all(pools.map((pool) => pool.destroy()));
      }
    },
    close,
  };
}
