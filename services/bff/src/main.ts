import { runProcess } from '@inventario/platform';
import { startApp } from './app';
import { loadConfig } from './config';

/** The BFF's process (platform's runProcess), the only place that reads the environment (docs/contract.md §8.4). */
void runProcess(
  'bff',
  () => loadConfig(process.env),
  (config, logger, signal) => startApp(config, logger, { signal }),
);
