import {
  connectTestNats,
  readStream,
  startPrivateNatsServer,
  waitFor,
  type PrivateNatsServer,
} from '@inventario/testkit';
import type { NatsConnection } from '@nats-io/transport-node';
import { countPendingEvents } from '@inventario/platform';
import { startTestService, type TestService } from './support/test-service';

// A broker outage delays events but never writes (docs/contract.md §5.6): the
// service starts and commits while NATS is down; the outbox publishes the
// events once NATS is there, exactly once each.

let nats: PrivateNatsServer;
let svc: TestService;
let privateNc: NatsConnection | undefined;

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  await nats.stop();
  svc = await startTestService('producto_nats_down', { NATS_URL: nats.url });
});

afterAll(async () => {
  await privateNc?.close();
  await svc?.close();
  await nats?.dispose();
});

describe('with NATS down', () => {
  it('starts, serves writes, and publishes their events once NATS comes up', async () => {
    let eventsReady = false;
    void svc.app.ready.then(
      () => {
        eventsReady = true;
      },
      () => undefined,
    );
    const { producto } = await svc.api.create({ nombre: 'Sin broker', precio: '9.99', cantidadEnStock: 1 });
    await svc.api.update({ producto: { id: producto?.id, cantidadEnStock: 2 }, updateMask: ['cantidad_en_stock'] });
    // Both writes committed without NATS: the service never got its events
    // set up, and their events are still waiting in the outbox.
    expect(eventsReady).toBe(false);
    expect(await countPendingEvents(svc.db)).toBe(2);

    await nats.start();
    await svc.app.ready;
    privateNc = await connectTestNats(nats.url);
    const nc = privateNc;
    const events = await waitFor(async () => {
      const stored = await readStream(nc, svc.namespace.stream);
      return stored.length >= 2 && stored;
    }, 'the events committed during the outage');
    expect(events.map((e) => [e.body.eventType, e.body.subject])).toEqual([
      ['Service.Inventario.ProductoCreado', `/productos/${producto?.id}`],
      ['Service.Inventario.ProductoActualizado', `/productos/${producto?.id}`],
    ]);
    // Once the outbox is empty, the stream still holds each event once.
    await waitFor(async () => (await countPendingEvents(svc.db)) === 0, 'the outbox to drain');
    expect(await readStream(nc, svc.namespace.stream)).toHaveLength(2);
  });
});
