/**
 * Helpers for tests that talk to the real MariaDB and NATS JetStream.
 * Every run uses its own database names and its own stream / subject prefix,
 * so concurrent runs never collide, and cleans up after itself.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  countPendingEvents,
  dropDatabase,
  ensureDatabase,
  InvalidArgumentError,
  type FieldViolation,
  type Knex,
} from '@inventario/platform';
import { findProgram, startNatsServer } from '@inventario/local-servers';
import { freePort } from './free-port';

export { startPrivateServer, type PrivateServer, type PrivateServerOptions } from '@inventario/local-servers';
export { ephemeralPortRange, freePort } from './free-port';
export { logLineSink, logTextSink } from './log-sink';
export { basicAuth, httpRequest, type StackRequestOptions, type StackResponse } from './http-request';
export {
  crearBodega,
  crearProducto,
  uniqueNombre,
  verificarExistencias,
  type BffClient,
  type ProductoRest,
} from './rest-fixtures';
export { seedProductos, type SeedOptions } from './seed-productos';
export { ledgerProblems, lineVersions, ocupacionExacta } from './stock-invariants';
export { startTcpProxy, type TcpProxy } from './tcp-proxy';
// Heavier modules have their own entry points, so a test that needs neither loads neither:
// `@inventario/testkit/smtp-sink` (an SMTP server standing in for the provider) and
// `@inventario/testkit/browser` (headless Chromium), and likewise `@inventario/testkit/stack` (the services in this
// process) and `@inventario/testkit/notifier` (a notifier's stream and environment).
export {
  killAllServiceProcesses,
  runCommand,
  serviceMain,
  startProcess,
  startServiceProcess,
  type CommandResult,
  type LogLine,
  type ProcessExit,
  type ServiceName,
  type ServiceProcess,
  type StartProcessOptions,
} from './service-process';

/** Server part of the test MySQL URL (no database). */
export const TEST_MYSQL_SERVER = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** A short name unique to this run: `<prefix>_<base36 time><random>`. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates a fresh, empty database for one test file. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const url = `${TEST_MYSQL_SERVER}/${uniqueName(`t_${label}`)}`;
  await ensureDatabase(url);
  return { url, drop: () => dropDatabase(url) };
}

/** A private stream name and subject prefix for one test file. */
export interface EventNamespace {
  stream: string;
  prefix: string;
}

export function testEventNamespace(): EventNamespace {
  const name = uniqueName('t');
  return { stream: name.toUpperCase(), prefix: name };
}

export function connectTestNats(url: string = TEST_NATS_URL): Promise<NatsConnection> {
  return connect({ servers: url, reconnectTimeWait: 200, maxReconnectAttempts: -1 });
}

/**
 * Deletes a test's stream and, for an events' stream, the dead letters'
 * stream `<stream>_DLQ` a notifier makes beside it: each reserves its
 * max_bytes on the shared server, so none may outlive its test.
 */
export async function deleteStream(nc: NatsConnection, stream: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  for (const name of stream.startsWith('KV_') || stream.endsWith('_DLQ') ? [stream] : [stream, `${stream}_DLQ`]) {
    try {
      await jsm.streams.delete(name);
    } catch {
      // already gone
    }
  }
}

/** One stored JetStream message, decoded. */
export interface StoredEvent<T = Record<string, unknown>> {
  seq: number;
  subject: string;
  headers: Record<string, string>;
  /** The parsed JSON envelope. */
  body: T & {
    id: string;
    eventType: string;
    subject: string;
    eventTime: string;
    dataVersion: string;
    data: Record<string, unknown>;
  };
}

/** Every message currently stored in `stream`, in stream order. */
export async function readStream(nc: NatsConnection, stream: string): Promise<StoredEvent[]> {
  const jsm = await jetstreamManager(nc);
  let info;
  try {
    info = await jsm.streams.info(stream);
  } catch {
    return [];
  }
  const out: StoredEvent[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (!m) continue;
    const headers: Record<string, string> = {};
    if (m.header) for (const k of m.header.keys()) headers[k] = m.header.get(k);
    out.push({ seq, subject: m.subject, headers, body: m.json() });
  }
  return out;
}

/** Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`,
      );
    await sleep(intervalMs);
  }
}

/**
 * Waits until the outbox of every pool's database holds no pending event, i.e.
 * every service's relay has published everything committed so far; fails after
 * `timeoutMs` like waitFor.
 */
export async function waitForOutboxesDrained(
  pools: readonly Knex[],
  what = 'every outbox relay to publish every event',
  timeoutMs = 30_000,
  intervalMs = 50,
): Promise<void> {
  await waitFor(
    async () => {
      for (const pool of pools) if ((await countPendingEvents(pool)) > 0) return false;
      return true;
    },
    what,
    timeoutMs,
    intervalMs,
  );
}

/** A private `nats-server -js` on a free port with its own store dir, for fault tests. */
export interface PrivateNatsServer {
  url: string;
  port: number;
  /**
   * The server's directory; its JetStream store is `<storeDir>/jetstream` (remove it while stopped for a server that
   * lost its data).
   */
  storeDir: string;
  /** (Re)starts the server on the same port and store dir. */
  start(): Promise<void>;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s). */
  stop(): Promise<void>;
  /** Stops the server and deletes its store dir. */
  dispose(): Promise<void>;
  /** Sends `sig` to the running server. */
  signal(sig: NodeJS.Signals): void;
  /**
   * Replaces the configuration file given as `config` and makes the running
   * server reload it (SIGHUP); clients keep their connections and get the
   * new permissions. Resolves once the signal is sent, not once it applied.
   */
  reconfigure(config: string): void;
}

/**
 * NATS_SERVER_BIN, else PATH and the sbin folders (local-servers' findProgram); the bare name, failing to spawn, when
 * none.
 */
const NATS_SERVER_BIN = findProgram('nats-server', process.env) ?? 'nats-server';

export interface PrivateNatsServerOptions {
  /** Run with JetStream (-js); default true. */
  jetstream?: boolean;
  /**
   * A configuration file's text (e.g. an `authorization` block), given to
   * the server with `-c`; the command-line flags (address, port, JetStream)
   * still apply over it.
   */
  config?: string;
  /** Environment of the server: the variables its configuration reads (`password: $VAR`). */
  env?: Record<string, string>;
}

export async function startPrivateNatsServer(options: PrivateNatsServerOptions = {}): Promise<PrivateNatsServer> {
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'inventario-nats-'));
  const jetStream = options.jetstream !== false;
  const configFile = join(storeDir, 'nats-server.conf');
  // With a file, JetStream is configured there: a reload applies the file's
  // settings, and one without a jetstream block would shut JetStream down.
  const writeConfig = (config: string) =>
    writeFileSync(
      configFile,
      `${config}\n${jetStream ? `jetstream { store_dir: ${JSON.stringify(storeDir)} }\n` : ''}`,
    );
  if (options.config !== undefined) writeConfig(options.config);
  const server = await startNatsServer({
    command: NATS_SERVER_BIN,
    port,
    dir: storeDir,
    jetstream: jetStream,
    configFile: options.config !== undefined ? configFile : undefined,
    env: options.env,
  });
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    ...server,
    reconfigure(config) {
      if (options.config === undefined) throw new Error('reconfigure needs a server started with a config');
      writeConfig(config);
      server.signal('SIGHUP');
    },
  };
}

/** The field violations `work` throws as InvalidArgumentError; [] when it throws nothing. */
export function violationsOf(work: () => unknown): FieldViolation[] {
  try {
    work();
  } catch (err) {
    if (err instanceof InvalidArgumentError) return err.violations;
    throw err;
  }
  return [];
}

/**
 * The value of the first sample of metric `name` in Prometheus text whose labels include `labels`; undefined when none.
 */
export function metricSample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const found = new Map<string, string>();
    for (const label of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) found.set(label[1] ?? '', label[2] ?? '');
    if (Object.entries(labels).every(([k, v]) => found.get(k) === v)) return Number(m[3]);
  }
  return undefined;
}

/** GET /metrics on 127.0.0.1:`port`; anything but a 200 is an error. */
export async function scrapeMetrics(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics on port ${port} answered ${res.status}`);
  return res.text();
}
