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

/** The BFF's process, the only place that reads the environment (docs/contract.md §8.4). */
async function main(): Promise<void> {
  const config = loadConfigOrExit(NAME, () => loadConfig(process.env));
  const logger = createLogger(NAME, config.logLevel);
  routeGrpcLogs(logger);
  // A stop request while starting aborts the start.
  const stop = listenForStop(logger, config.shutdownTimeoutMs);
  // Before the app, so its first spans are exported too.
  const tracing = await startTracing(NAME, config, logger);
  const app = await startApp(config, logger, { signal: stop.signal }).catch((err: unknown) => exitAfterFailedStart(NAME, logger, err, stop.signal));
  const shutdown = createShutdown({
    logger,
    steps: app.shutdownSteps,
    tracing,
    deadlineMs: config.shutdownTimeoutMs,
  });
  announceStarted(NAME, logger, { httpPort: app.httpPort, metricsPort: app.metricsPort });
  // From now on a stop request, or one made while starting, runs the shutdown.
  stop.runOnStop(shutdown);
}

void main();
