import {
  createDb,
  migrate,
  monitorDatabase,
  startGrpcServer,
  type Logger,
  type ShutdownStep,
} from '@inventario/platform';
import { BodegaServiceService, descriptorSetPath } from '@inventario/proto';
import type { Config } from './config';
import { createBodegaEvents } from './events/bodega-events';
import { startEventRelay } from './events/event-relay';
import { createBodegaHandlers } from './grpc/bodega-handlers';
import { createBodegaStore } from './store/bodega-store';
import { migrations } from './store/migrations';

/** The gRPC service name, also the key of its grpc.health.v1 status. */
export const BODEGA_SERVICE_NAME = 'inventario.v1.BodegaService';

/** Time kept out of the gRPC grace period for the steps after it (relay, NATS, pool). */
const AFTER_GRPC_RESERVE_MS = 5000;

/** A running bodega-svc. */
export interface App {
  /** The bound gRPC port (useful with GRPC_PORT=0). */
  grpcPort: number;
  /** Resolves once events are being published (NATS connected, stream ensured, relay running). */
  ready: Promise<void>;
  /**
   * Whether this process takes traffic (grpc.health.v1). While false, the
   * database monitor cannot turn health back to SERVING; shutdown sets it first.
   */
  setServing(serving: boolean): void;
  /** The sequence after the drain delay, in order: gRPC, relay, NATS, database. */
  stopSteps: ShutdownStep[];
  /** NOT_SERVING, then every stop step (no drain delay). Idempotent. */
  stop(): Promise<void>;
}

/**
 * Wires bodega-svc: database (migrated before anything is served), store,
 * gRPC server with health and reflection, and the outbox relay, which
 * connects to NATS in the background so writes are served while NATS is down.
 */
export async function startApp(config: Config, logger: Logger): Promise<App> {
  const db = createDb(config.databaseUrl);
  try {
    await migrate(db, migrations);
  } catch (err) {
    await db.destroy();
    throw err;
  }

  const relay = startEventRelay({
    db,
    natsUrl: config.natsUrl,
    clientName: 'bodega-svc',
    stream: config.natsStream,
    subjectPrefix: config.natsSubjectPrefix,
    logger,
  });
  const store = createBodegaStore(db, {
    events: createBodegaEvents({ namespace: config.eventTypeNamespace, subjectPrefix: config.natsSubjectPrefix }),
    onCommitted: () => relay.notify(),
  });

  const server = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    services: [
      { name: BODEGA_SERVICE_NAME, definition: BodegaServiceService, implementation: createBodegaHandlers({ store, logger }) },
    ],
    descriptorSetPath,
    logger,
  }).catch(async (err: unknown) => {
    await relay.stopRelay();
    await relay.drainNats();
    await db.destroy();
    throw err;
  });

  // SERVING needs both: we are not shutting down, and the database answers.
  let accepting = true;
  let databaseUp = true;
  const applyHealth = () => server.setServing(accepting && databaseUp);
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

  const graceMs = Math.max(1000, config.shutdownTimeoutMs - config.shutdownDrainMs - AFTER_GRPC_RESERVE_MS);
  const stopSteps: ShutdownStep[] = [
    // In-flight calls finish (up to graceMs) before anything they use is closed.
    { name: 'grpc server', run: () => server.shutdown(graceMs) },
    // After the last write: events it committed are published now or on the next start.
    { name: 'outbox relay', run: () => relay.stopRelay() },
    { name: 'nats drain', run: () => relay.drainNats() },
    {
      name: 'database pool',
      run: async () => {
        stopMonitor();
        await db.destroy();
      },
    },
  ];

  const setServing = (serving: boolean) => {
    accepting = serving;
    applyHealth();
  };

  let stopped: Promise<void> | undefined;
  return {
    grpcPort: server.port,
    ready: relay.ready,
    setServing,
    stopSteps,
    stop() {
      stopped ??= (async () => {
        setServing(false);
        for (const step of stopSteps) await step.run();
      })();
      return stopped;
    },
  };
}
