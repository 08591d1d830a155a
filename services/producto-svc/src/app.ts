import { createJetStreamConsumerMetrics, startService, type Logger, type ServiceApp } from '@inventario/platform';
import { descriptorSetPath, ProductoServiceService } from '@inventario/proto';
import type { Config } from './config';
import { BODEGA_ELIMINADA_CONSUMER, startBodegaEliminadaConsumer } from './events/bodega-eliminada-consumer';
import { createProductoEvents } from './events/producto-events';
import { createBodegaLookup } from './grpc/bodega-lookup';
import { createProductoHandlers } from './grpc/producto-handlers';
import { migrations } from './store/migrations';
import { createProductoStore } from './store/producto-store';

/** The gRPC service name, also the key of its grpc.health.v1 status. */
export const SERVICE_NAME = 'inventario.v1.ProductoService';

/** A running producto-svc. */
export type App = ServiceApp;

/**
 * Wires producto-svc: the store (writes and their outbox events), the gRPC
 * handlers, and the BodegaEliminada consumer that unassigns products of a
 * deleted warehouse once bodega-svc (BODEGA_SVC_ADDR) confirms it is gone. The shared lifecycle is platform's startService.
 */
export function startApp(config: Config, logger: Logger, signal?: AbortSignal): Promise<App> {
  return startService({
    signal,
    name: 'producto-svc',
    config,
    logger,
    migrations,
    descriptorSetPath,
    wire({ db, notifyRelay, registry }) {
      const consumerMetrics = createJetStreamConsumerMetrics(registry, [BODEGA_ELIMINADA_CONSUMER]);
      const store = createProductoStore(db, {
        events: createProductoEvents({ namespace: config.eventTypeNamespace, prefix: config.natsSubjectPrefix }),
        onCommitted: notifyRelay,
        idempotencyTtlSeconds: config.idempotencyTtlSeconds,
      });
      return {
        grpcServices: [{ name: SERVICE_NAME, definition: ProductoServiceService, implementation: createProductoHandlers({ store, logger }) }],
        async startConsumers({ nc, stream, prefix }) {
          // The reconciliation's own channel to bodega-svc, closed with the consumer.
          const bodegas = createBodegaLookup(config.bodegaSvcAddr);
          const consumer = await startBodegaEliminadaConsumer({
            nc,
            stream,
            prefix,
            namespace: config.eventTypeNamespace,
            store,
            bodegas,
            logger,
            metrics: consumerMetrics,
          }).catch((err: unknown) => {
            bodegas.close();
            throw err;
          });
          return {
            async stop() {
              await consumer.stop();
              bodegas.close();
            },
          };
        },
      };
    },
  });
}
