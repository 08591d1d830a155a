import type { Registry } from 'prom-client';
import { createDb, type DbOptions, type Knex, type Migration } from './db';
import { startServiceGrpcServer, type ServiceGrpcServer, type ServiceGrpcServerOptions } from './grpc/service-server';
import { startServingHealth } from './health';
import { startIdempotencyPruner } from './idempotency';
import type { Logger } from './logger';
import { createJetStreamConsumerMetrics, type JetStreamConsumerMetrics } from './metrics/jetstream-metrics';
import { startMetricsServer, type MetricsServer } from './metrics/metrics-server';
import { createOutboxMetrics, startOutboxSampler, type OutboxMetrics } from './metrics/outbox-metrics';
import { createServiceRegistry } from './metrics/registry';
import { createServiceEvents, type EventsContext, type OutboxFaults, type ServiceEvents } from './service-events';
import type { ServiceConfig } from './service-config';
import { grpcServingShutdownSteps, stopOnce, type ShutdownStep } from './shutdown';
import { applyMigrationsAtStart, createStartupGuard, retrying, type StartupGuard } from './start-up';

/**
 * What the gRPC services (producto-svc, bodega-svc, identidad-svc) share in
 * their app.ts: how they are started and what a running one offers. Each
 * app.ts writes its own steps (stores, handlers, clients, consumers, its own
 * samplers) between three shared ones: startServiceBase,
 * serveGrpcAfterMigrations and runGrpcService, which hold the frame that was
 * the same lines three times and its order.
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

/** What the first steps of a gRPC service's start made, for its own steps and the later ones. */
export interface ServiceBase {
  /** Aborts start-up (startApp's option): the waits for the database and the first ADMIN give up. */
  signal: AbortSignal;
  /** The service's metrics (its own series go here too). */
  registry: Registry;
  /** Closes what each step opened when a later one throws; the service's own steps use it too. */
  guard: StartupGuard;
  outboxMetrics: OutboxMetrics;
  /** The JetStream series of the service's consumers. */
  consumerMetrics: JetStreamConsumerMetrics;
  metricsServer: MetricsServer;
  db: Knex;
  events: ServiceEvents;
}

/**
 * The first steps of a gRPC service's start: its registry, the metrics server
 * first (process metrics are there while the service waits for its database),
 * then the database pool, each closed by the returned guard if a later step
 * throws; and the service's events (NATS, stream and outbox relay, started
 * later by the app).
 */
export async function startServiceBase(options: {
  name: string;
  config: ServiceConfig;
  logger: Logger;
  /** The durable names of the service's consumers (their JetStream series). */
  consumers: readonly string[];
  /** startApp's options: its abort signal and fault injection. */
  start: GrpcServiceStartOptions;
  /** The pool's session isolation level (createDb's option), when the service chose one. */
  transactionIsolation?: DbOptions['transactionIsolation'];
  /** createDb's option: several statements in one query. */
  multipleStatements?: boolean;
}): Promise<ServiceBase> {
  const { name, config, logger } = options;
  const registry = createServiceRegistry(name);
  const outboxMetrics = createOutboxMetrics(registry);
  const consumerMetrics = createJetStreamConsumerMetrics(registry, options.consumers);
  const guard = createStartupGuard();
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
    metrics: outboxMetrics,
    faults: options.start.faults,
  });
  const signal = options.start.signal ?? new AbortController().signal;
  return { signal, registry, guard, outboxMetrics, consumerMetrics, metricsServer, db, events };
}

/**
 * The gRPC port (health NOT_SERVING, calls UNAVAILABLE: probes get an answer
 * meanwhile), then the migrations, then `beforeCalls` (a last start-up step,
 * e.g. identidad-svc's first ADMIN), and only then the first call.
 */
export async function serveGrpcAfterMigrations(
  base: ServiceBase,
  options: {
    config: ServiceConfig;
    logger: Logger;
    migrations: Record<string, Migration>;
    grpc: Pick<ServiceGrpcServerOptions, 'services' | 'descriptorSetPath' | 'autenticacion'>;
    beforeCalls?: () => Promise<void>;
  },
): Promise<ServiceGrpcServer> {
  const { guard, db, registry, signal } = base;
  const { config, logger } = options;
  const grpc = await guard.step(
    () => startServiceGrpcServer({ ...options.grpc, host: config.grpcHost, port: config.grpcPort, registry, logger }),
    (server) => server.server.forceShutdown(),
  );
  await guard.step(() => applyMigrationsAtStart(db, config, options.migrations, logger, signal));
  if (options.beforeCalls) await guard.step(options.beforeCalls);
  grpc.acceptCalls();
  return grpc;
}

/**
 * The rest of a gRPC service's start once it takes calls: the outbox sampler,
 * the pruner of expired idempotency keys, health SERVING while the database
 * answers, and in the background NATS, the stream and the relay, then the
 * consumers (`startConsumers`, retried until they start). Its written
 * shutdown sequence: health NOT_SERVING, the drain delay and the gRPC server
 * (in-flight calls finish before what they use closes), the consumers, the
 * relay and the NATS drain, then `close` (what the service opened itself)
 * and the pool, the metrics server last (the final scrape still sees the
 * shutdown).
 */
export function runGrpcService(
  base: ServiceBase,
  options: {
    grpc: ServiceGrpcServer;
    config: ServiceConfig;
    logger: Logger;
    startConsumers(nats: EventsContext): Promise<{ stop(): Promise<void> }>;
    /** What the consumers' start is called in the retry's log lines; default `consumer start`. */
    consumersName?: string;
    /** Stops and closes what the service opened itself, before the pool is destroyed. */
    close(): Promise<void>;
  },
): GrpcServiceApp {
  const { db, events, metricsServer, outboxMetrics } = base;
  const { grpc, config, logger } = options;
  const stopOutboxSampler = startOutboxSampler({ db, metrics: outboxMetrics, logger });
  const stopKeyPruner = startIdempotencyPruner(db, logger);
  const health = startServingHealth({ server: grpc, db, logger, intervalMs: config.dbCheckIntervalMs });
  const consumers = events
    .start()
    .then((nats) =>
      retrying(options.consumersName ?? 'consumer start', () => options.startConsumers(nats), logger, events.stopping),
    );
  const shutdownSteps: ShutdownStep[] = [
    ...grpcServingShutdownSteps({ health, grpc, ...config }),
    ...events.shutdownSteps(consumers),
    {
      name: 'database pool',
      run: async () => {
        await options.close();
        await stopOutboxSampler();
        await stopKeyPruner();
        await db.destroy();
      },
    },
    { name: 'metrics server', run: () => metricsServer.close() },
  ];
  return {
    grpcPort: grpc.port,
    metricsPort: metricsServer.port,
    ready: events.ready(consumers),
    setServing: health.setServing,
    shutdownSteps,
    stop: stopOnce(shutdownSteps, logger),
  };
}
