import { createServer, type RequestListener } from 'node:http';
import type { Logger } from '@inventario/platform';
import { createClientErrorHandler } from './client-error';

/**
 * HTTP_*_TIMEOUT_MS (docs/contract.md §8.4). Keep-alive (65 s) outlasts a proxy's idle timeout
 * (60 s), so the proxy never sends on a connection we are closing.
 */
export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

/** Node's default, 30 s, would let a slow client hold a connection up to 30 s past its bound. */
function checkingIntervalMs(timeouts: HttpTimeouts): number {
  return Math.max(50, Math.min(1000, Math.floor(timeouts.headersMs / 4)));
}

export interface StartedHttpServer {
  port: number;
  /** Idle keep-alive connections close at once, busy ones after their response; the rest is cut after `graceMs`. */
  close(graceMs: number): Promise<void>;
}

export async function startHttpServer(
  app: RequestListener,
  port: number,
  host: string,
  timeouts: HttpTimeouts,
  logger: Logger,
): Promise<StartedHttpServer> {
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: checkingIntervalMs(timeouts),
    },
    app,
  );
  server.on('clientError', createClientErrorHandler(logger));
  let closing = false;
  // A keep-alive connection busy when close() began becomes idle after its response: close it then.
  server.on('request', (_req, res) => {
    res.once('finish', () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });

  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });

  return {
    port: bound,
    close(graceMs) {
      closing = true;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
