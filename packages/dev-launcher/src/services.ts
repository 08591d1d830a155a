import { generateKeyPairSync } from 'node:crypto';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { describeMysqlUrl } from '@inventario/platform';
import type { LauncherConfig } from './config';

/** How the launcher knows a process is ready. */
export type Readiness =
  /** grpc.health.v1 at this address answers SERVING (migrations done). */
  | { kind: 'grpc'; address: string }
  /** It sent the IPC ready message (a service's main via platform's announceStarted, the mail catcher). */
  | { kind: 'ipc' };

/** One process the launcher runs. */
export interface ServiceSpec {
  name: string;
  /** Compiled entry point. */
  entry: string;
  args?: string[];
  env: Record<string, string>;
  readiness: Readiness;
  /** Ports it binds on 127.0.0.1, with the variable that sets each (checked free before start). */
  ports: { variable: string; port: number }[];
  /** What to print once it is ready. */
  summary: string;
  /** Where it serves GET /metrics on 127.0.0.1 (the Inventario services). */
  metricsPort?: number;
}

/** The launcher's dev defaults for the BFF's credentials (docs/contract.md §8.6); never the BFF's own. */
export const DEV_CREDENTIALS = { user: 'admin', password: 'admin' } as const;

const root = path.resolve(__dirname, '..', '..', '..');

/** The SMTP URL the notifier uses: the user's, or the local mail catcher's. */
export function smtpUrlOf(config: LauncherConfig): string {
  return config.SMTP_URL ?? `smtp://127.0.0.1:${config.MAIL_CATCHER_SMTP_PORT}`;
}

/** One line naming every service's /metrics port, for the "up" summary. */
export function metricsSummaryOf(specs: readonly ServiceSpec[]): string {
  const ports = specs.flatMap((s) => (s.metricsPort === undefined ? [] : [`${s.name} ${s.metricsPort}`]));
  return `http://127.0.0.1:<port>/metrics: ${ports.join(', ')}`;
}

/** Where the mail catcher shows what the notifier sent, when it runs. */
export function inboxUrlOf(config: LauncherConfig): string | undefined {
  return config.SMTP_URL === undefined ? `http://127.0.0.1:${config.MAIL_CATCHER_WEB_PORT}/` : undefined;
}

/**
 * Every process and the environment each receives (docs/contract.md §8.6), in
 * start order: the mail catcher first (the notifier sends to it), then the
 * gRPC services, then the BFF and the notifier. Everything binds to
 * loopback: the gRPC services have no authentication of their own and the
 * BFF runs with dev credentials. A table, one entry per process: its length is the list of processes.
 */
export function serviceSpecs(config: LauncherConfig, natsPasswords?: Record<string, string>): ServiceSpec[] {
  const shared = {
    NATS_URL: config.NATS_URL,
    LOG_LEVEL: config.LOG_LEVEL,
    NATS_STREAM: config.NATS_STREAM,
    NATS_STREAM_REPLICAS: String(config.NATS_STREAM_REPLICAS),
    NATS_SUBJECT_PREFIX: config.NATS_SUBJECT_PREFIX,
    EVENT_TYPE_NAMESPACE: config.EVENT_TYPE_NAMESPACE,
  };
  /**
   * With the private NATS, each service connects as its own user of the chart's authorization (NATS_USER /
   * NATS_PASSWORD).
   */
  const natsUser = (user: string): Record<string, string> =>
    natsPasswords?.[user] === undefined ? {} : { NATS_USER: user, NATS_PASSWORD: natsPasswords[user] };
  const entry = (service: string) => path.join(root, 'services', service, 'dist', 'main.js');
  /** METRICS_PORT and METRICS_HOST of a service, and the launcher variable that sets the port. */
  const metrics = (port: number, variable: string) => ({
    env: { METRICS_HOST: '127.0.0.1', METRICS_PORT: String(port) },
    port: { variable, port },
  });
  /** A gRPC service on 127.0.0.1, with its database and the variables that set them. */
  const grpcService = (
    name: string,
    grpcService: string,
    databaseUrl: string,
    [port, portVariable]: [number, string],
    [metricsPort, metricsVariable]: [number, string],
    extraEnv: Record<string, string> = {},
  ): ServiceSpec => {
    const m = metrics(metricsPort, metricsVariable);
    return {
      name,
      entry: entry(name),
      env: {
        ...shared,
        ...natsUser(name),
        ...m.env,
        GRPC_HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        GRPC_PORT: String(port),
        ...extraEnv,
      },
      readiness: { kind: 'grpc', address: `127.0.0.1:${port}` },
      ports: [{ variable: portVariable, port }, m.port],
      summary: `gRPC 127.0.0.1:${port} (${grpcService}) -> ${describeMysqlUrl(databaseUrl)}`,
      metricsPort,
    };
  };

  const mailCatcher: ServiceSpec[] =
    config.SMTP_URL === undefined
      ? [
          {
            name: 'mail-catcher',
            entry: path.join(__dirname, 'mail-catcher.js'),
            args: [String(config.MAIL_CATCHER_SMTP_PORT), String(config.MAIL_CATCHER_WEB_PORT)],
            env: {},
            readiness: { kind: 'ipc' },
            ports: [
              { variable: 'MAIL_CATCHER_SMTP_PORT', port: config.MAIL_CATCHER_SMTP_PORT },
              { variable: 'MAIL_CATCHER_WEB_PORT', port: config.MAIL_CATCHER_WEB_PORT },
            ],
            summary:
              `inbox http://127.0.0.1:${config.MAIL_CATCHER_WEB_PORT}/ (MailDev; SMTP ` +
              `127.0.0.1:${config.MAIL_CATCHER_SMTP_PORT})`,
          },
        ]
      : [];

  const productoAddr = `127.0.0.1:${config.PRODUCTO_GRPC_PORT}`;
  const bodegaAddr = `127.0.0.1:${config.BODEGA_GRPC_PORT}`;
  const identidadAddr = `127.0.0.1:${config.IDENTIDAD_GRPC_PORT}`;
  const bffMetrics = metrics(config.BFF_METRICS_PORT, 'BFF_METRICS_PORT');
  const notifierMetrics = metrics(config.NOTIFIER_METRICS_PORT, 'NOTIFIER_METRICS_PORT');
  const bff: ServiceSpec = {
    name: 'bff',
    entry: entry('bff'),
    env: {
      ...shared,
      ...natsUser('bff'),
      ...bffMetrics.env,
      HOST: '127.0.0.1',
      PORT: String(config.PORT),
      BFF_USER: config.BFF_USER ?? DEV_CREDENTIALS.user,
      BFF_PASSWORD: config.BFF_PASSWORD ?? DEV_CREDENTIALS.password,
      PRODUCTO_SVC_ADDR: productoAddr,
      BODEGA_SVC_ADDR: bodegaAddr,
      // Every request is authenticated by identidad-svc (issue 26); BFF_USER/BFF_PASSWORD are its first ADMIN.
      IDENTIDAD_SVC_ADDR: identidadAddr,
      ENABLE_INIT: config.ENABLE_INIT,
      // The read cache, kept coherent by the same NATS stream the services publish to (shared).
      READ_CACHE_MAX_ENTRIES: config.READ_CACHE_MAX_ENTRIES,
      ...(config.RATE_LIMIT_PER_MINUTE === undefined ? {} : { RATE_LIMIT_PER_MINUTE: config.RATE_LIMIT_PER_MINUTE }),
    },
    readiness: { kind: 'ipc' },
    ports: [{ variable: 'PORT', port: config.PORT }, bffMetrics.port],
    summary:
      `http://127.0.0.1:${config.PORT}/api (REST), /api/graphql, /api/docs ` +
      `-> ${productoAddr}, ${bodegaAddr}, ${identidadAddr}`,
    metricsPort: config.BFF_METRICS_PORT,
  };
  const notifier: ServiceSpec = {
    name: 'notifier',
    entry: entry('notifier'),
    env: {
      ...shared,
      ...natsUser('notifier'),
      ...notifierMetrics.env,
      SMTP_URL: smtpUrlOf(config),
      SENDER_EMAIL: config.SENDER_EMAIL,
      RECIPIENT_EMAIL: config.RECIPIENT_EMAIL,
      // The names its emails show for the ids an event carries (a stock alert's product and warehouse).
      PRODUCTO_SVC_ADDR: productoAddr,
      BODEGA_SVC_ADDR: bodegaAddr,
    },
    readiness: { kind: 'ipc' },
    ports: [notifierMetrics.port],
    metricsPort: config.NOTIFIER_METRICS_PORT,
    summary:
      `emails ${config.SENDER_EMAIL} -> ${config.RECIPIENT_EMAIL} ` +
      `via ${config.SMTP_URL === undefined ? 'the mail catcher' : 'SMTP_URL'}`,
  };

  return [
    ...mailCatcher,
    grpcService(
      'producto-svc',
      'inventario.v1.ProductoService',
      config.PRODUCTO_DATABASE_URL,
      [config.PRODUCTO_GRPC_PORT, 'PRODUCTO_GRPC_PORT'],
      [config.PRODUCTO_METRICS_PORT, 'PRODUCTO_METRICS_PORT'],
      // The reconciliation asks bodega-svc whether a warehouse is gone before unassigning its products.
      // identidad-svc: the BFF's signed principal is verified here (docs/contract.md §12.9); REQUIRE_PRINCIPAL stays
      // off, since the seed, the notifier and the services' own lookups have no service token in a dev run.
      { BODEGA_SVC_ADDR: bodegaAddr, IDENTIDAD_SVC_ADDR: identidadAddr },
    ),
    grpcService(
      'bodega-svc',
      'inventario.v1.BodegaService',
      config.BODEGA_DATABASE_URL,
      [config.BODEGA_GRPC_PORT, 'BODEGA_GRPC_PORT'],
      [config.BODEGA_METRICS_PORT, 'BODEGA_METRICS_PORT'],
      // The reconciliation asks producto-svc whether a product is gone before writing its stock out.
      { PRODUCTO_SVC_ADDR: productoAddr, IDENTIDAD_SVC_ADDR: identidadAddr },
    ),
    grpcService(
      'identidad-svc',
      'inventario.v1.IdentidadService',
      config.IDENTIDAD_DATABASE_URL,
      [config.IDENTIDAD_GRPC_PORT, 'IDENTIDAD_GRPC_PORT'],
      [config.IDENTIDAD_METRICS_PORT, 'IDENTIDAD_METRICS_PORT'],
      {
        // A key of this run only: signed principals live minutes, so nothing outlives a restart that needs it.
        PRINCIPAL_SIGNING_KEY: generateKeyPairSync('ed25519')
          .privateKey.export({ format: 'pem', type: 'pkcs8' })
          .toString(),
        // The first ADMIN: the BFF's dev credentials (or those given), as in the chart.
        BFF_USER: config.BFF_USER ?? DEV_CREDENTIALS.user,
        BFF_PASSWORD: config.BFF_PASSWORD ?? DEV_CREDENTIALS.password,
      },
    ),
    bff,
    notifier,
  ];
}

/** The exact command that seeds this system: the ports named when they are not the defaults. */
export function seedCommandOf(config: { PRODUCTO_GRPC_PORT: number; BODEGA_GRPC_PORT: number }): string {
  const ports = config.PRODUCTO_GRPC_PORT === 50051 && config.BODEGA_GRPC_PORT === 50052;
  return ports
    ? 'npm run seed'
    : `PRODUCTO_GRPC_PORT=${config.PRODUCTO_GRPC_PORT} BODEGA_GRPC_PORT=${config.BODEGA_GRPC_PORT} npm run seed`;
}

/**
 * The chart's provisioning Job, run once before the services on the private
 * NATS (whose service users may not create streams): the notifier's
 * provision-main.js as NATS user `provisioner`, with only `searchPath` (PATH)
 * from the launcher's environment. Resolves with its report, or rejects with
 * its error output.
 */
export function provisionPrivateNats(
  config: LauncherConfig,
  nats: { passwords: Record<string, string>; sentBucket: string },
  searchPath: string,
): Promise<string> {
  const child = spawn(process.execPath, [path.join(root, 'services', 'notifier', 'dist', 'provision-main.js')], {
    env: {
      PATH: searchPath,
      NATS_URL: config.NATS_URL,
      NATS_USER: 'provisioner',
      NATS_PASSWORD: nats.passwords.provisioner ?? '',
      NOTIFIER_SENT_BUCKET: nats.sentBucket,
      NATS_STREAM: config.NATS_STREAM,
      NATS_STREAM_REPLICAS: String(config.NATS_STREAM_REPLICAS),
      NATS_SUBJECT_PREFIX: config.NATS_SUBJECT_PREFIX,
    },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(out.trim()) : reject(new Error(err.trim() || `exit code ${code}`)),
    );
  });
}
