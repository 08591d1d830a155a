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
import { basicAuth, httpRequest, TEST_BFF_ENV, type StackRequestOptions, type StackResponse } from './stack';

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
  const config = loadConfig({ ...TEST_BFF_ENV, ...env });
  const app = await startApp(config, logger ?? createLogger('bff', config.logLevel));
  const baseUrl = `http://127.0.0.1:${app.httpPort}`;
  const auth = config.credentials ? basicAuth(config.credentials.usuario, config.credentials.password) : '';
  return {
    app,
    baseUrl,
    auth,
    request: (method, path, options = {}) => httpRequest(baseUrl, auth, method, path, options),
    close: () => app.stop(),
  };
}
