import { runService } from '@inventario/platform';
import { startApp } from './app';
import { loadConfig } from './config';

/**
 * producto-svc entry point: the only place that reads the environment.
 * runService parses it, starts the app and runs its shutdown sequence on
 * SIGTERM/SIGINT: health NOT_SERVING, drain delay, gRPC server,
 * BodegaEliminada consumer, outbox relay, NATS drain, database pool,
 * metrics server (last, so the final scrape sees the shutdown).
 */
void runService({ name: 'producto-svc', env: process.env, loadConfig, start: startApp });
