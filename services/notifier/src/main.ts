import { runService } from '@inventario/platform';
import { startApp } from './app';
import { loadConfig } from './config';

/**
 * notifier entry point: the only place that reads the environment.
 * runService parses it, starts the app and runs its shutdown sequence on
 * SIGTERM/SIGINT within SHUTDOWN_TIMEOUT_MS: consumers (emails in flight
 * finish), NATS drain, SMTP pool, metrics server.
 */
void runService({ name: 'notifier', env: process.env, loadConfig, start: startApp });
