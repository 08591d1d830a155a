import { setTimeout as sleep } from 'node:timers/promises';
import { stopOnce, type Logger, type ShutdownStep } from '@inventario/platform';
import type { Config } from './config';
import { createDownstream } from './downstream/downstream';
import { createHttpApp } from './http/http-app';
import { startHttpServer, type StartedHttpServer } from './http/http-server';
import { createInventario } from './inventario/inventario';

/** A running BFF. */
export interface BffApp {
  /** The bound HTTP port (the real one when PORT=0). */
  httpPort: number;
  /** The written shutdown sequence, in order (main hands it to installShutdown). */
  shutdownSteps: ShutdownStep[];
  /** Runs shutdownSteps once, in order; a failing step is logged and the rest still run. */
  stop(): Promise<void>;
}

/**
 * Wires the BFF: downstream channels and breakers, the use cases, the
 * express app and its HTTP server. Nothing is awaited but the port: the
 * services may come up after the BFF (calls answer 503 until they do).
 * Shutdown: readiness DOWN, drain delay (the proxy stops sending), close the
 * HTTP server (in-flight requests finish), close the gRPC channels.
 */
export async function startApp(config: Config, logger: Logger, signal?: AbortSignal): Promise<BffApp> {
  signal?.throwIfAborted();
  const downstream = createDownstream(config, logger);
  let accepting = true;

  const app = createHttpApp({
    inventario: createInventario(downstream),
    health: downstream.health,
    logger,
    credentials: config.credentials,
    rateLimitPerMinute: config.rateLimitPerMinute,
    trustProxyHops: config.trustProxyHops,
    enableInit: config.enableInit,
    accepting: () => accepting,
  });

  let server: StartedHttpServer;
  try {
    server = await startHttpServer(app, config.port, config.host, logger);
  } catch (err) {
    downstream.close();
    throw err;
  }
  logger.info({ port: server.port, productoSvc: config.productoSvcAddr, bodegaSvc: config.bodegaSvcAddr }, 'http server listening');

  // In-flight requests get half of what the deadline leaves after the drain; the rest is margin.
  const graceMs = Math.max(0, config.shutdownTimeoutMs - config.shutdownDrainMs) / 2;
  const shutdownSteps: ShutdownStep[] = [
    {
      name: 'readiness DOWN',
      run: () => {
        accepting = false;
      },
    },
    // Lets the proxy and load balancer see readiness DOWN before the port closes.
    { name: 'drain delay', run: () => sleep(config.shutdownDrainMs) },
    { name: 'http server', run: () => server.close(graceMs) },
    // After the server: in-flight requests may still be calling downstream.
    { name: 'grpc channels', run: () => downstream.close() },
  ];

  return {
    httpPort: server.port,
    shutdownSteps,
    stop: stopOnce(shutdownSteps, logger),
  };
}
