import { format } from 'node:util';
import { setLogger } from '@grpc/grpc-js';
import { ConfigError } from './config';
import { createLogger, type Logger } from './logger';
import { installShutdown, type ShutdownStep } from './shutdown';
import { startTracing, type TracingConfig } from './tracing';

/** The IPC message a service sends its supervisor once it has started. */
export const READY_MESSAGE_TYPE = 'inventario:ready';

export interface RunServiceOptions<C extends { logLevel: string; shutdownTimeoutMs: number } & TracingConfig> {
  name: string;
  env: NodeJS.ProcessEnv;
  loadConfig(env: NodeJS.ProcessEnv): C;
  /** Starts the service; the ports it resolves to are logged with the "started" line. */
  start(config: C, logger: Logger, signal: AbortSignal): Promise<{ shutdownSteps: ShutdownStep[]; grpcPort?: number; httpPort?: number; metricsPort?: number }>;
}

/**
 * The body of a service's main.ts: parse the environment (a bad value stops
 * the process with one line naming the variable), start tracing when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set, start, and run the
 * shutdown sequence with SHUTDOWN_TIMEOUT_MS as deadline on SIGTERM or
 * SIGINT, or when the supervising process that started us with an IPC
 * channel (the dev launcher) goes away, so no service outlives it.
 */
export async function runService<C extends { logLevel: string; shutdownTimeoutMs: number } & TracingConfig>(
  options: RunServiceOptions<C>,
): Promise<void> {
  let config: C;
  try {
    config = options.loadConfig(options.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${options.name}: ${err.message}\n`);
    process.exit(1);
  }
  const logger = createLogger(options.name, config.logLevel);
  // grpc-js writes its own diagnostics to stderr; keep one JSON log stream.
  setLogger({
    error: (...args: unknown[]) => logger.error({ grpc: format(...args) }, 'grpc-js'),
    info: (...args: unknown[]) => logger.info({ grpc: format(...args) }, 'grpc-js'),
    debug: (...args: unknown[]) => logger.debug({ grpc: format(...args) }, 'grpc-js'),
  });

  const starting = new AbortController();
  let shutdown: (() => Promise<void>) | undefined;
  // Before start-up finished (e.g. still waiting for the database) a stop
  // aborts it; after, it runs the shutdown sequence (once, however often asked).
  const stop = (reason: string) => {
    logger.info({ reason }, 'stop requested');
    if (shutdown) return void shutdown();
    if (starting.signal.aborted) return;
    starting.abort();
    // SHUTDOWN_TIMEOUT_MS bounds a stop during start-up too.
    setTimeout(() => {
      logger.error({ deadlineMs: config.shutdownTimeoutMs }, 'start-up did not stop in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (process.send) {
    process.on('disconnect', () => stop('parent process gone'));
    // The channel may have closed while this process was still loading, before the listener existed.
    if (!process.connected) stop('parent process gone');
  }

  // Before the service starts, so its first spans are exported too.
  const tracing = await startTracing(options.name, config, logger);
  try {
    const app = await options.start(config, logger, starting.signal);
    // Spans are flushed last, so those of requests that finish during shutdown go out too.
    const steps = tracing ? [...app.shutdownSteps, { name: 'tracing flush', run: () => tracing.shutdown() }] : app.shutdownSteps;
    shutdown = installShutdown({ logger, steps, deadlineMs: config.shutdownTimeoutMs, signals: [] });
    logger.info({ grpcPort: app.grpcPort, httpPort: app.httpPort, metricsPort: app.metricsPort }, `${options.name} started`);
    // A supervising launcher (IPC channel) waits for this before announcing the system is up.
    process.send?.({ type: READY_MESSAGE_TYPE });
    if (starting.signal.aborted) void shutdown();
  } catch (err) {
    if (starting.signal.aborted) {
      logger.info(`${options.name} stopped during start-up`);
      process.exit(0);
    }
    logger.fatal({ err }, `${options.name} failed to start`);
    process.exit(1);
  }
}
