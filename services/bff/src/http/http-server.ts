import { createServer, type RequestListener } from 'node:http';
import type { Logger } from '@inventario/platform';
import { createClientErrorHandler } from './client-error';

/**
 * How long a client may take (HTTP_*_TIMEOUT_MS): to send its headers
 * (the slowloris bound), to send the whole request, and to stay idle on a
 * keep-alive connection. The keep-alive default (65 s) is longer than the
 * idle timeout of a proxy in front (Envoy, a cloud load balancer: 60 s), so
 * the proxy never sends on a connection we are closing.
 */
export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

/**
 * How often Node looks for connections past those timeouts (its default,
 * 30 s, would let a slow client hold a connection up to 30 s longer than
 * the configured bound).
 */
function checkingIntervalMs(timeouts: HttpTimeouts): number {
  return Math.max(50, Math.min(1000, Math.floor(timeouts.headersMs / 4)));
}

export interface StartedHttpServer {
  /** The bound port (the real one when asked for 0). */
  port: number;
  /**
   * Stops accepting connections; idle keep-alive connections close at
   * once, busy ones as soon as their response is sent; whatever still runs
   * after `graceMs` is cut.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * A Node HTTP server for `app` with bounded header, request and idle times,
 * listening on `host:port`; requests its parser refuses get a JSON error too.
 */
export async function startHttpServer(app: RequestListener, port: number, host: string, timeouts: HttpTimeouts, logger: Logger): Promise<StartedHttpServer> {
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
