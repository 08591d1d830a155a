/**
 * Component test of the outbox guarantee (docs/contract.md §5.6): with NATS
 * down the service still serves writes, and once NATS is reachable each
 * committed write's event reaches the stream exactly once.
 */
import { startPrivateNatsServer, type PrivateNatsServer } from '@inventario/testkit';
import { startTestService, type TestService } from './support/test-service';

let nats: PrivateNatsServer;
let svc: TestService;

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  await nats.stop();
  svc = await startTestService('bodega_outage', { natsUrl: nats.url, awaitEvents: false });
});

afterAll(async () => {
  await svc?.close();
  await nats?.dispose();
});

describe('with NATS down', () => {
  it('serves writes, then publishes each of their events once NATS is back', async () => {
    const { bodega } = await svc.rpc.createBodega({ nombre: 'Sin NATS', capacidad: 10 });
    if (!bodega) throw new Error('CreateBodega answered without a bodega');
    await svc.rpc.updateBodega({
      bodega: { version: 0, id: bodega.id, nombre: '', capacidad: 20 },
      updateMask: ['capacidad'],
    });
    await svc.rpc.deleteBodega({ id: bodega.id });
    expect(await svc.outboxCount()).toBe(3);

    await nats.start();
    await svc.app.ready;
    const events = await svc.publishedEvents();

    expect(events.map((e) => e.body.eventType)).toEqual([
      'Service.Inventario.BodegaCreada',
      'Service.Inventario.BodegaActualizada',
      'Service.Inventario.BodegaEliminada',
    ]);
    expect(new Set(events.map((e) => e.body.id)).size).toBe(3);
    expect(events.every((e) => e.headers['Nats-Msg-Id'] === e.body.id)).toBe(true);
  });
});
