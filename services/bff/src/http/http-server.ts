import { createServer, type RequestListener } from 'node:http';
import type { Logger } from '@inventario/platform';
import { createClientErrorHandler } from './client-error';

/** Slow clients may take this long to send their headers (slowloris bound)... */
const HEADERS_TIMEOUT_MS = 20_000;
/** ... and this long for the whole request. */
const REQUEST_TIMEOUT_MS = 60_000;
/**
 * Idle keep-alive connections close after this. Longer than the idle
 * timeout of a proxy in front (Envoy, a cloud load balancer: 60 s), so the
 * proxy never sends on a connection we are closing.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

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
 * A Node HTTP server for `app` with bounded header and request times,
 * listening on `host:port`; requests its parser refuses get a JSON error too.
 */
export async function startHttpServer(app: RequestListener, port: number, host: string, logger: Logger): Promise<StartedHttpServer> {
  const server = createServer(
    { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS },
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
