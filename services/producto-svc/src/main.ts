import { ConfigError, createLogger, installShutdown } from '@inventario/platform';
import { startApp } from './app';
import { loadConfig, type Config } from './config';

/**
 * producto-svc entry point: the only place that reads the environment and
 * handles signals. The shutdown sequence itself is the app's (App.shutdownSteps):
 * health NOT_SERVING, drain delay, gRPC server, reconciliation consumer,
 * outbox relay, NATS drain, database pool; SHUTDOWN_TIMEOUT_MS is the hard deadline.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`producto-svc: ${err.message}\n`);
    process.exit(1);
  }

  const logger = createLogger('producto-svc', config.logLevel);
  try {
    const app = await startApp(config, logger);
    installShutdown({ logger, steps: app.shutdownSteps, deadlineMs: config.shutdownTimeoutMs });
    logger.info({ grpcPort: app.grpcPort }, 'producto-svc started');
  } catch (err) {
    logger.fatal({ err }, 'producto-svc failed to start');
    process.exit(1);
  }
}

void main();
