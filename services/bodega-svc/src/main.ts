import { runService } from '@inventario/platform';
import { startApp } from './app';
import { loadConfig } from './config';

/**
 * bodega-svc entry point: the only place that reads the environment.
 * runService parses it, starts the app and runs its shutdown sequence on
 * SIGTERM/SIGINT: health NOT_SERVING, drain delay, gRPC server,
 * ProductoEliminado consumer, outbox relay, NATS drain, database pool,
 * metrics server.
 */
void runService({ name: 'bodega-svc', env: process.env, loadConfig, start: startApp });
