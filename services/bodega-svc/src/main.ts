import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, createLogger, installShutdown } from '@inventario/platform';
import { startApp } from './app';
import { loadConfig, type Config } from './config';

/**
 * bodega-svc entry point: the only place that reads the environment and
 * handles signals. The shutdown sequence (ARCHITECTURE, STYLE §9):
 * health NOT_SERVING -> drain delay (load balancers stop routing here) ->
 * gRPC shutdown (in-flight calls finish) -> outbox relay -> NATS drain ->
 * database pool; exit 1 if it overruns SHUTDOWN_TIMEOUT_MS.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`bodega-svc: ${err.message}\n`);
    process.exit(1);
  }

  const logger = createLogger('bodega-svc', config.logLevel);
  try {
    const app = await startApp(config, logger);
    installShutdown({
      logger,
      deadlineMs: config.shutdownTimeoutMs,
      steps: [
        { name: 'health NOT_SERVING', run: () => app.setServing(false) },
        { name: 'drain delay', run: () => sleep(config.shutdownDrainMs) },
        ...app.stopSteps,
      ],
    });
    logger.info({ grpcPort: app.grpcPort }, 'bodega-svc started');
  } catch (err) {
    logger.fatal({ err }, 'bodega-svc failed to start');
    process.exit(1);
  }
}

void main();
