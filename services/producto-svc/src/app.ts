import {
  autenticacionDeConfig,
  runGrpcService,
  serveGrpcAfterMigrations,
  startServiceBase,
  type EventsContext,
  type GrpcServiceApp,
  type GrpcServiceStartOptions,
  type Logger,
} from '@inventario/platform';
import { descriptorSetPath, ProductoServiceService } from '@inventario/proto';
import type { Config } from './config';
import { BODEGA_ELIMINADA_CONSUMER, startBodegaEliminadaConsumer } from './events/bodega-eliminada-consumer';
import { createProductoEvents } from './events/producto-events';
import { createBodegaLookup } from './grpc/bodega-lookup';
import { createLibroDeStock } from './grpc/libro-de-stock';
import { createProductoHandlers } from './grpc/producto-handlers';
import { migrations } from './store/migrations';
import { createProductoStore } from './store/producto-store';
import { startStockAlLibro } from './stock-al-libro';

/** The gRPC service name, also the key of its grpc.health.v1 status. */
export const SERVICE_NAME = 'inventario.v1.ProductoService';

export type StartOptions = GrpcServiceStartOptions;

/** A running producto-svc. */
export type App = GrpcServiceApp;

/**
 * Starts producto-svc: the metrics server, the database pool, the store
 * (writes and their outbox events) behind the gRPC handlers, the gRPC port
 * (health NOT_SERVING, calls UNAVAILABLE until migrations are applied),
 * migrations, health SERVING while the database answers, and in the
 * background NATS, the outbox relay and the BodegaEliminada consumer that
 * unassigns products of a deleted warehouse once bodega-svc
 * (BODEGA_SVC_ADDR) confirms it is gone. Whatever a step opened is closed
 * if a later one throws. One linear start-up sequence whose order is the contract.
 */
export async function startApp(config: Config, logger: Logger, options: StartOptions = {}): Promise<App> {
  const base = await startServiceBase({
    name: 'producto-svc',
    config,
    logger,
    consumers: [BODEGA_ELIMINADA_CONSUMER],
    start: options,
    // A create sends its last statements in one query (producto-store.ts, sentenciasJuntas). All of this service's
    // SQL is built with bindings.
    multipleStatements: true,
  });
  const { guard, db, events, consumerMetrics } = base;
  const store = createProductoStore(db, {
    events: createProductoEvents({ namespace: config.eventTypeNamespace, prefix: config.natsSubjectPrefix }),
    onCommitted: events.notifyRelay,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    sentenciasJuntas: true,
  });
  const libro = await guard.step(
    () => createLibroDeStock(config.bodegaSvcAddr, config.serviceToken),
    (client) => client.close(),
  );
  // The handlers' own channel to bodega-svc (a bodegaId a write names must exist there).
  const bodegas = await guard.step(
    () => createBodegaLookup(config.bodegaSvcAddr, config.serviceToken),
    (lookup) => lookup.close(),
  );
  // Who may call (docs/contract.md §12.9): the signed principal or a service token, verified before any handler.
  const llamantes = autenticacionDeConfig(config, logger);
  const grpc = await serveGrpcAfterMigrations(base, {
    config,
    logger,
    migrations,
    grpc: {
      autenticacion: llamantes.autenticacion,
      services: [
        {
          name: SERVICE_NAME,
          definition: ProductoServiceService,
          implementation: createProductoHandlers({ store, logger, libro, bodegas }),
        },
      ],
      descriptorSetPath,
    },
  });

  // Issue 23's migration: the units of products from before the ledger, recorded there once.
  const stockAlLibro = startStockAlLibro(db, libro, logger);

  // The reconciliation's own channel to bodega-svc, closed with the consumer.
  const startConsumer = async (nats: EventsContext) => {
    const eliminadas = createBodegaLookup(config.bodegaSvcAddr, config.serviceToken);
    const consumer = await startBodegaEliminadaConsumer({
      ...nats,
      namespace: config.eventTypeNamespace,
      store,
      bodegas: eliminadas,
      logger,
      metrics: consumerMetrics,
    }).catch((err: unknown) => {
      eliminadas.close();
      throw err;
    });
    return {
      async stop() {
        await consumer.stop();
        eliminadas.close();
      },
    };
  };
  return runGrpcService(base, {
    grpc,
    config,
    logger,
    startConsumers: startConsumer,
    async close() {
      await stockAlLibro.stop();
      libro.close();
      bodegas.close();
      llamantes.close();
    },
  });
}
