import { createJetStreamConsumerMetrics, startSampler, startService, type Logger, type ServiceApp } from '@inventario/platform';
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

/** A running bodega-svc. */
export type App = ServiceApp;

/**
 * Wires bodega-svc: warehouses and their stock (stores, whose writes commit
 * their outbox events), the gRPC handlers, the periodic verification of the
 * stock against its ledger, and the ProductoEliminado consumer that writes a
 * deleted product's stock out once producto-svc (PRODUCTO_SVC_ADDR) confirms
 * it is gone. The shared lifecycle is platform's startService.
 */
export function startApp(config: Config, logger: Logger, signal?: AbortSignal): Promise<App> {
  return startService({
    signal,
    name: 'bodega-svc',
    config,
    logger,
    migrations,
    descriptorSetPath,
    wire({ db, notifyRelay, registry }) {
      const consumerMetrics = createJetStreamConsumerMetrics(registry, [PRODUCTO_ELIMINADO_CONSUMER]);
      const eventOptions = { namespace: config.eventTypeNamespace, subjectPrefix: config.natsSubjectPrefix };
      const existencias = createExistenciaStore(db, {
        events: createExistenciaEvents(eventOptions),
        onCommitted: notifyRelay,
        idempotencyTtlSeconds: config.idempotencyTtlSeconds,
      });
      const store = createBodegaStore(db, {
        events: createBodegaEvents(eventOptions),
        onCommitted: notifyRelay,
        idempotencyTtlSeconds: config.idempotencyTtlSeconds,
        existencias,
      });
      const diferencias = new Gauge({
        name: 'inventario_existencias_diferencias',
        help: 'Stock levels and occupancies that differ from the ledger, at the last verification (0: consistent).',
        registers: [registry],
      });
      const onVerified = (n: number) => diferencias.set(n);
      const background =
        config.existenciasVerificacionIntervalMs > 0
          ? [
              {
                stop: startSampler(
                  'stock verification',
                  config.existenciasVerificacionIntervalMs,
                  async () => {
                    const v = await existencias.verificar();
                    onVerified(v.diferencias.length);
                    if (!v.consistente) logger.error({ diferencias: v.diferencias.slice(0, 20) }, 'stock differs from its ledger');
                  },
                  logger,
                ),
              },
            ]
          : [];
      return {
        grpcServices: [
          { name: BODEGA_SERVICE_NAME, definition: BodegaServiceService, implementation: createBodegaHandlers({ store, logger }) },
          {
            name: EXISTENCIA_SERVICE_NAME,
            definition: ExistenciaServiceService,
            implementation: createExistenciaHandlers({ store: existencias, logger, onVerified }),
          },
        ],
        background,
        async startConsumers({ nc, stream, prefix }) {
          // The reconciliation's own channel to producto-svc, closed with the consumer.
          const productos = createProductoLookup(config.productoSvcAddr);
          const consumer = await startProductoEliminadoConsumer({
            nc,
            stream,
            prefix,
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
        },
      };
    },
  });
}
