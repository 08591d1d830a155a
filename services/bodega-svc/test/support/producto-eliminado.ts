/**
 * What bodega-svc does when it receives ProductoEliminado, called directly:
 * the stock store's write-out on the service's own database, its events
 * going to the service's outbox under the service's subjects (the relay
 * publishes them). Tests of the stock rules use it in place of publishing
 * the event, so the rule is exercised without the consumer's delivery.
 */
import { TEST_NATS_URL } from '@inventario/testkit';
import { loadConfig } from '../../src/config';
import { createExistenciaEvents } from '../../src/events/existencia-events';
import { createExistenciaStore } from '../../src/store/existencia-store';
import type { TestService } from './test-service';

/** `retirarProductoEliminado` of a store on `svc`'s database. */
export function productoEliminadoDe(svc: TestService): (productoId: number) => Promise<void> {
  // The service's own settings, as startTestService gives them (the URLs are not used here).
  const config = loadConfig({
    DATABASE_URL: 'mysql://root@127.0.0.1:3306/unused',
    NATS_URL: TEST_NATS_URL,
    NATS_STREAM: svc.ns.stream,
    NATS_SUBJECT_PREFIX: svc.ns.prefix,
  });
  const store = createExistenciaStore(svc.db, {
    events: createExistenciaEvents({ namespace: config.eventTypeNamespace, subjectPrefix: config.natsSubjectPrefix }),
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    // The write-out asks producto-svc nothing about products.
    productos: { isLive: () => Promise.reject(new Error('not asked by the write-out')) },
  });
  return (productoId) => store.retirarProductoEliminado(productoId);
}
