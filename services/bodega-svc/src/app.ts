import {
  autenticacionDeConfig,
  runGrpcService,
  serveGrpcAfterMigrations,
  startSampler,
  startServiceBase,
  type EventsContext,
  type GrpcServiceApp,
  type GrpcServiceStartOptions,
  type Logger,
} from '@inventario/platform';
import {
  BodegaServiceService,
  descriptorSetPath,
  ExistenciaServiceService,
  ReservaServiceService,
} from '@inventario/proto';
import type { Config } from './config';
import { createBodegaEvents } from './events/bodega-events';
import { createExistenciaEvents } from './events/existencia-events';
import { PRODUCTO_CREADO_CONSUMER, startProductoCreadoConsumer } from './events/producto-creado-consumer';
import { PRODUCTO_ELIMINADO_CONSUMER, startProductoEliminadoConsumer } from './events/producto-eliminado-consumer';
import { createBodegaHandlers } from './grpc/bodega-handlers';
import { createExistenciaHandlers } from './grpc/existencia-handlers';
import { createReservaHandlers } from './grpc/reserva-handlers';
import { createReservaEvents } from './events/reserva-events';
import { createReservaStore } from './store/reserva-store';
import { RELOJ_BD } from './store/reservas-en-niveles';
import { createProductoAsignaciones } from './grpc/producto-asignaciones';
import { productosDeBodegaHandlers } from './grpc/productos-de-bodega';
import { existenciasDeProductoHandlers } from './grpc/existencias-de-producto';
import { createProductoLookup } from './grpc/producto-lookup';
import { createEliminadosEnBodega } from './eliminados-en-bodega';
import { createRetiroDeProducto } from './retiro-de-producto';
import { createBodegaStore } from './store/bodega-store';
import { createExistenciaStore } from './store/existencia-store';
import { migrations } from './store/migrations';
import { stockInicialMetrics } from './stock-inicial-metrics';
import { verificacionMetrics } from './verificacion-metrics';
import { createVerificaciones } from './verificaciones';

/** The gRPC service name, also the key of its grpc.health.v1 status. */
export const BODEGA_SERVICE_NAME = 'inventario.v1.BodegaService';
/** The stock service, served by the same process (docs/contract.md §10.5). */
export const EXISTENCIA_SERVICE_NAME = 'inventario.v1.ExistenciaService';
export const RESERVA_SERVICE_NAME = 'inventario.v1.ReservaService';

export type StartOptions = GrpcServiceStartOptions;

/** A running bodega-svc. */
export type App = GrpcServiceApp;

/**
 * Starts bodega-svc: the metrics server, the database pool, warehouses and
 * their stock (stores, whose writes commit their outbox events) behind the
 * gRPC handlers, the gRPC port (health NOT_SERVING, calls UNAVAILABLE until
 * migrations are applied), migrations, health SERVING while the database
 * answers, the periodic verification of the stock against its ledger, and
 * in the background NATS, the outbox relay and the ProductoEliminado
 * consumer that writes a deleted product's stock out once producto-svc
 * (PRODUCTO_SVC_ADDR) confirms it is gone. Whatever a step opened is closed
 * if a later one throws. One linear start-up sequence whose order is the contract.
 */
export async function startApp(config: Config, logger: Logger, options: StartOptions = {}): Promise<App> {
  const base = await startServiceBase({
    name: 'bodega-svc',
    config,
    logger,
    consumers: [PRODUCTO_ELIMINADO_CONSUMER, PRODUCTO_CREADO_CONSUMER],
    start: options,
    // Stock commands run at REPEATABLE READ (existencia-store.ts): the session's own level, so they send no SET
    // TRANSACTION.
    transactionIsolation: 'REPEATABLE READ',
    // A stock write sends its last statements in one query (existencia-store.ts, sentenciasJuntas). All of
    // this service's SQL is built with bindings.
    multipleStatements: true,
  });
  const { registry, guard, db, events, consumerMetrics } = base;
  const eventOptions = { namespace: config.eventTypeNamespace, subjectPrefix: config.natsSubjectPrefix };
  // Asked about a product id a stock write names and this service has not seen yet.
  const catalogo = await guard.step(
    () => createProductoLookup(config.productoSvcAddr, config.serviceToken),
    (lookup) => lookup.close(),
  );
  // Reads and clears a product's warehouse when the product is taken out of one.
  const asignaciones = await guard.step(
    () => createProductoAsignaciones(config.productoSvcAddr, config.serviceToken),
    (client) => client.close(),
  );
  // Every stock write respects the holds; all read the database clock (replicas agree).
  const existenciaEvents = createExistenciaEvents(eventOptions);
  const reservasEnNiveles = { reloj: RELOJ_BD, events: createReservaEvents(eventOptions), umbrales: existenciaEvents };
  const existencias = createExistenciaStore(db, {
    reservas: reservasEnNiveles,
    events: existenciaEvents,
    productos: catalogo,
    onCommitted: events.notifyRelay,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    sesionRepeatableRead: true,
    sentenciasJuntas: true,
  });
  const store = createBodegaStore(db, {
    events: createBodegaEvents(eventOptions),
    onCommitted: events.notifyRelay,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    existencias,
  });
  const reservas = createReservaStore(db, {
    ...reservasEnNiveles,
    existencias,
    limites: config.reservas,
    onCommitted: events.notifyRelay,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    sentenciasJuntas: true,
  });
  const verificaciones = createVerificaciones(
    // The levels, then the holds (docs/contract.md §13): one answer says whether both add up.
    async (signal) => {
      const niveles = await existencias.verificar(signal);
      const diferenciasReservas = await reservas.verificar();
      return { ...niveles, consistente: niveles.consistente && diferenciasReservas.length === 0, diferenciasReservas };
    },
    logger,
    verificacionMetrics(registry),
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
          name: BODEGA_SERVICE_NAME,
          definition: BodegaServiceService,
          implementation: createBodegaHandlers({
            store,
            logger,
            productos: asignaciones,
            eliminados: createEliminadosEnBodega({ store: existencias, productos: catalogo }),
          }),
        },
        {
          name: EXISTENCIA_SERVICE_NAME,
          definition: ExistenciaServiceService,
          implementation: createExistenciaHandlers({
            store: existencias,
            logger,
            verificaciones,
            retirarProducto: createRetiroDeProducto({ store: existencias, productos: asignaciones }),
            productosDeBodega: productosDeBodegaHandlers({
              bodegas: store,
              store: existencias,
              productos: asignaciones,
              logger,
            }),
            existenciasDeProducto: existenciasDeProductoHandlers({
              store: existencias,
              productos: asignaciones,
              logger,
            }),
          }),
        },
        {
          name: RESERVA_SERVICE_NAME,
          definition: ReservaServiceService,
          implementation: createReservaHandlers({ store: reservas, limites: config.reservas, logger }),
        },
      ],
      descriptorSetPath,
    },
  });

  // Periodic, off the request path; a failed run is logged and leaves the last success's timestamp to age.
  const stopVerification =
    config.existenciasVerificacionIntervalMs > 0
      ? startSampler(
          'stock verification',
          config.existenciasVerificacionIntervalMs,
          () => verificaciones.ejecutar(),
          logger,
        )
      : () => Promise.resolve();
  // Records due holds EXPIRADA with their event; each in its own guarded transaction, so replicas may sweep at once.
  const stopBarrido =
    config.reservaBarridoIntervalMs > 0
      ? startSampler(
          'reservation sweep',
          config.reservaBarridoIntervalMs,
          async () => void (await reservas.barrer(100)),
          logger,
        )
      : () => Promise.resolve();

  // Registered once: the consumers may be started again (a NATS outage).
  const stockInicial = stockInicialMetrics(registry);
  // The consumers' own channel to producto-svc, closed with them: the deleted products' write-out,
  // then the known products' projection (docs/decisions.md, "Stock has one home").
  const startConsumer = async (nats: EventsContext) => {
    const productos = createProductoLookup(config.productoSvcAddr, config.serviceToken);
    const common = {
      ...nats,
      namespace: config.eventTypeNamespace,
      store: existencias,
      productos,
      logger,
      metrics: consumerMetrics,
    };
    const eliminados = await startProductoEliminadoConsumer(common).catch((err: unknown) => {
      productos.close();
      throw err;
    });
    const creados = await startProductoCreadoConsumer({ ...common, stockInicial }).catch(async (err: unknown) => {
      await eliminados.stop();
      productos.close();
      throw err;
    });
    return {
      async stop() {
        await creados.stop();
        await eliminados.stop();
        productos.close();
      },
    };
  };
  return runGrpcService(base, {
    grpc,
    config,
    logger,
    startConsumers: startConsumer,
    async close() {
      await verificaciones.stop();
      await stopVerification();
      await stopBarrido();
      catalogo.close();
      asignaciones.close();
      llamantes.close();
    },
  });
}
