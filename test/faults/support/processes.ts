/**
 * The BUILT services as a stack of real child processes (testkit's
 * startServiceProcess), for fault tests that kill, stop and restart them.
 */
import { createDb, dropDatabase, ensureDatabase } from '@inventario/platform';
import {
  basicAuth,
  httpRequest,
  startServiceProcess,
  type StackRequestOptions,
  type StackResponse,
  type ServiceProcess,
  connectTestNats,
  deleteStream,
  freePort,
  readStream,
  testEventNamespace,
  uniqueName,
  waitForOutboxesDrained,
  type EventNamespace,
  type StoredEvent,
} from '@inventario/testkit';
import { faultsMysqlServer } from './suite-mariadb';

// The spawner itself is testkit's (one for every test); fault tests import it from here too.
export {
  killAllServiceProcesses,
  serviceMain,
  startServiceProcess,
  type LogLine,
  type ProcessExit,
  type ServiceName,
  type ServiceProcess,
  type StartProcessOptions,
} from '@inventario/testkit';

/** The environment of a gRPC service on 127.0.0.1:`grpcPort` (metrics on an ephemeral port), with quick shutdown and health checks. */
export function grpcServiceEnv(options: {
  databaseUrl: string;
  grpcPort: number;
  natsUrl: string;
  namespace: EventNamespace;
}): Record<string, string> {
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
export function bffEnv(options: {
  port: number;
  productoSvcAddr: string;
  bodegaSvcAddr: string;
}): Record<string, string> {
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
  /** The stream and subject prefix (default a new testEventNamespace()), e.g. to give them to a notifier too. */
  namespace?: EventNamespace;
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
  const namespace = options.namespace ?? testEventNamespace();
  const databaseUrls = {
    'producto-svc': `${server}/${uniqueName(`t_${options.label}_p`)}`,
    'bodega-svc': `${server}/${uniqueName(`t_${options.label}_b`)}`,
  };
  const ports = { 'producto-svc': await freePort(), 'bodega-svc': await freePort(), bff: await freePort() };
  const envs = {
    'producto-svc': {
      ...grpcServiceEnv({
        databaseUrl: databaseUrls['producto-svc'],
        grpcPort: ports['producto-svc'],
        natsUrl: options.natsUrl,
        namespace,
      }),
      // The reconciliation asks bodega-svc whether a deleted warehouse is really gone.
      BODEGA_SVC_ADDR: `127.0.0.1:${ports['bodega-svc']}`,
      ...options.env?.['producto-svc'],
    },
    'bodega-svc': {
      ...grpcServiceEnv({
        databaseUrl: databaseUrls['bodega-svc'],
        grpcPort: ports['bodega-svc'],
        natsUrl: options.natsUrl,
        namespace,
      }),
      // The reconciliation asks producto-svc whether a deleted product is really gone.
      PRODUCTO_SVC_ADDR: `127.0.0.1:${ports['producto-svc']}`,
      ...options.env?.['bodega-svc'],
    },
    bff: {
      ...bffEnv({
        port: ports.bff,
        productoSvcAddr: `127.0.0.1:${ports['producto-svc']}`,
        bodegaSvcAddr: `127.0.0.1:${ports['bodega-svc']}`,
      }),
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
