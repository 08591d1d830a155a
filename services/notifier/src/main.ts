import { runProcess } from '@inventario/platform';
import { startApp, type StartOptions } from './app';
import { loadConfig } from './config';

/**
 * The notifier's process (platform's runProcess: configuration, logger, stop
 * requests, tracing, then the app; a bad variable is named, never the SMTP
 * password). The app (app.ts) opens the metrics server, SMTP pool, NATS, the
 * stream, the sent registry and the durable consumers; its shutdownSteps
 * close them (emails in flight finish first). `options` is for tests (fault
 * injection).
 */
export function main(options: Pick<StartOptions, 'faults'> = {}): Promise<void> {
  return runProcess(
    'notifier',
    () => loadConfig(process.env),
    (config, logger, signal) => startApp(config, logger, { signal, ...options }),
  );
}

// Run as the program; test/fixtures/main-with-faults.js loads this module to pass fault options instead.
if (require.main === module) void main();
