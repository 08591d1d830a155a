import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceConfig } from './service-config';
import { status, type handleUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { createDb, describeMysqlUrl, type Knex, type Migration } from './db';
import { monitorDatabase } from './health';
import type { Logger } from './logger';
import { ensureStream, type NatsConnection } from './nats';
import { redactUrlCredentials } from './redact';
import { createOutboxRelay, jetStreamPublisher, type OutboxRelay } from './outbox';
import { stopOnce, type ShutdownStep } from './shutdown';
import { connectNatsUnlessAborted, createStartupGuard, migrateWhenPossible, requireMigrations, retrying } from './start-up';
import { startGrpcServer, type GrpcServiceBinding } from './grpc/server';
import type { Registry } from 'prom-client';
import { createGrpcServerMetrics, instrumentGrpcService } from './metrics/grpc-metrics';
import { startMetricsServer } from './metrics/metrics-server';
import { createOutboxMetrics, startOutboxSampler } from './metrics/outbox-metrics';
import { createServiceRegistry } from './metrics/registry';
import { startSampler } from './metrics/sampler';
import { pruneIdempotencyKeys } from './idempotency';

/**
 * The lifecycle every gRPC service of Inventario shares: configuration,
 * database and migrations, gRPC server with health and reflection, the
 * outbox relay and NATS consumers brought up in the background, and the
 * written shutdown sequence. A service supplies only its own wiring.
 */

/** Where the NATS side of a service lives once it is connected. */
export interface EventsContext {
  nc: NatsConnection;
  stream: string;
  prefix: string;
}

/** Something started in the background that shutdown must stop (e.g. a consumer). */
export interface Stoppable {
  stop(): Promise<void>;
}

/** What a service contributes: its gRPC services and, optionally, its consumers. */
export interface ServiceWiring {
  grpcServices: GrpcServiceBinding[];
  /** Started once NATS and the stream are up; retried until it succeeds. */
  startConsumers?: (events: EventsContext) => Promise<Stoppable>;
  /** Database-side background work started by `wire` (e.g. a periodic check); stopped before the pool closes. */
  background?: Stoppable[];
}

export interface StartServiceOptions {
  /** Process name, e.g. `producto-svc` (logs, NATS connection name). */
  name: string;
  config: ServiceConfig;
  logger: Logger;
  migrations: Record<string, Migration>;
  /** Binary FileDescriptorSet served by reflection. */
  descriptorSetPath: string;
  /**
   * Builds the service from its database pool; `notifyRelay` wakes the outbox
   * relay and should be called after each committed write; `registry` is
   * the service's metrics registry, for the metrics of its own parts.
   */
  wire(deps: { db: Knex; notifyRelay: () => void; registry: Registry }): ServiceWiring;
  /** Aborts start-up (e.g. SIGTERM while waiting for the database): startService rejects. */
  signal?: AbortSignal;
}

/** A running service. */
export interface ServiceApp {
  /** The bound gRPC port (the real one when GRPC_PORT=0). */
  grpcPort: number;
  /** The bound port of GET /metrics (the real one when METRICS_PORT=0). */
  metricsPort: number;
  /**
   * Resolves once NATS is connected, the stream exists and the relay and
   * consumers run. Writes are served before that: the outbox keeps their
   * events until NATS is there. Rejects if the service stops first.
   */
  ready: Promise<void>;
  /**
   * Whether this process takes traffic. SERVING needs this, finished
   * migrations and a reachable database; shutdown clears it first.
   */
  setServing(serving: boolean): void;
  /** The written shutdown sequence, in order (main hands it to installShutdown). */
  shutdownSteps: ShutdownStep[];
  /** Runs shutdownSteps once, in order; a failing step is logged and the rest still run. */
  stop(): Promise<void>;
}

/** How often expired idempotency keys are deleted. */
const IDEMPOTENCY_PRUNE_INTERVAL_MS = 10 * 60_000;
/** How long one JetStream publish may wait for its ack before the relay backs off. */
const PUBLISH_TIMEOUT_MS = 5000;
/** Ceiling of the retry delay while NATS-side setup fails. */

/**
 * Starts a service: the gRPC port opens first (health NOT_SERVING, so probes
 * get an answer rather than a refused connection, and calls get UNAVAILABLE),
 * migrations run (retried while the database is unreachable, one replica at
 * a time), health turns SERVING while the database answers, and NATS comes
 * up in the background, because a broker outage must delay events, never
 * writes (docs/contract.md §5.6).
 */
export async function startService(options: StartServiceOptions): Promise<ServiceApp> {
  const { config, logger } = options;
  const registry = createServiceRegistry(options.name);
  // Whatever a step opened is closed if a later one throws.
  const guard = createStartupGuard();
  // First, so process metrics are there while the service waits for its database.
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
      }),
    (pool) => pool.destroy(),
  );
  let relay: OutboxRelay | undefined;
  const { wiring, grpcMetrics, outboxMetrics } = await guard.step(() => {
    const wired = options.wire({ db, notifyRelay: () => relay?.notify(), registry });
    return {
      wiring: wired,
      grpcMetrics: createGrpcServerMetrics(registry, wired.grpcServices.map((s) => s.definition)),
      outboxMetrics: createOutboxMetrics(registry),
    };
  });
  let migrated = false;

  const grpc = await guard.step(
    () =>
      startGrpcServer({
        host: config.grpcHost,
        port: config.grpcPort,
        services: wiring.grpcServices.map((s) => ({
          ...s,
          implementation: instrumentGrpcService(s.definition, unavailableUntil(() => migrated, s.implementation), grpcMetrics),
        })),
        descriptorSetPath: options.descriptorSetPath,
        logger,
      }),
    (server) => server.server.forceShutdown(),
  );
  const startSignal = options.signal ?? new AbortController().signal;
  await guard.step(() =>
    config.migrateOnStart
      ? migrateOnItsOwnPool(config.databaseUrl, options.migrations, logger, startSignal)
      : requireMigrations(db, options.migrations, logger, startSignal),
  );
  migrated = true;
  const stopOutboxSampler = startOutboxSampler({ db, metrics: outboxMetrics, logger });
  // Expired idempotency records go in the background; a lookup already ignores them.
  const stopKeyPruner = startSampler('idempotency prune', IDEMPOTENCY_PRUNE_INTERVAL_MS, async () => {
    const deleted = await pruneIdempotencyKeys(db);
    if (deleted > 0) logger.info({ deleted }, 'pruned expired idempotency keys');
  }, logger);
  logger.info({ database: describeMysqlUrl(config.databaseUrl) }, 'database migrated');

  let accepting = true;
  let databaseUp = true;
  const applyHealth = () => grpc.setServing(accepting && databaseUp);
  applyHealth();
  const stopMonitor = monitorDatabase({
    db,
    logger,
    intervalMs: config.dbCheckIntervalMs,
    onChange: (up) => {
      databaseUp = up;
      applyHealth();
    },
  });
  const setServing = (serving: boolean) => {
    accepting = serving;
    applyHealth();
  };

  const abort = new AbortController();
  let nc: NatsConnection | undefined;
  let consumers: Stoppable | undefined;
  const setup = (async () => {
    logger.info({ nats: redactUrlCredentials(config.natsUrl) }, 'connecting to NATS in the background; events wait in the outbox until then');
    nc = await connectNatsUnlessAborted(config.natsUrl, options.name, logger, abort.signal, config.natsCredentials);
    const events: EventsContext = { nc, stream: config.natsStream, prefix: config.natsSubjectPrefix };
    await retrying('stream setup', () => ensureStream(events.nc, { name: events.stream, subjects: [`${events.prefix}.>`], limits: config.streamLimits }), logger, abort.signal);
    relay = createOutboxRelay({
      db,
      publish: jetStreamPublisher(events.nc, PUBLISH_TIMEOUT_MS),
      logger,
      faultMarkDelayMs: config.outboxFaultMarkDelayMs,
      metrics: outboxMetrics,
    });
    relay.start();
    relay.notify(); // rows committed before the relay existed
    if (wiring.startConsumers) {
      const start = wiring.startConsumers;
      consumers = await retrying('consumer start', () => start(events), logger, abort.signal);
    }
    logger.info({ stream: events.stream, prefix: events.prefix }, 'events ready');
  })();
  const ready = setup.catch((err: unknown) => {
    if (!abort.signal.aborted) logger.error({ err }, 'event setup failed; events wait in the outbox');
    throw err;
  });
  // `ready` need not be awaited (main does not); its failure is logged above.
  ready.catch(() => undefined);

  // In-flight calls get half of what the deadline leaves after the drain; the
  // other half is for consumers, relay, NATS drain and pool to finish.
  const graceMs = Math.max(0, config.shutdownTimeoutMs - config.shutdownDrainMs) / 2;
  const shutdownSteps: ShutdownStep[] = [
    {
      name: 'health NOT_SERVING',
      run: () => {
        stopMonitor();
        setServing(false);
      },
    },
    // Lets load balancers and clients see NOT_SERVING before the port closes.
    { name: 'drain delay', run: () => sleep(config.shutdownDrainMs) },
    // In-flight calls finish (up to graceMs) before anything they use is closed.
    { name: 'grpc server', run: () => grpc.shutdown(graceMs) },
    {
      name: 'consumers',
      run: async () => {
        abort.abort();
        await setup.catch(() => undefined);
        await consumers?.stop();
      },
    },
    // After the server: events of the last writes go out now or on the next start.
    { name: 'outbox relay', run: () => relay?.stop() },
    { name: 'nats drain', run: async () => (nc && !nc.isClosed() ? nc.drain() : undefined) },
    {
      name: 'database pool',
      run: async () => {
        await stopOutboxSampler();
        await stopKeyPruner();
        await Promise.all((wiring.background ?? []).map((task) => task.stop()));
        await db.destroy();
      },
    },
    // Last, so the final scrape still sees the shutdown.
    { name: 'metrics server', run: () => metricsServer.close() },
  ];

  return {
    grpcPort: grpc.port,
    metricsPort: metricsServer.port,
    ready,
    setServing,
    shutdownSteps,
    stop: stopOnce(shutdownSteps, logger),
  };
}

/**
 * Migrations run on a pool of their own, without the service pool's
 * statement limit: a migration of a big table may rightly take minutes.
 */
async function migrateOnItsOwnPool(url: string, migrations: Record<string, Migration>, logger: Logger, signal: AbortSignal): Promise<void> {
  const pool = createDb(url, { logger });
  try {
    await migrateWhenPossible(pool, migrations, logger, signal);
  } finally {
    await pool.destroy();
  }
}

/**
 * Answers UNAVAILABLE (retryable) instead of calling a handler until `ready()`,
 * so a call that races start-up never reaches a missing table. Every
 * inventario.v1 method is unary.
 */
function unavailableUntil(ready: () => boolean, implementation: UntypedServiceImplementation): UntypedServiceImplementation {
  return Object.fromEntries(
    Object.entries(implementation).map(([method, handler]) => {
      const unary = handler as handleUnaryCall<unknown, unknown>;
      const gated: handleUnaryCall<unknown, unknown> = (call, callback) => {
        if (ready()) return unary(call, callback);
        callback({ code: status.UNAVAILABLE, details: 'starting: database migrations not applied yet' });
      };
      return [method, gated];
    }),
  );
}

