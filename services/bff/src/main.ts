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
import { startApp } from './app';
import { loadConfig } from './config';

const NAME = 'bff';

/**
 * The BFF's process, the only place that reads the environment:
 * configuration (a bad variable stops it with one line naming it;
 * BFF_USER and BFF_PASSWORD are required), logger, stop requests, tracing,
 * then the app (app.ts: metrics server, gRPC channels to the services, the
 * express app and its HTTP server; the services may come up later). On
 * SIGTERM/SIGINT, or when the dev launcher that started it goes away, the
 * shutdown sequence runs within SHUTDOWN_TIMEOUT_MS: readiness DOWN, drain
 * delay, HTTP server, gRPC channels, metrics server, and last the tracing
 * flush.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit(NAME, () => loadConfig(process.env));
  const logger = createLogger(NAME, config.logLevel);
  routeGrpcLogs(logger);
  // SIGTERM, SIGINT or the dev launcher gone: while starting, aborts the start (within SHUTDOWN_TIMEOUT_MS).
  const stop = listenForStop(logger, config.shutdownTimeoutMs);
  // Before the app, so its first spans are exported too.
  const tracing = await startTracing(NAME, config, logger);
  const app = await startApp(config, logger, { signal: stop.signal }).catch((err: unknown) => exitAfterFailedStart(NAME, logger, err, stop.signal));
  const shutdown = createShutdown({
    logger,
    // Spans are flushed last, so those of requests that finish during shutdown go out too.
    steps: tracing ? [...app.shutdownSteps, { name: 'tracing flush', run: () => tracing.shutdown() }] : app.shutdownSteps,
    deadlineMs: config.shutdownTimeoutMs,
  });
  announceStarted(NAME, logger, { httpPort: app.httpPort, metricsPort: app.metricsPort });
  // From now on a stop request, or one made while starting, runs the shutdown.
  stop.runOnStop(shutdown);
}

void main();
