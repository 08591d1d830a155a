/**
 * The BFF alone, in-process on an ephemeral port, in front of whatever
 * addresses a test gives it (a fake downstream, or a port where nothing
 * listens). No database, no NATS: for auth, rate-limit, health and fault
 * tests that need no real services.
 */
import { createLogger, type Logger } from '@inventario/platform';
import { freePort } from '@inventario/testkit';
import { startApp, type BffApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { basicAuth, httpRequest, TEST_PASSWORD, TEST_USER, type StackRequestOptions, type StackResponse } from './stack';

export interface BareBff {
  app: BffApp;
  baseUrl: string;
  auth: string;
  request(method: string, path: string, options?: StackRequestOptions): Promise<StackResponse>;
  close(): Promise<void>;
}

/** An address where nothing listens (a port that was free a moment ago). */
export async function deadAddress(): Promise<string> {
  return `127.0.0.1:${await freePort()}`;
}

/** Starts the BFF with `env` over test defaults; `logger` replaces the silent one (to read what it logs). */
export async function startBareBff(env: Record<string, string>, logger?: Logger): Promise<BareBff> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    BFF_USER: TEST_USER,
    BFF_PASSWORD: TEST_PASSWORD,
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_DRAIN_MS: '0',
    SHUTDOWN_TIMEOUT_MS: '10000',
    ...env,
  });
  const app = await startApp(config, logger ?? createLogger('bff', config.logLevel));
  const baseUrl = `http://127.0.0.1:${app.httpPort}`;
  const auth = basicAuth(config.credentials.usuario, config.credentials.password);
  return {
    app,
    baseUrl,
    auth,
    request: (method, path, options = {}) => httpRequest(baseUrl, auth, method, path, options),
    close: () => app.stop(),
  };
}
