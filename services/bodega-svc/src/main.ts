import { runProcess } from '@inventario/platform';
import { startApp, type StartOptions } from './app';
import { loadConfig } from './config';

/**
 * bodega-svc's process (platform's runProcess: configuration, logger, stop
 * requests, tracing, then the app). The app (app.ts) opens the metrics
 * server, database, gRPC server, migrations, health, stock verification, and
 * in the background NATS, the outbox relay and the product consumers; its
 * shutdownSteps close them. `options` is for tests (fault injection).
 */
export function main(options: Pick<StartOptions, 'faults'> = {}): Promise<void> {
  return runProcess(
    'bodega-svc',
    () => loadConfig(process.env),
    (config, logger, signal) => startApp(config, logger, { signal, ...options }),
  );
}

// Run as the program; test/fixtures/main-with-faults.js loads this module to pass fault options instead.
if (require.main === module) void main();
