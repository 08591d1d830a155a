import { setTimeout as sleep } from 'node:timers/promises';
import {
  applyMigrationsAtStart,
  createDb,
  createJetStreamConsumerMetrics,
  createOutboxMetrics,
  createServiceEvents,
  createServiceRegistry,
  createStartupGuard,
  retrying,
  startIdempotencyPruner,
  startMetricsServer,
  startOutboxSampler,
  startServiceGrpcServer,
  startSampler,
  startServingHealth,
  stopOnce,
  type EventsContext,
  type Logger,
  type OutboxFaults,
  type ShutdownStep,
} from '@inventario/platform';
import { BodegaServiceService, descriptorSetPath, ExistenciaServiceService } from '@inventario/proto';
import { Gauge } from 'prom-client';
import type { Config } from './config';
import { createBodegaEvents } from './events/bodega-events';
import { createExistenciaEvents } from './events/existencia-events';
import { PRODUCTO_ELIMINADO_CONSUMER, startProductoEliminadoConsumer } from './events/producto-eliminado-consumer';
import { createBodegaHandlers } from './grpc/bodega-handlers';
import { createExistenciaHandlers } from './grpc/existencia-handlers';
import { createProductoLookup } from './grpc/producto-lookup';
import { createBodegaStore } from './store/bodega-store';
import { createExistenciaStore } from './store/existencia-store';
import { migrations } from './store/migrations';

/** The gRPC service name, also the key of its grpc.health.v1 status. */
export const BODEGA_SERVICE_NAME = 'inventario.v1.BodegaService';
/** The stock service, served by the same process (docs/contract.md §10.5). */
export const EXISTENCIA_SERVICE_NAME = 'inventario.v1.ExistenciaService';

export interface StartOptions {
  /** Aborts start-up (e.g. SIGTERM while waiting for the database): startApp rejects. */
  signal?: AbortSignal;
  /** Fault injection, for tests only: no environment variable sets it. */
  faults?: OutboxFaults;
}

/** A running bodega-svc. */
export interface App {
  /** The bound gRPC port (the real one when GRPC_PORT=0). */
  grpcPort: number;
  /** The bound port of GET /metrics (the real one when METRICS_PORT=0). */
  metricsPort: number;
  /**
   * Resolves once NATS is connected, the stream exists and the relay and
   * the consumer run. Writes are served before that: the outbox keeps their
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
 * Starts bodega-svc: the metrics server, the database pool, warehouses and
 * their stock (stores, whose writes commit their outbox events) behind the
 * gRPC handlers, the gRPC port (health NOT_SERVING, calls UNAVAILABLE until
 * migrations are applied), migrations, health SERVING while the database
 * answers, the periodic verification of the stock against its ledger, and
 * in the background NATS, the outbox relay and the ProductoEliminado
 * consumer that writes a deleted product's stock out once producto-svc
 * (PRODUCTO_SVC_ADDR) confirms it is gone. Whatever a step opened is closed
 * if a later one throws.
 */
export async function startApp(config: Config, logger: Logger, options: StartOptions = {}): Promise<App> {
  const signal = options.signal ?? new AbortController().signal;
  const registry = createServiceRegistry('bodega-svc');
  const outboxMetrics = createOutboxMetrics(registry);
  const consumerMetrics = createJetStreamConsumerMetrics(registry, [PRODUCTO_ELIMINADO_CONSUMER]);
  const guard = createStartupGuard();

  // First, so process metrics are there while the service waits for its database.
  const metricsServer = await guard.step(
    () => startMetricsServer({ registry, host: config.metricsHost, port: config.metricsPort, logger }),
    (server) => server.close(),
  );
  const db = await guard.step(
    () => createDb(config.databaseUrl, { logger, statementTimeoutMs: config.dbStatementTimeoutMs, acquireTimeoutMs: config.dbAcquireTimeoutMs }),
    (pool) => pool.destroy(),
  );
  const events = createServiceEvents({ name: 'bodega-svc', config, db, logger, metrics: outboxMetrics, faults: options.faults });
  const eventOptions = { namespace: config.eventTypeNamespace, subjectPrefix: config.natsSubjectPrefix };
  const existencias = createExistenciaStore(db, {
    events: createExistenciaEvents(eventOptions),
    onCommitted: events.notifyRelay,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
  });
  const store = createBodegaStore(db, {
    events: createBodegaEvents(eventOptions),
    onCommitted: events.notifyRelay,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    existencias,
  });
  const diferencias = new Gauge({
    name: 'inventario_existencias_diferencias',
    help: 'Stock levels and occupancies that differ from the ledger, at the last verification (0: consistent).',
    registers: [registry],
  });
  const onVerified = (n: number) => diferencias.set(n);
  const grpc = await guard.step(
    () =>
      startServiceGrpcServer({
        host: config.grpcHost,
        port: config.grpcPort,
        services: [
          { name: BODEGA_SERVICE_NAME, definition: BodegaServiceService, implementation: createBodegaHandlers({ store, logger }) },
          {
            name: EXISTENCIA_SERVICE_NAME,
            definition: ExistenciaServiceService,
            implementation: createExistenciaHandlers({ store: existencias, logger, onVerified }),
          },
        ],
        descriptorSetPath,
        registry,
        logger,
      }),
    (server) => server.server.forceShutdown(),
  );
  await guard.step(() => applyMigrationsAtStart(db, config, migrations, logger, signal));
  grpc.acceptCalls();

  const stopOutboxSampler = startOutboxSampler({ db, metrics: outboxMetrics, logger });
  const stopKeyPruner = startIdempotencyPruner(db, logger);
  const stopVerification =
    config.existenciasVerificacionIntervalMs > 0
      ? startSampler(
          'stock verification',
          config.existenciasVerificacionIntervalMs,
          async () => {
            const v = await existencias.verificar();
            onVerified(v.diferencias.length);
            if (!v.consistente) logger.error({ diferencias: v.diferencias.slice(0, 20) }, 'stock differs from its ledger');
          },
          logger,
        )
      : () => Promise.resolve();
  const health = startServingHealth({ server: grpc, db, logger, intervalMs: config.dbCheckIntervalMs });

  // The reconciliation's own channel to producto-svc, closed with the consumer.
  const startConsumer = async (nats: EventsContext) => {
    const productos = createProductoLookup(config.productoSvcAddr);
    const consumer = await startProductoEliminadoConsumer({
      ...nats,
      namespace: config.eventTypeNamespace,
      store: existencias,
      productos,
      logger,
      metrics: consumerMetrics,
    }).catch((err: unknown) => {
      productos.close();
      throw err;
    });
    return {
      async stop() {
        await consumer.stop();
        productos.close();
      },
    };
  };
  // In the background: NATS, the stream and the relay, then the consumer.
  const consumer = events.start().then((nats) => retrying('consumer start', () => startConsumer(nats), logger, events.stopping));
  const ready = events.ready(consumer);

  // In-flight calls get half of what the deadline leaves after the drain; the
  // other half is for the consumer, relay, NATS drain and pool to finish.
  const graceMs = Math.max(0, config.shutdownTimeoutMs - config.shutdownDrainMs) / 2;
  const shutdownSteps: ShutdownStep[] = [
    {
      name: 'health NOT_SERVING',
      run: () => {
        health.stop();
        health.setServing(false);
      },
    },
    // Lets load balancers and clients see NOT_SERVING before the port closes.
    { name: 'drain delay', run: () => sleep(config.shutdownDrainMs) },
    // In-flight calls finish (up to graceMs) before anything they use is closed.
    { name: 'grpc server', run: () => grpc.shutdown(graceMs) },
    {
      name: 'consumers',
      run: async () => {
        events.stopWaiting();
        await consumer.then(
          (started) => started.stop(),
          () => undefined,
        );
      },
    },
    // After the server: events of the last writes go out now or on the next start.
    { name: 'outbox relay', run: () => events.stopRelay() },
    { name: 'nats drain', run: () => events.drainNats() },
    {
      name: 'database pool',
      run: async () => {
        await stopOutboxSampler();
        await stopKeyPruner();
        await stopVerification();
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
    setServing: health.setServing,
    shutdownSteps,
    stop: stopOnce(shutdownSteps, logger),
  };
}
