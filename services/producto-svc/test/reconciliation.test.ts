import { headers as natsHeaders } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { buildEnvelope, createLogger, eventAudit, eventSubject, type DeletedEventData } from '@inventario/platform';
import { waitFor } from '@inventario/testkit';
import { startApp } from '../src/app';
import { BODEGA_ELIMINADA_CONSUMER } from '../src/events/bodega-eliminada-consumer';
import { startTestService, type TestService } from './support/test-service';

// producto-svc consumes BodegaEliminada and unassigns the products still
// pointing at the deleted warehouse (ARCHITECTURE §6).

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService('producto_reconcile');
  await svc.app.ready;
});

afterAll(async () => {
  await svc?.close();
});

function bodegaEliminada(bodegaId: number): string {
  const data: DeletedEventData = { id: bodegaId, nombre: 'Bodega Norte', ...eventAudit('DELETE', 'ana', new Date()) };
  const envelope = buildEnvelope({ namespace: 'Service', type: 'BodegaEliminada', subject: `/bodegas/${bodegaId}`, data, at: new Date() });
  return JSON.stringify(envelope);
}

/** Publishes on the BodegaEliminada subject as bodega-svc's relay would; resolves to the stream sequence. */
async function publish(payload: string, msgID?: string): Promise<number> {
  const h = natsHeaders();
  const ack = await jetstream(svc.nc).publish(eventSubject(svc.namespace.prefix, 'BodegaEliminada'), payload, {
    headers: h,
    ...(msgID ? { msgID } : {}),
  });
  return ack.seq;
}

/** Waits until the consumer has acknowledged (or terminated) every message up to `seq`. */
async function processedThrough(seq: number): Promise<void> {
  const jsm = await jetstreamManager(svc.nc);
  await waitFor(
    async () => (await jsm.consumers.info(svc.namespace.stream, BODEGA_ELIMINADA_CONSUMER)).ack_floor.stream_seq >= seq,
    `the reconciliation consumer to process stream sequence ${seq}`,
  );
}

async function productEventsSince(count: number) {
  return (await svc.settledEvents()).slice(count).filter((e) => e.body.subject.startsWith('/productos/'));
}

describe('BodegaEliminada reconciliation', () => {
  it("unassigns every product of the deleted warehouse, publishing their updates as 'system'", async () => {
    const a = (await svc.api.create({ nombre: 'Estante', precio: '80.00', cantidadEnStock: 2, bodegaId: 41 })).producto;
    const b = (await svc.api.create({ nombre: 'Cajón', precio: '20.00', cantidadEnStock: 6, bodegaId: 41 })).producto;
    const other = (await svc.api.create({ nombre: 'Banco', precio: '35.00', cantidadEnStock: 1, bodegaId: 42 })).producto;
    const before = (await svc.settledEvents()).length;

    const event = bodegaEliminada(41);
    const seq = await publish(event, (JSON.parse(event) as { id: string }).id);

    await waitFor(async () => {
      const [pa, pb] = await Promise.all([svc.api.get(a?.id ?? 0), svc.api.get(b?.id ?? 0)]);
      return pa.producto?.bodegaId === undefined && pb.producto?.bodegaId === undefined;
    }, 'both products to lose their warehouse');
    await processedThrough(seq);

    const updates = await productEventsSince(before);
    expect(updates.map((e) => [e.body.eventType, e.body.subject])).toEqual([
      ['Service.Inventario.ProductoActualizado', `/productos/${a?.id}`],
      ['Service.Inventario.ProductoActualizado', `/productos/${b?.id}`],
    ]);
    for (const update of updates) expect(update.body.data).toMatchObject({ bodegaId: null, usuario: 'system', operacion: 'UPDATE' });
    expect((await svc.api.get(other?.id ?? 0)).producto?.bodegaId).toBe(42);

    // The same event delivered again (e.g. after a lost ack) changes nothing more.
    const settled = (await svc.settledEvents()).length;
    await processedThrough(await publish(event));
    expect(await productEventsSince(settled)).toEqual([]);
  });

  it('terminates an unparsable event and goes on with the next one', async () => {
    const { producto } = await svc.api.create({ nombre: 'Palé', precio: '5.00', cantidadEnStock: 10, bodegaId: 43 });
    const garbage = [await publish('esto no es JSON'), await publish(JSON.stringify({ id: 'x', data: { id: 'cuarenta y tres' } }))];
    const seq = await publish(bodegaEliminada(43));
    await processedThrough(seq);
    expect((await svc.api.get(producto?.id ?? 0)).producto?.bodegaId).toBeUndefined();

    // Leave the stream readable (readStream parses every message) for the other tests.
    const jsm = await jetstreamManager(svc.nc);
    for (const bad of garbage) await jsm.streams.deleteMessage(svc.namespace.stream, bad);
  });

  it('shares the durable consumer with a second replica, each event handled once', async () => {
    // Same database and stream: migrations, stream and consumer set-up must all be idempotent.
    const replica = await startApp(svc.config, createLogger('producto-svc', svc.config.logLevel));
    try {
      await replica.ready;
      const ids: Array<number | undefined> = [];
      for (const nombre of ['Réplica 1', 'Réplica 2', 'Réplica 3']) {
        ids.push((await svc.api.create({ nombre, precio: '1.00', cantidadEnStock: 1, bodegaId: 44 })).producto?.id);
      }
      const before = (await svc.settledEvents()).length;
      await processedThrough(await publish(bodegaEliminada(44)));
      const updates = await productEventsSince(before);
      expect(updates.map((e) => e.body.subject).sort()).toEqual(ids.map((id) => `/productos/${id}`).sort());
    } finally {
      await replica.stop();
    }
  });
});
