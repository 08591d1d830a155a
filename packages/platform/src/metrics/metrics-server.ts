import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger';

export interface MetricsServerOptions {
  registry: Registry;
  host: string;
  port: number;
  logger: Logger;
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: { error: string; mensaje: string }): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** A port of its own, never the public one, so a proxy in front of the service cannot expose it by accident. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { registry, logger } = options;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics') {
      sendJson(res, 404, { error: 'NOT_FOUND', mensaje: 'only /metrics is served here' });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      sendJson(res, 405, { error: 'METHOD_NOT_ALLOWED', mensaje: 'use GET /metrics' });
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        logger.error({ err }, 'collecting metrics failed');
        sendJson(res, 500, { error: 'INTERNAL_ERROR', mensaje: 'collecting metrics failed' });
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ port, host: options.host }, 'metrics server listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // close() would wait for a scrape in progress; shutdown must not.
        server.closeAllConnections();
      }),
  };
}
