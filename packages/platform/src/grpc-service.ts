import type { Registry } from 'prom-client';
import { createDb, type DbOptions, type Knex } from './db';
import type { Logger } from './logger';
import { startMetricsServer, type MetricsServer } from './metrics/metrics-server';
import type { OutboxRelayMetrics } from './metrics/outbox-metrics';
import { createServiceEvents, type OutboxFaults, type ServiceEvents } from './service-events';
import type { ServiceConfig } from './service-config';
import type { ShutdownStep } from './shutdown';
import type { StartupGuard } from './start-up';

/**
 * What the gRPC services (producto-svc, bodega-svc, identidad-svc) share in
 * their app.ts: how they are started and what a running one offers. Each
 * app.ts still writes its own steps and their order; this holds only what
 * would otherwise be the same lines three times.
 */

export interface GrpcServiceStartOptions {
  /** Aborts start-up (e.g. SIGTERM while waiting for the database): startApp rejects. */
  signal?: AbortSignal;
  /** Fault injection, for tests only: no environment variable sets it. */
  faults?: OutboxFaults;
}

/** A running gRPC service. */
export interface GrpcServiceApp {
  /** The bound gRPC port (the real one when GRPC_PORT=0). */
  grpcPort: number;
  /** The bound port of GET /metrics (the real one when METRICS_PORT=0). */
  metricsPort: number;
  /**
   * Resolves once NATS is connected, the stream exists and the relay and
   * the consumers run. Writes are served before that: the outbox keeps their
   * events until NATS is there. Rejects if the service stops first.
   */
  ready: Promise<void>;
  /** Whether this process takes traffic (health SERVING needs this and a reachable database). */
  setServing(serving: boolean): void;
  /** The written shutdown sequence, in order (main hands it to createShutdown). */
  shutdownSteps: ShutdownStep[];
  /** Runs shutdownSteps once, in order; a failing step is logged and the rest still run. */
  stop(): Promise<void>;
}

/**
 * The first steps of a gRPC service's start: the metrics server first (process
 * metrics are there while the service waits for its database), then the
 * database pool, each closed by `guard` if a later step throws; and the
 * service's events (NATS, stream and outbox relay, started later by the app).
 */
export async function startServiceBase(options: {
  name: string;
  config: ServiceConfig;
  logger: Logger;
  registry: Registry;
  guard: StartupGuard;
  outboxMetrics: OutboxRelayMetrics;
  faults?: OutboxFaults;
  /** The pool's session isolation level (createDb's option), when the service chose one. */
  transactionIsolation?: DbOptions['transactionIsolation'];
  /** createDb's option: several statements in one query. */
  multipleStatements?: boolean;
}): Promise<{ metricsServer: MetricsServer; db: Knex; events: ServiceEvents }> {
  const { name, config, logger, registry, guard } = options;
  const metricsServer = await guard.step(
    () => startMetricsServer({ registry, host: config.metricsHost, port: config.metricsPort, logger }),
    (server) => server.close(),
  );
  const db = await guard.step(
    () =>
      createDb(config.databaseUrl, {
        logger,
        statementTimeoutMs: config.dbStatementTimeoutMs,
        acquireTimeoutMs: config.dbAcquireTimeoutMs,
        transactionIsolation: options.transactionIsolation,
        multipleStatements: options.multipleStatements,
      }),
    (pool) => pool.destroy(),
  );
  const events = createServiceEvents({
    name,
    config,
    db,
    logger,
    metrics: options.outboxMetrics,
    faults: options.faults,
  });
  return { metricsServer, db, events };
}
