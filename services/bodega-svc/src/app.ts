import { startService, type Logger, type ServiceApp } from '@inventario/platform';
import { BodegaServiceService, descriptorSetPath } from '@inventario/proto';
import type { Config } from './config';
import { createBodegaEvents } from './events/bodega-events';
import { createBodegaHandlers } from './grpc/bodega-handlers';
import { createBodegaStore } from './store/bodega-store';
import { migrations } from './store/migrations';

/** The gRPC service name, also the key of its grpc.health.v1 status. */
export const BODEGA_SERVICE_NAME = 'inventario.v1.BodegaService';

/** A running bodega-svc. */
export type App = ServiceApp;

/**
 * Wires bodega-svc: the store (writes and their outbox events) and the gRPC
 * handlers. The shared lifecycle is platform's startService.
 */
export function startApp(config: Config, logger: Logger, signal?: AbortSignal): Promise<App> {
  return startService({
    signal,
    name: 'bodega-svc',
    config,
    logger,
    migrations,
    descriptorSetPath,
    wire({ db, notifyRelay }) {
      const store = createBodegaStore(db, {
        events: createBodegaEvents({ namespace: config.eventTypeNamespace, subjectPrefix: config.natsSubjectPrefix }),
        onCommitted: notifyRelay,
        idempotencyTtlSeconds: config.idempotencyTtlSeconds,
      });
      return {
        grpcServices: [
          { name: BODEGA_SERVICE_NAME, definition: BodegaServiceService, implementation: createBodegaHandlers({ store, logger }) },
        ],
      };
    },
  });
}
