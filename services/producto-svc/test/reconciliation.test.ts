import { status } from '@grpc/grpc-js';
import { headers as natsHeaders, nanos } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerInfo } from '@nats-io/jetstream';
import {
  buildEnvelope,
  createLogger,
  eventAudit,
  eventSubject,
  fieldViolationsOf,
  type DeletedEventData,
} from '@inventario/platform';
import { TEST_MYSQL_SERVER, waitFor } from '@inventario/testkit';
import { startApp } from '../src/app';
import { ACK_WAIT_MS, BODEGA_ELIMINADA_CONSUMER } from '../src/events/bodega-eliminada-consumer';
import { rejectionOf } from '@inventario/testkit/grpc';
import { startTcpProxy, type TcpProxy } from '@inventario/testkit';
import { startBodegaSvcProcess, type BodegaSvcUnderTest } from '@inventario/testkit/grpc';
import { startTestService, type TestService } from './support/test-service';

// producto-svc consumes BodegaEliminada and unassigns the products still
// pointing at the deleted warehouse (docs/contract.md §7.6). The service
// reaches MariaDB through a TCP proxy the test can cut: a real database outage.

let proxy: TcpProxy;
let svc: TestService;
// The real bodega-svc the reconciliation asks (GetBodegaEliminada) before
// acting, and the one producto-svc asks whether a product's warehouse exists
// (GetBodega): the products of these tests name warehouses created there, then
// deleted there (deleteAtBodegaSvc) before their event is published, except the
// live one and the one not created yet of the forged-event tests. The built
// service, as a process (testkit).
let bodegaSvc: BodegaSvcUnderTest;

beforeAll(async () => {
  const mysql = new URL(TEST_MYSQL_SERVER);
  proxy = await startTcpProxy(mysql.hostname, Number(mysql.port || 3306));
  bodegaSvc = await startBodegaSvcProcess('producto_reconcile_b');
  svc = await startTestService('producto_reconcile', (database) => {
    const url = new URL(database.url);
    url.host = `127.0.0.1:${proxy.port}`;
    return { DATABASE_URL: url.toString(), BODEGA_SVC_ADDR: bodegaSvc.address };
  });
  await svc.app.ready;
});

afterAll(async () => {
  await proxy?.restore().catch(() => undefined);
  await svc?.close();
  await bodegaSvc?.close();
  await proxy?.close();
});

/** A BodegaEliminada as bodega-svc publishes it; `overrides` forge parts of the envelope. */
function bodegaEliminada(bodegaId: number, overrides: Record<string, unknown> = {}): string {
  const data: DeletedEventData = {
    id: bodegaId,
    nombre: 'Bodega Norte',
    ...eventAudit('DELETE', 'ana', new Date()),
    version: 1,
  };
  const envelope = buildEnvelope({
    namespace: 'Service',
    type: 'BodegaEliminada',
    source: 'bodega-svc',
    subject: `/bodegas/${bodegaId}`,
    data,
    at: new Date(),
  });
  return JSON.stringify({ ...envelope, ...overrides });
}

/** A warehouse bodega-svc has now: producto-svc lets products name it (it asks bodega-svc). */
async function liveBodega(): Promise<number> {
  const { bodega } = await bodegaSvc.rpc.createBodega({
    nombre: `Bodega ${Date.now()} ${Math.random()}`,
    capacidad: 100,
  });
  return bodega!.id;
}

/** bodega-svc deletes the warehouse, writing out the units its products' creates put there, as a forced delete does. */
async function deleteAtBodegaSvc(id: number): Promise<void> {
  while ((await bodegaSvc.rpc.deleteBodega({ id, retirarExistencias: true })).pendiente);
}

/** A warehouse bodega-svc created and deleted: its id, which bodega-svc confirms deleted. */
async function deletedBodega(): Promise<number> {
  const id = await liveBodega();
  await deleteAtBodegaSvc(id);
  return id;
}

/** Publishes on the BodegaEliminada subject as bodega-svc's relay would (with its `headers`, e.g. traceparent); resolves to the stream sequence. */
async function publish(payload: string, msgID?: string, headers: Record<string, string> = {}): Promise<number> {
  const h = natsHeaders();
  for (const [name, value] of Object.entries(headers)) h.set(name, value);
  const ack = await jetstream(svc.nc).publish(eventSubject(svc.namespace.prefix, 'BodegaEliminada'), payload, {
    headers: h,
    ...(msgID ? { msgID } : {}),
  });
  return ack.seq;
}

async function consumerInfo(): Promise<ConsumerInfo> {
  return (await jetstreamManager(svc.nc)).consumers.info(svc.namespace.stream, BODEGA_ELIMINADA_CONSUMER);
}

/** Waits until the consumer has acknowledged (or terminated) every message up to `seq`. */
async function processedThrough(seq: number, timeoutMs?: number): Promise<void> {
  await waitFor(
    async () => (await consumerInfo()).ack_floor.stream_seq >= seq,
    `the reconciliation consumer to process stream sequence ${seq}`,
    timeoutMs,
  );
}

/** bodega_id of a product, read directly (not through the service, which may have no database). */
async function storedBodegaId(id: number): Promise<number | null | undefined> {
  const row = await svc.db<{ id: number; bodega_id: number | null }>('productos').where({ id }).first('bodega_id');
  return row?.bodega_id;
}

async function productEventsSince(count: number) {
  return (await svc.settledEvents()).slice(count).filter((e) => e.body.subject.startsWith('/productos/'));
}

describe('BodegaEliminada reconciliation', () => {
  it("unassigns every product of the deleted warehouse, publishing their updates as 'system'", async () => {
    const gone = await liveBodega();
    const otra = await liveBodega();
    const a = (await svc.api.create({ nombre: 'Estante', precio: '80.00', cantidadEnStock: 2, bodegaId: gone }))
      .producto;
    const b = (await svc.api.create({ nombre: 'Cajón', precio: '20.00', cantidadEnStock: 6, bodegaId: gone })).producto;
    const other = (await svc.api.create({ nombre: 'Banco', precio: '35.00', cantidadEnStock: 1, bodegaId: otra }))
      .producto;
    await deleteAtBodegaSvc(gone);
    const before = (await svc.settledEvents()).length;

    const event = bodegaEliminada(gone);
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
    for (const update of updates) {
      expect(update.body.data).toMatchObject({
        bodegaId: null,
        usuario: 'system',
        operacion: 'UPDATE',
        camposModificados: ['bodegaId'],
      });
    }
    expect((await svc.api.get(other?.id ?? 0)).producto?.bodegaId).toBe(otra);

    // The same event delivered again (e.g. after a lost ack) changes nothing more.
    const settled = (await svc.settledEvents()).length;
    await processedThrough(await publish(event));
    expect(await productEventsSince(settled)).toEqual([]);
  });

  it('remembers the deleted warehouse: a later create or update naming it is refused on bodegaId, and nothing is written', async () => {
    const [mesa, otra] = [await liveBodega(), await liveBodega()];
    const p = (await svc.api.create({ nombre: 'Mesa', precio: '1.00', cantidadEnStock: 1, bodegaId: mesa })).producto;
    const gone = await deletedBodega();
    await processedThrough(await publish(bodegaEliminada(gone)));
    const before = (await svc.settledEvents()).length;

    const created = await rejectionOf(
      svc.api.create({ nombre: 'Tarde', precio: '1.00', cantidadEnStock: 1, bodegaId: gone }),
    );
    expect(created.code).toBe(status.INVALID_ARGUMENT);
    expect(fieldViolationsOf(created)).toEqual([{ campo: 'bodegaId', mensaje: `no existe la bodega ${gone}` }]);
    const moved = await rejectionOf(
      svc.api.update({ producto: { id: p?.id, bodegaId: gone }, updateMask: ['bodega_id'] }),
    );
    expect(fieldViolationsOf(moved)).toEqual([{ campo: 'bodegaId', mensaje: `no existe la bodega ${gone}` }]);

    expect(await storedBodegaId(p?.id ?? 0)).toBe(mesa);
    expect(await svc.db('productos').where({ nombre: 'Tarde' }).first()).toBeUndefined();
    expect(await productEventsSince(before)).toEqual([]);
    // Other warehouses are unaffected.
    expect(
      (await svc.api.update({ producto: { id: p?.id, bodegaId: otra }, updateMask: ['bodega_id'] })).producto?.bodegaId,
    ).toBe(otra);
  });

  it('a forged deletion of a live warehouse changes nothing: bodega-svc still has it', async () => {
    const live = await bodegaSvc.rpc.createBodega({ nombre: `Viva ${Date.now()}`, capacidad: 10 });
    const bodegaId = live.bodega!.id;
    const p = (await svc.api.create({ nombre: 'Protegido', precio: '3.00', cantidadEnStock: 1, bodegaId })).producto;
    const before = (await svc.settledEvents()).length;

    // Well formed in every respect (eventType, subject, source): only bodega-svc's answer tells it is false.
    await processedThrough(await publish(bodegaEliminada(bodegaId)));
    expect(await storedBodegaId(p?.id ?? 0)).toBe(bodegaId);
    expect(await productEventsSince(before)).toEqual([]);
    // Nor is the warehouse remembered as deleted: writes naming it still work.
    expect(
      (await svc.api.create({ nombre: 'Después', precio: '1.00', cantidadEnStock: 1, bodegaId })).producto?.bodegaId,
    ).toBe(bodegaId);
  });

  it('a forged deletion of the next warehouse, not created yet, changes nothing: once bodega-svc creates it, it takes products', async () => {
    const { bodega } = await bodegaSvc.rpc.createBodega({ nombre: `Última ${Date.now()}`, capacidad: 10 });
    const next = bodega!.id + 1;
    // Well formed in every respect; bodega-svc has no such warehouse, but it never deleted one.
    await processedThrough(await publish(bodegaEliminada(next)));
    expect(await svc.db('bodegas_eliminadas').where({ bodega_id: next }).first()).toBeUndefined();

    const created = await bodegaSvc.rpc.createBodega({ nombre: `Siguiente ${Date.now()}`, capacidad: 10 });
    expect(created.bodega?.id).toBe(next);
    expect(
      (await svc.api.create({ nombre: 'En la nueva', precio: '1.00', cantidadEnStock: 1, bodegaId: next })).producto
        ?.bodegaId,
    ).toBe(next);
  });

  it.each([
    ['claims another producer', { source: 'producto-svc' }],
    ['is of another type', { eventType: 'Service.Inventario.ProductoEliminado' }],
    ['names another record', { subject: '/productos/51' }],
  ])('an event that %s is terminated without unassigning anything', async (_case, forged) => {
    const bodegaId = await liveBodega();
    const p = (await svc.api.create({ nombre: 'Intacto', precio: '2.00', cantidadEnStock: 1, bodegaId })).producto;
    await deleteAtBodegaSvc(bodegaId);
    await processedThrough(await publish(bodegaEliminada(bodegaId, forged)));
    expect(await storedBodegaId(p?.id ?? 0)).toBe(bodegaId);
    // A genuine one then does act (bodega-svc deleted the warehouse).
    await processedThrough(await publish(bodegaEliminada(bodegaId)));
    expect(await storedBodegaId(p?.id ?? 0)).toBeNull();
  });

  it("continues the deletion's trace with tracing off: the unassignments carry its traceparent and tracestate", async () => {
    // No tracer provider in this test process: tracing is off, as without OTEL_EXPORTER_OTLP_ENDPOINT.
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const tracestate = 'vendor=abc123';
    const gone = await liveBodega();
    const { producto } = await svc.api.create({
      nombre: 'Trazado',
      precio: '9.00',
      cantidadEnStock: 1,
      bodegaId: gone,
    });
    await deleteAtBodegaSvc(gone);
    const before = (await svc.settledEvents()).length;

    await processedThrough(await publish(bodegaEliminada(gone), undefined, { traceparent, tracestate }));

    const updates = await productEventsSince(before);
    expect(updates.map((e) => e.body.subject)).toEqual([`/productos/${producto?.id}`]);
    expect(updates[0]?.headers.traceparent).toBe(traceparent);
    expect(updates[0]?.headers.tracestate).toBe(tracestate);
  });

  it('terminates an unparsable event and goes on with the next one', async () => {
    const gone = await liveBodega();
    const { producto } = await svc.api.create({ nombre: 'Palé', precio: '5.00', cantidadEnStock: 10, bodegaId: gone });
    await deleteAtBodegaSvc(gone);
    const garbage = [
      await publish('esto no es JSON'),
      await publish(JSON.stringify({ id: 'x', data: { id: 'cuarenta y tres' } })),
    ];
    const seq = await publish(bodegaEliminada(gone));
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
      const gone = await liveBodega();
      const ids: Array<number | undefined> = [];
      for (const nombre of ['Réplica 1', 'Réplica 2', 'Réplica 3']) {
        ids.push((await svc.api.create({ nombre, precio: '1.00', cantidadEnStock: 1, bodegaId: gone })).producto?.id);
      }
      await deleteAtBodegaSvc(gone);
      const before = (await svc.settledEvents()).length;
      await processedThrough(await publish(bodegaEliminada(gone)));
      const updates = await productEventsSince(before);
      expect(updates.map((e) => e.body.subject).sort()).toEqual(ids.map((id) => `/productos/${id}`).sort());
    } finally {
      await replica.stop();
    }
  });
});

describe('BodegaEliminada consumer on the server', () => {
  it('is a durable explicit-ack consumer of the BodegaEliminada subject with no delivery limit and a 90 s ack_wait', async () => {
    const { config } = await consumerInfo();
    expect(config).toMatchObject({
      durable_name: BODEGA_ELIMINADA_CONSUMER,
      filter_subject: eventSubject(svc.namespace.prefix, 'BodegaEliminada'),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      max_deliver: -1,
      ack_wait: nanos(ACK_WAIT_MS),
    });
  });

  it("gives an event longer than the database's row-lock wait before redelivering it elsewhere", async () => {
    const [rows] = (await svc.db.raw('SELECT @@innodb_lock_wait_timeout AS seconds')) as [
      Array<{ seconds: number | string }>,
    ];
    const lockWaitMs = Number(rows[0]?.seconds) * 1000;
    expect(lockWaitMs).toBeGreaterThan(0);
    expect((await consumerInfo()).config.ack_wait).toBeGreaterThan(nanos(lockWaitMs));
  });

  it('brings a consumer left by an older release (max_deliver 10, ack_wait 30 s) to the current settings on start', async () => {
    const jsm = await jetstreamManager(svc.nc);
    await jsm.consumers.update(svc.namespace.stream, BODEGA_ELIMINADA_CONSUMER, {
      max_deliver: 10,
      ack_wait: nanos(30_000),
    });
    expect((await consumerInfo()).config).toMatchObject({ max_deliver: 10, ack_wait: nanos(30_000) });

    const replica = await startApp(svc.config, createLogger('producto-svc', svc.config.logLevel));
    try {
      await replica.ready;
      expect((await consumerInfo()).config).toMatchObject({ max_deliver: -1, ack_wait: nanos(ACK_WAIT_MS) });
    } finally {
      await replica.stop();
    }
  });
});

describe('BodegaEliminada reconciliation during a database outage', () => {
  it('redelivers the event while MariaDB is unreachable and unassigns the products once it is back', async () => {
    const gone = await liveBodega();
    const { producto } = await svc.api.create({
      nombre: 'Durante el corte',
      precio: '3.00',
      cantidadEnStock: 4,
      bodegaId: gone,
    });
    await deleteAtBodegaSvc(gone);
    const id = producto?.id ?? 0;
    const deliveredBefore = (await consumerInfo()).delivered.consumer_seq;

    await proxy.cut(); // restored below, or by afterAll should this test fail first
    const seq = await publish(bodegaEliminada(gone));
    try {
      // The first delivery failed and was nak'd; JetStream delivered it again (and again).
      await waitFor(
        async () => (await consumerInfo()).num_redelivered >= 1,
        'the event to be redelivered after a failed attempt',
      );
      expect((await consumerInfo()).ack_floor.stream_seq).toBeLessThan(seq);
      expect(await storedBodegaId(id)).toBe(gone);
    } finally {
      await proxy.restore();
    }

    // Redeliveries back off (1 s, 2 s, 4 s ...): allow for the next one.
    await processedThrough(seq, 20_000);
    expect(await storedBodegaId(id)).toBeNull();
    expect((await svc.api.get(id)).producto?.bodegaId).toBeUndefined();
    expect((await consumerInfo()).delivered.consumer_seq - deliveredBefore).toBeGreaterThanOrEqual(2);
  });
});
