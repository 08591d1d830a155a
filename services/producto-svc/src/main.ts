import {
  announceStarted,
  createLogger,
  exitAfterFailedStart,
  createShutdown,
  listenForStop,
  loadConfigOrExit,
  routeGrpcLogs,
  startTracing,
} from '@inventario/platform';
import { startApp, type StartOptions } from './app';
import { loadConfig } from './config';

const NAME = 'producto-svc';

/**
 * producto-svc's process, the only place that reads the environment:
 * configuration (a bad variable stops it with one line naming it), logger,
 * stop requests, tracing, then the app (app.ts: metrics server, database,
 * gRPC server, migrations, health, and in the background NATS, the outbox
 * relay and the BodegaEliminada consumer). On SIGTERM/SIGINT, or when the
 * dev launcher that started it goes away, the shutdown sequence runs within
 * SHUTDOWN_TIMEOUT_MS: health NOT_SERVING, drain delay, gRPC server,
 * consumer, outbox relay, NATS drain, database pool, metrics server, and
 * last the tracing flush. `options` is for tests (fault injection).
 */
export async function main(options: Pick<StartOptions, 'faults'> = {}): Promise<void> {
  const config = loadConfigOrExit(NAME, () => loadConfig(process.env));
  const logger = createLogger(NAME, config.logLevel);
  routeGrpcLogs(logger);
  // SIGTERM, SIGINT or the dev launcher gone: while starting, aborts the start (within SHUTDOWN_TIMEOUT_MS).
  const stop = listenForStop(logger, config.shutdownTimeoutMs);
  // Before the app, so its first spans are exported too.
  const tracing = await startTracing(NAME, config, logger);
  const app = await startApp(config, logger, { signal: stop.signal, ...options }).catch((err: unknown) => exitAfterFailedStart(NAME, logger, err, stop.signal));
  const shutdown = createShutdown({
    logger,
    steps: app.shutdownSteps,
    tracing,
    deadlineMs: config.shutdownTimeoutMs,
  });
  announceStarted(NAME, logger, { grpcPort: app.grpcPort, metricsPort: app.metricsPort });
  // From now on a stop request, or one made while starting, runs the shutdown.
  stop.runOnStop(shutdown);
}

// Run as the program; test/fixtures/main-with-faults.js loads this module to pass fault options instead.
if (require.main === module) void main();
