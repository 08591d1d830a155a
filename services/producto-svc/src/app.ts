import { setTimeout as sleep } from 'node:timers/promises';
import {
  connectNats,
  createDb,
  createOutboxRelay,
  describeMysqlUrl,
  ensureStream,
  jetStreamPublisher,
  migrate,
  monitorDatabase,
  startGrpcServer,
  type Knex,
  type Logger,
  type NatsConnection,
  type OutboxRelay,
  type ShutdownStep,
  type StartedGrpcServer,
} from '@inventario/platform';
import { descriptorSetPath, ProductoServiceService } from '@inventario/proto';
import type { Config } from './config';
import { startBodegaEliminadaConsumer, type BodegaEliminadaConsumer } from './events/bodega-eliminada-consumer';
import { createProductoEvents } from './events/producto-events';
import { createProductoHandlers } from './grpc/producto-handlers';
import { migrations } from './store/migrations';
import { createProductoStore, type ProductoStore } from './store/producto-store';

export const SERVICE_NAME = 'inventario.v1.ProductoService';
const PUBLISH_TIMEOUT_MS = 5000;
const SETUP_RETRY_MAX_MS = 10_000;

/** A running producto-svc. */
export interface App {
  /** The bound gRPC port (the real one when GRPC_PORT=0). */
  grpcPort: number;
  /**
   * Resolves once NATS is connected, the stream exists, the outbox relay and
   * the reconciliation consumer run. Writes are served before that: the
   * outbox keeps their events until NATS is there. Rejects if stopped first.
   */
  ready: Promise<void>;
  /** Sets grpc.health.v1 for the server and ProductoService. */
  setServing(serving: boolean): void;
  /** The written shutdown sequence, in order (main hands it to installShutdown). */
  shutdownSteps: ShutdownStep[];
  /** Runs shutdownSteps in order; a failing step is logged and the rest still run. */
  stop(): Promise<void>;
}

/** The NATS side, filled in by the background setup as each part comes up. */
interface EventParts {
  nc?: NatsConnection;
  relay?: OutboxRelay;
  consumer?: BodegaEliminadaConsumer;
}

/**
 * Starts producto-svc: database (migrated), gRPC server (health SERVING while
 * the database answers), then NATS in the background, because a broker
 * outage must delay events, never writes (ARCHITECTURE §4).
 */
export async function startApp(config: Config, logger: Logger): Promise<App> {
  const db = createDb(config.databaseUrl, { logger });
  const parts: EventParts = {};
  const store = createProductoStore(db, {
    events: createProductoEvents({ namespace: config.eventTypeNamespace, prefix: config.natsSubjectPrefix }),
    onCommitted: () => parts.relay?.notify(),
  });

  let grpc: StartedGrpcServer;
  try {
    // Health answers NOT_SERVING while migrations run, instead of a refused connection.
    grpc = await startGrpcServer({
      host: config.grpcHost,
      port: config.grpcPort,
      services: [{ name: SERVICE_NAME, definition: ProductoServiceService, implementation: createProductoHandlers({ store, logger }) }],
      descriptorSetPath,
      logger,
    });
  } catch (err) {
    await db.destroy();
    throw err;
  }
  try {
    await migrate(db, migrations);
  } catch (err) {
    grpc.server.forceShutdown();
    await db.destroy();
    throw err;
  }
  logger.info({ database: describeMysqlUrl(config.databaseUrl) }, 'database migrated');

  let stopping = false;
  grpc.setServing(true);
  const stopMonitor = monitorDatabase({
    db,
    logger,
    intervalMs: config.dbCheckIntervalMs,
    onChange: (up) => {
      if (!stopping) grpc.setServing(up);
    },
  });

  const abort = new AbortController();
  const setup = connectEvents({ config, db, store, logger, parts, signal: abort.signal });
  const ready = setup.catch((err: unknown) => {
    if (!abort.signal.aborted) logger.error({ err }, 'event setup failed; events wait in the outbox');
    throw err;
  });
  // `ready` may never be awaited (main does not): its rejection is logged above.
  ready.catch(() => undefined);

  // In-flight calls get half of what the deadline leaves after the drain; the
  // other half is for the consumer, relay, NATS drain and pool to finish.
  const graceMs = Math.max(0, config.shutdownTimeoutMs - config.shutdownDrainMs) / 2;
  const shutdownSteps: ShutdownStep[] = [
    {
      name: 'health NOT_SERVING',
      run: () => {
        stopping = true;
        stopMonitor();
        grpc.setServing(false);
      },
    },
    // Lets load balancers and clients see NOT_SERVING before the port closes.
    { name: 'drain delay', run: () => sleep(config.shutdownDrainMs) },
    { name: 'grpc server', run: () => grpc.shutdown(graceMs) },
    {
      name: 'reconciliation consumer',
      run: async () => {
        abort.abort();
        await setup.catch(() => undefined);
        await parts.consumer?.stop();
      },
    },
    // After the server: events of the last writes still go out.
    { name: 'outbox relay', run: () => parts.relay?.stop() },
    { name: 'nats', run: () => parts.nc?.drain() },
    { name: 'database', run: () => db.destroy() },
  ];

  let stopped: Promise<void> | undefined;
  return {
    grpcPort: grpc.port,
    ready,
    setServing: (serving) => grpc.setServing(serving),
    shutdownSteps,
    stop() {
      stopped ??= (async () => {
        for (const step of shutdownSteps) {
          try {
            await step.run();
          } catch (err) {
            logger.error({ step: step.name, err }, 'shutdown step failed');
          }
        }
      })();
      return stopped;
    },
  };
}

interface ConnectEventsOptions {
  config: Config;
  db: Knex;
  store: ProductoStore;
  logger: Logger;
  parts: EventParts;
  signal: AbortSignal;
}

/**
 * Connects NATS (retrying forever), ensures the stream, starts the relay and
 * the consumer, recording each part in `parts` so shutdown stops exactly what
 * was started. Gives up with an AbortError once `signal` is aborted.
 */
async function connectEvents({ config, db, store, logger, parts, signal }: ConnectEventsOptions): Promise<void> {
  const { natsStream: stream, natsSubjectPrefix: prefix } = config;

  const connecting = connectNats(config.natsUrl, 'producto-svc', logger);
  const aborted = new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(new Error('stopped before NATS was reachable')), { once: true });
  });
  // connectNats waits for the first connection indefinitely; stop waiting on abort
  // and close the connection should it still come up.
  const nc = await Promise.race([connecting, aborted]).catch((err: unknown) => {
    void connecting.then(
      (late) => late.close(),
      () => undefined,
    );
    throw err;
  });
  parts.nc = nc;
  logger.info({ nats: config.natsUrl }, 'nats connected');

  await retrying('ensure stream', () => ensureStream(nc, { name: stream, subjects: [`${prefix}.>`] }), logger, signal);

  parts.relay = createOutboxRelay({ db, publish: jetStreamPublisher(nc, PUBLISH_TIMEOUT_MS), logger });
  parts.relay.start();

  parts.consumer = await retrying(
    'start BodegaEliminada consumer',
    () => startBodegaEliminadaConsumer({ nc, stream, prefix, store, logger }),
    logger,
    signal,
  );
  logger.info({ stream, prefix }, 'events ready');
}

/** Runs `work` until it succeeds, backing off up to 10 s; AbortError once `signal` aborts. */
async function retrying<T>(what: string, work: () => Promise<T>, logger: Logger, signal: AbortSignal): Promise<T> {
  for (let delayMs = 250; ; delayMs = Math.min(SETUP_RETRY_MAX_MS, delayMs * 2)) {
    signal.throwIfAborted();
    try {
      return await work();
    } catch (err) {
      signal.throwIfAborted();
      logger.warn({ err: err instanceof Error ? err.message : String(err), retryInMs: delayMs }, `${what} failed; will retry`);
      await sleep(delayMs, undefined, { signal });
    }
  }
}
