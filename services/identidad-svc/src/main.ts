import { runProcess } from '@inventario/platform';
import { startApp, type StartOptions } from './app';
import { loadConfig } from './config';

/**
 * identidad-svc's process (platform's runProcess: configuration, logger,
 * stop requests, tracing, then the app; a bad variable is named, never its
 * value). The app is app.ts; its shutdownSteps close what it opened.
 * `options` is for tests (fault injection).
 */
export function main(options: Pick<StartOptions, 'faults'> = {}): Promise<void> {
  return runProcess(
    'identidad-svc',
    () => loadConfig(process.env),
    (config, logger, signal) => startApp(config, logger, { signal, ...options }),
  );
}

// Run as the program; test/fixtures/main-with-faults.js loads this module to pass fault options instead.
if (require.main === module) void main();
