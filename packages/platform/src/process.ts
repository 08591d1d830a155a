import type { ChildProcess } from 'node:child_process';
import { format } from 'node:util';
import { setLogger } from '@grpc/grpc-js';
import { ConfigError } from './config';
import { createLogger, type Logger } from './logger';
import { redactUrlCredentials } from './redact';
import { createShutdown, type ShutdownStep } from './shutdown';
import { startTracing, type TracingConfig } from './tracing';

/**
 * A process's life, the same for every service: read the configuration or
 * exit, route grpc-js's own logs into the JSON log, listen for a stop
 * request, start tracing, start the app, announce the start, run the
 * shutdown on a stop. runProcess holds that order once; each `main.ts`
 * names its service, its configuration and its app. What each app opens,
 * and the order it closes them in, stays in the service's own `app.ts`
 * (its `shutdownSteps`).
 */

/** The IPC message a service sends its supervisor once it has started. */
export const READY_MESSAGE_TYPE = 'inventario:ready';

/**
 * The supervisor's half of the handshake, for every spawner (the dev
 * launcher, the bench, testkit): resolves when `child`, started with an IPC
 * channel, sends the ready message; rejects if it exits (or cannot start) first.
 */
export function readyMessage(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if ((message as { type?: unknown } | null)?.type !== READY_MESSAGE_TYPE) return;
      settle();
      resolve();
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      settle();
      reject(new Error(`ended before it was ready (${signal ?? `exit ${code}`})`));
    };
    const onError = (err: Error) => {
      settle();
      reject(new Error(`could not start: ${err.message}`));
    };
    const settle = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

/**
 * Returns `load()`'s configuration; on a ConfigError writes one line to
 * stderr, `<name>: invalid configuration: ...` naming every bad variable,
 * and exits 1 before anything was opened or logged.
 */
export function loadConfigOrExit<C>(name: string, load: () => C): C {
  try {
    return load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${name}: ${err.message}\n`);
    return process.exit(1);
  }
}

/** Runs a one-shot command's `main`: its exit code, or 1 and `<name>: <error>` on stderr, URL credentials redacted. */
export function runCommandMain(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(redactUrlCredentials(`${name}: ${err instanceof Error ? err.message : String(err)}\n`));
      process.exitCode = 1;
    },
  );
}

/** grpc-js writes its own diagnostics to stderr; send them to `logger`, so a process has one JSON log stream. */
export function routeGrpcLogs(logger: Logger): void {
  setLogger({
    error: (...args: unknown[]) => logger.error({ grpc: format(...args) }, 'grpc-js'),
    info: (...args: unknown[]) => logger.info({ grpc: format(...args) }, 'grpc-js'),
    debug: (...args: unknown[]) => logger.debug({ grpc: format(...args) }, 'grpc-js'),
  });
}

/** Requests to stop the process, from the moment it listens. */
export interface StopRequests {
  /**
   * Aborted by the first request: hand it to start-up, so a stop while it waits (for a database, NATS) ends the wait.
   */
  signal: AbortSignal;
  /**
   * From now on a request runs `shutdown` (once start-up is done); a request
   * that came earlier runs it at once. `shutdown` must be safe to call repeatedly.
   */
  runOnStop(shutdown: () => Promise<void>): void;
}

/**
 * Listens for SIGTERM, SIGINT, and the supervising process that started us
 * with an IPC channel (the dev launcher) going away, so no service outlives
 * it. A request during start-up aborts `signal` and bounds the rest of
 * start-up by `deadlineMs` (exit 1 past it).
 */
export function listenForStop(logger: Logger, deadlineMs: number): StopRequests {
  const starting = new AbortController();
  let shutdown: (() => Promise<void>) | undefined;
  const request = (reason: string) => {
    logger.info({ reason }, 'stop requested');
    if (shutdown) return void shutdown();
    if (starting.signal.aborted) return;
    starting.abort();
    setTimeout(() => {
      logger.error({ deadlineMs }, 'start-up did not stop in time; exiting');
      process.exit(1);
    }, deadlineMs).unref();
  };
  process.on('SIGTERM', () => request('SIGTERM'));
  process.on('SIGINT', () => request('SIGINT'));
  if (process.send) {
    process.on('disconnect', () => request('parent process gone'));
    // The channel may have closed while this process was still loading, before the listener existed.
    if (!process.connected) request('parent process gone');
  }
  return {
    signal: starting.signal,
    runOnStop(run) {
      shutdown = run;
      if (starting.signal.aborted) void run();
    },
  };
}

/**
 * Ends a process whose start-up threw: exit 0 when a stop request aborted
 * it (`stopping`), otherwise a fatal log line and exit 1.
 */
export function exitAfterFailedStart(name: string, logger: Logger, err: unknown, stopping: AbortSignal): never {
  if (stopping.aborted) {
    logger.info(`${name} stopped during start-up`);
    return process.exit(0);
  }
  logger.fatal({ err }, `${name} failed to start`);
  return process.exit(1);
}

/**
 * Logs `<name> started` with the bound ports and tells a supervising
 * launcher (IPC channel), which waits for it before announcing the system is up.
 */
export function announceStarted(
  name: string,
  logger: Logger,
  ports: { grpcPort?: number; httpPort?: number; metricsPort?: number },
): void {
  logger.info(ports, `${name} started`);
  process.send?.({ type: READY_MESSAGE_TYPE });
}

/** What runProcess reads of a service's configuration. */
export interface ProcessConfig extends TracingConfig {
  logLevel: string;
  shutdownTimeoutMs: number;
}

/** What a service's app hands back once started: how to stop it, and the ports it bound. */
export interface StartedApp {
  shutdownSteps: ShutdownStep[];
  grpcPort?: number;
  httpPort?: number;
  metricsPort?: number;
}

/**
 * Runs a service as the program: its configuration (`loadConfig` reads the
 * environment in main.ts; a bad variable stops it with one line naming it), logger, stop requests (SIGTERM,
 * SIGINT, or the dev launcher that started it gone: while starting, the start
 * is aborted), tracing before the app so its first spans are exported too,
 * then the app; from then on a stop request, or one made while starting, runs
 * the app's shutdown steps within SHUTDOWN_TIMEOUT_MS, the tracing flush last.
 */
export async function runProcess<C extends ProcessConfig>(
  name: string,
  loadConfig: () => C,
  startApp: (config: C, logger: Logger, signal: AbortSignal) => Promise<StartedApp>,
): Promise<void> {
  const config = loadConfigOrExit(name, loadConfig);
  const logger = createLogger(name, config.logLevel);
  routeGrpcLogs(logger);
  const stop = listenForStop(logger, config.shutdownTimeoutMs);
  const tracing = await startTracing(name, config, logger);
  const app = await startApp(config, logger, stop.signal).catch((err: unknown) =>
    exitAfterFailedStart(name, logger, err, stop.signal),
  );
  const shutdown = createShutdown({ logger, steps: app.shutdownSteps, tracing, deadlineMs: config.shutdownTimeoutMs });
  announceStarted(name, logger, { grpcPort: app.grpcPort, httpPort: app.httpPort, metricsPort: app.metricsPort });
  stop.runOnStop(shutdown);
}
