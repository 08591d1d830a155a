/**
 * bodega-svc's ProductoEliminado consumer (contract §7.6, §10.1) against the
 * real NATS and a real producto-svc in-process, publishing on the same
 * stream: a product deleted there reaches the consumer as producto-svc
 * publishes it, and the consumer asks that producto-svc (GetProducto) before
 * acting. The store is a recording one: what is checked here is when the
 * consumer calls it, acks, naks or terminates.
 */
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerInfo } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import {
  buildEnvelope,
  createJetStreamConsumerMetrics,
  createLogger,
  createServiceRegistry,
  eventAudit,
  eventSubject,
  RECONCILIATION_ACK_WAIT_MS,
  type DeletedEventData,
  type NatsConnection,
} from '@inventario/platform';
import {
  connectTestNats,
  deleteStream,
  readStream,
  testEventNamespace,
  waitFor,
  waitForOutboxesDrained,
  type EventNamespace,
} from '@inventario/testkit';
import { startProductoSvcProcess, type ProductoSvcUnderTest } from '@inventario/testkit/grpc';
import {
  PRODUCTO_ELIMINADO_CONSUMER,
  startProductoEliminadoConsumer,
  type ProductoEliminadoConsumer,
} from '../src/events/producto-eliminado-consumer';
import { createProductoLookup, type ProductoLookup } from '../src/grpc/producto-lookup';
import { startTcpProxy, type TcpProxy } from '@inventario/testkit';

let ns: EventNamespace;
let nc: NatsConnection;
let productoSvc: ProductoSvcUnderTest;
let productos: ProductoLookup;
/** Between the consumer and producto-svc, so a test can make producto-svc unreachable. */
let proxy: TcpProxy;
let consumer: ProductoEliminadoConsumer;
const registry = createServiceRegistry('bodega-svc');
const metrics = createJetStreamConsumerMetrics(registry, [PRODUCTO_ELIMINADO_CONSUMER]);

/** How many deliveries of the consumer's this process saw with a delivery count above 1. */
async function redeliveries(): Promise<number> {
  return (
    (await metrics.redeliveries.get()).values.find((v) => v.labels.consumer === PRODUCTO_ELIMINADO_CONSUMER)?.value ?? 0
  );
}

/** The products the store was asked to write out, one entry per call; `failures` calls throw first. */
const store = {
  calls: [] as number[],
  failures: 0,
  retirarProductoEliminado(productoId: number): Promise<void> {
    this.calls.push(productoId);
    if (this.failures === 0) return Promise.resolve();
    this.failures -= 1;
    return Promise.reject(new Error('database unreachable'));
  },
};

beforeAll(async () => {
  ns = testEventNamespace();
  // producto-svc publishes on this test's stream, where the consumer reads.
  productoSvc = await startProductoSvcProcess('bodega_pe_producto', { namespace: ns });
  nc = await connectTestNats();
  proxy = await startTcpProxy('127.0.0.1', productoSvc.grpcPort);
  productos = createProductoLookup(`127.0.0.1:${proxy.port}`);
  consumer = await startProductoEliminadoConsumer({
    nc,
    stream: ns.stream,
    prefix: ns.prefix,
    namespace: 'Service',
    store,
    productos,
    logger: createLogger('bodega-svc', process.env.TEST_LOG_LEVEL ?? 'silent'),
    metrics,
  });
});

afterAll(async () => {
  await consumer?.stop();
  productos?.close();
  await proxy?.close();
  await productoSvc?.close();
  if (nc) {
    await deleteStream(nc, ns.stream);
    await nc.close();
  }
});

beforeEach(() => {
  store.calls = [];
  store.failures = 0;
});

/** A ProductoEliminado as producto-svc publishes it; `overrides` forge parts of the envelope. */
function productoEliminado(productoId: number, overrides: Record<string, unknown> = {}): string {
  const data: DeletedEventData = {
    id: productoId,
    nombre: 'Tornillo',
    ...eventAudit('DELETE', 'ana', new Date()),
    version: 1,
  };
  const envelope = buildEnvelope({
    namespace: 'Service',
    type: 'ProductoEliminado',
    source: 'producto-svc',
    subject: `/productos/${productoId}`,
    data,
    at: new Date(),
  });
  return JSON.stringify({ ...envelope, ...overrides });
}

/** Publishes on the ProductoEliminado subject; resolves to the stream sequence. */
async function publish(payload: string): Promise<number> {
  return (await jetstream(nc).publish(eventSubject(ns.prefix, 'ProductoEliminado'), payload)).seq;
}

async function consumerInfo(): Promise<ConsumerInfo> {
  return (await jetstreamManager(nc)).consumers.info(ns.stream, PRODUCTO_ELIMINADO_CONSUMER);
}

/** Waits until the consumer has acknowledged (or terminated) every message up to `seq`. */
async function processedThrough(seq: number, timeoutMs?: number): Promise<void> {
  await waitFor(
    async () => (await consumerInfo()).ack_floor.stream_seq >= seq,
    `the consumer to process stream sequence ${seq}`,
    timeoutMs,
  );
}

/** Creates a product in producto-svc; resolves to its id. */
async function createProducto(nombre: string): Promise<number> {
  const { producto } = await productoSvc.api.create({ nombre, precio: '1.00', cantidadEnStock: 1 });
  if (!producto) throw new Error('CreateProducto answered without a producto');
  return producto.id;
}

/** Deletes a product in producto-svc; resolves to the stream sequence of its ProductoEliminado. */
async function deleteProducto(id: number): Promise<number> {
  await productoSvc.api.delete(id);
  await waitForOutboxesDrained([productoSvc.db], "producto-svc's relay to publish the deletion");
  const deleted = (await readStream(nc, ns.stream)).find(
    (e) => e.body.eventType === 'Service.Inventario.ProductoEliminado' && e.body.subject === `/productos/${id}`,
  );
  if (!deleted) throw new Error(`producto-svc published no ProductoEliminado for product ${id}`);
  return deleted.seq;
}

describe('ProductoEliminado reconciliation', () => {
  it('writes out the stock of a product producto-svc deleted: the store is called with its id and the event acked', async () => {
    const id = await createProducto('Borrado');
    await processedThrough(await deleteProducto(id));
    expect(store.calls).toEqual([id]);
    expect((await consumerInfo()).num_ack_pending).toBe(0);
  });

  it('calls the store once per delivery of the same event, acking each: a replay relies on the store being idempotent', async () => {
    const id = await createProducto('Repetido');
    const seq = await deleteProducto(id);
    await processedThrough(seq);
    // The same envelope again, as after a relay that died before marking it published (past the duplicate window).
    const stored = await (await jetstreamManager(nc)).streams.getMessage(ns.stream, { seq });
    if (!stored) throw new Error(`stream message ${seq} is gone`);
    await processedThrough(await publish(stored.string()));
    expect(store.calls).toEqual([id, id]);
    const info = await consumerInfo();
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_redelivered).toBe(0);
  });

  it('naks an event the store failed on and calls it again on the redelivery, with no delivery limit to give up at', async () => {
    const id = await createProducto('Reintentado');
    store.failures = 1;
    const before = await redeliveries();
    // The first delivery fails and is nak'd with a 1 s delay.
    await processedThrough(await deleteProducto(id), 15_000);
    expect(store.calls).toEqual([id, id]);
    expect((await redeliveries()) - before).toBe(1);
  });

  it('naks while producto-svc cannot answer, never taking that for "deleted", and acts once it confirms the deletion', async () => {
    const id = await createProducto('Sin respuesta');
    await proxy.cut(); // restored below, or closed by afterAll should this test fail first
    try {
      const seq = await deleteProducto(id);
      await waitFor(
        async () => (await consumerInfo()).num_redelivered >= 1,
        'the event to be redelivered after producto-svc did not answer',
      );
      expect((await consumerInfo()).ack_floor.stream_seq).toBeLessThan(seq);
      expect(store.calls).toEqual([]);
      await proxy.restore();
      // Redeliveries back off (1 s, 2 s, 4 s ...) and the channel reconnects: allow for both.
      await processedThrough(seq, 30_000);
    } finally {
      await proxy.restore().catch(() => undefined);
    }
    expect(store.calls).toEqual([id]);
  });

  it('refuses a well-formed event for a product producto-svc still has (forged or misrouted): the store is never called', async () => {
    const id = await createProducto('Vivo');
    await processedThrough(await publish(productoEliminado(id)));
    expect(store.calls).toEqual([]);
    expect((await productoSvc.api.get(id)).producto?.id).toBe(id);
  });

  it.each([
    ['claims another producer', { source: 'bodega-svc' }],
    ['is of another type', { eventType: 'Service.Inventario.BodegaEliminada' }],
    ['names a warehouse', (id: number) => ({ subject: `/bodegas/${id}` })],
    ['names another product', (id: number) => ({ subject: `/productos/${id + 1000}` })],
    ['has another namespace', { eventType: 'Otro.Inventario.ProductoEliminado' }],
  ])('terminates an event that %s without calling the store, though the product is gone', async (_case, forge) => {
    const id = await createProducto('Falsificado');
    // producto-svc's own event for the delete goes first; what follows is on top of it.
    await processedThrough(await deleteProducto(id));
    store.calls = [];
    const forged = typeof forge === 'function' ? forge(id) : forge;
    await processedThrough(await publish(productoEliminado(id, forged)));
    expect(store.calls).toEqual([]);
    // The genuine event for the same product does act: only the envelope stopped the forged one.
    await processedThrough(await publish(productoEliminado(id)));
    expect(store.calls).toEqual([id]);
  });

  it('terminates an unparsable event and goes on with the next one', async () => {
    const id = await createProducto('Siguiente');
    await processedThrough(await deleteProducto(id));
    store.calls = [];
    const garbage = [
      await publish('esto no es JSON'),
      await publish(JSON.stringify({ id: 'x', data: { id: 'cinco' } })),
    ];
    await processedThrough(await publish(productoEliminado(id)));
    expect(store.calls).toEqual([id]);
    // Leave the stream readable (readStream parses every message) for the other tests.
    const jsm = await jetstreamManager(nc);
    for (const bad of garbage) await jsm.streams.deleteMessage(ns.stream, bad);
  });
});

describe('ProductoEliminado consumer on the server', () => {
  it('is a durable explicit-ack consumer of the ProductoEliminado subject from the stream start, with no delivery limit and a 90 s ack_wait', async () => {
    expect((await consumerInfo()).config).toMatchObject({
      durable_name: 'bodega-svc-producto-eliminado',
      filter_subject: eventSubject(ns.prefix, 'ProductoEliminado'),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      max_deliver: -1,
      ack_wait: nanos(RECONCILIATION_ACK_WAIT_MS),
    });
  });
});
