import { runService } from '@inventario/platform';
import { startApp } from './app';
import { loadConfig } from './config';

/**
 * BFF entry point: the only place that reads the environment. runService
 * parses it (BFF_USER and BFF_PASSWORD are required), starts the app and
 * runs its shutdown sequence on SIGTERM/SIGINT: readiness DOWN, drain
 * delay, HTTP server, gRPC channels, metrics server.
 */
void runService({ name: 'bff', env: process.env, loadConfig, start: startApp });
