import type { RequestListener, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createHttpMetrics,
  createServiceRegistry,
  createStartupGuard,
  startMetricsServer,
  stopOnce,
  type Logger,
  type ShutdownStep,
} from '@inventario/platform';
import type { Config } from './config';
import { createDownstream, createDownstreamMetrics } from './downstream/downstream';
import { conAutorizacion, conAutorizacionDeReservas } from './auth/autorizacion';
import { conClavesDeReservasPorPrincipal, conClavesPorPrincipal } from './auth/claves-por-principal';
import { startIdentityAuth } from './auth/identity-runtime';
import { createHttpApp } from './http/http-app';
import { startHttpServer } from './http/http-server';
import { cachingClients, cachingInventario } from './cache/cached-downstream';
import { startReadCache } from './cache/read-cache-runtime';
import { createInventario } from './inventario/inventario';
import { conTotalesDelLibro } from './inventario/totales-del-libro';

export interface StartOptions {
  /** Aborts start-up (a stop request while starting): startApp rejects. */
  signal?: AbortSignal;
}

/** A running BFF. */
export interface BffApp {
  /** The bound HTTP port (the real one when PORT=0). */
  httpPort: number;
  /** The bound port of GET /metrics (the real one when METRICS_PORT=0). */
  metricsPort: number;
  /** The written shutdown sequence, in order (main hands it to createShutdown). */
  shutdownSteps: ShutdownStep[];
  /** Runs shutdownSteps once, in order; a failing step is logged and the rest still run. */
  stop(): Promise<void>;
}

/**
 * Wires the BFF: downstream channels and breakers, the use cases, the
 * express app and its HTTP server. Nothing is awaited but the port: the
 * services may come up after the BFF (calls answer 503 until they do).
 * Shutdown: readiness DOWN, drain delay (the proxy stops sending), close the
 * HTTP server (in-flight requests finish), close the gRPC channels, and
 * last the metrics server (METRICS_PORT), so the final scrape sees all that.
 * One linear start-up sequence whose order is the contract, and its shutdown list, read top to bottom.
 */
export async function startApp(config: Config, logger: Logger, options: StartOptions = {}): Promise<BffApp> {
  options.signal?.throwIfAborted();
  const registry = createServiceRegistry('bff');
  // Whatever a step opened is closed if a later one throws (a bad address, a duplicate metric, a port in use).
  const guard = createStartupGuard();
  const metricsServer = await guard.step(
    () => startMetricsServer({ registry, host: config.metricsHost, port: config.metricsPort, logger }),
    (server) => server.close(),
  );
  let accepting = true;
  const downstreamMetrics = createDownstreamMetrics(registry, config.identidadSvcAddr !== undefined);
  const downstream = await guard.step(
    () => createDownstream(config, logger, downstreamMetrics),
    (channels) => channels.close(),
  );
  const readCache = await guard.step(
    () => startReadCache(config, registry, logger),
    (runtime) => runtime?.stop(),
  );
  // With identidad-svc: its client, the verified-credential cache and the identity events that empty it.
  const identityAuth = await guard.step(
    () => (downstream.identidad ? startIdentityAuth(config, downstream.identidad, registry, logger) : undefined),
    (runtime) => runtime?.stop(),
  );
  // With the cache, every read by id and every write of REST and GraphQL goes through it (cache/cached-downstream.ts).
  const clients = readCache ? cachingClients(downstream, readCache.cache, readCache.acks) : downstream;
  // A product's cantidadEnStock is its ledger total wherever it is answered (inventario/totales-del-libro.ts).
  const useCases = conTotalesDelLibro(
    createInventario({ ...clients, onSafeWriteOutcome: (outcome) => downstreamMetrics.safeWrites.inc({ outcome }) }),
    clients.existencias,
  );
  const app = await guard.step(() =>
    createHttpApp({
      httpMetrics: createHttpMetrics(registry),
      // Authorization wraps the cache: records are cached whoever read them, each request is judged on its own (issue
      // 26).
      // Keys are scoped by principal id once authorized (auth/claves-por-principal.ts).
      inventario: conClavesPorPrincipal(
        conAutorizacion(readCache ? cachingInventario(useCases, readCache.cache) : useCases),
      ),
      health: downstream.health,
      reservas: conClavesDeReservasPorPrincipal(conAutorizacionDeReservas(downstream.reservas)),
      logger,
      credentials: config.credentials,
      identidad: identityAuth?.deps,
      rateLimitPerMinute: config.rateLimitPerMinute,
      authFailuresPer15Min: config.authFailuresPer15Min,
      trustProxyHops: config.trustProxyHops,
      enableInit: config.enableInit,
      graphqlLimits: config.graphqlLimits,
      writeTimeoutMs: config.httpTimeouts.writeMs,
      accepting: () => accepting,
    }),
  );

  // Answers still being prepared when shutdown starts close their connection
  // too (the app marks those that arrive later): a keep-alive client must not
  // send its next request on a connection the server is about to close.
  const inFlight = new Set<ServerResponse>();
  const listener: RequestListener = (req, res) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    app(req, res);
  };

  const server = await guard.step(() =>
    startHttpServer(listener, config.port, config.host, config.httpTimeouts, logger),
  );
  logger.info(
    {
      port: server.port,
      productoSvc: config.productoSvcAddr,
      bodegaSvc: config.bodegaSvcAddr,
      identidadSvc: config.identidadSvcAddr ?? null,
    },
    'http server listening',
  );

  // In-flight requests get half of what the deadline leaves after the drain; the rest is margin.
  const graceMs = Math.max(0, config.shutdownTimeoutMs - config.shutdownDrainMs) / 2;
  const shutdownSteps: ShutdownStep[] = [
    {
      name: 'readiness DOWN',
      run: () => {
        accepting = false;
        for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      },
    },
    // Lets the proxy and load balancer see readiness DOWN before the port closes.
    { name: 'drain delay', run: () => sleep(config.shutdownDrainMs) },
    { name: 'http server', run: () => server.close(graceMs) },
    // After the server: in-flight requests may still be calling downstream.
    { name: 'grpc channels', run: () => downstream.close() },
    { name: 'read cache events', run: () => readCache?.stop() },
    { name: 'identity events', run: () => identityAuth?.stop() },
    // Last, so the final scrape still sees the shutdown.
    { name: 'metrics server', run: () => metricsServer.close() },
  ];

  return {
    httpPort: server.port,
    metricsPort: metricsServer.port,
    shutdownSteps,
    stop: stopOnce(shutdownSteps, logger),
  };
}
