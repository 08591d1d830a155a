/**
 * The initial stock recorded from ProductoCreado (docs/decisions.md, "The initial stock, recorded from
 * ProductoCreado"), end to end: a real producto-svc and bodega-svc on one stream. This producto-svc's
 * RegistrarStockInicial goes to a stand-in ledger, so for the real bodega-svc every create's call is lost:
 * only the durable bodega-svc-producto-creado can record its units. Products inserted straight into
 * producto-svc's table have no event of their own; the test publishes theirs as producto-svc writes it.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { buildEnvelope, eventAudit, eventSubject, type NatsConnection } from '@inventario/platform';
import { MOTIVO_MOVIMIENTO_NAMES, TipoMovimiento } from '@inventario/proto';
import {
  connectTestNats,
  ledgerProblems,
  metricSample,
  scrapeMetrics,
  testEventNamespace,
  waitFor,
  type EventNamespace,
} from '@inventario/testkit';
import { startProductoSvcProcess, type ProductoSvcUnderTest } from '@inventario/testkit/grpc';
import { PRODUCTO_CREADO_CONSUMER } from '../src/events/producto-creado-consumer';
import { asUser, startTestService, type TestService } from './support/test-service';

const STOCK_INICIAL = MOTIVO_MOVIMIENTO_NAMES.value('STOCK_INICIAL');

let ns: EventNamespace;
let productoSvc: ProductoSvcUnderTest;
let svc: TestService;
let nc: NatsConnection;

beforeAll(async () => {
  ns = testEventNamespace();
  productoSvc = await startProductoSvcProcess('bodega_sied_p', { namespace: ns });
  svc = await startTestService('bodega_sied', {
    ns,
    env: { PRODUCTO_SVC_ADDR: `127.0.0.1:${productoSvc.grpcPort}` },
  });
  nc = await connectTestNats();
});

afterAll(async () => {
  await nc?.close();
  await svc?.close();
  await productoSvc?.close();
});

afterEach(async () => {
  expect(await ledgerProblems(svc.db)).toEqual([]);
});

async function bodega(capacidad = 100): Promise<number> {
  const { bodega: b } = await svc.rpc.createBodega({ nombre: `Bodega ${Math.random()}`, capacidad });
  return b!.id;
}

/** A product producto-svc has, with no ProductoCreado published for it. */
async function productoSinEvento(cantidadEnStock: number, bodegaId: number): Promise<number> {
  const [id] = await productoSvc.db('productos').insert({
    nombre: `Sin evento ${Math.random()}`,
    precio: '2.00',
    cantidad_en_stock: cantidadEnStock,
    bodega_id: bodegaId,
    fecha_creacion: new Date(),
    fecha_actualizacion: new Date(),
  });
  return Number(id);
}

/** A product whose create's own call recorded its initial stock of `cantidad` (no event published yet). */
async function registradoPorElCreate(cantidad: number): Promise<{ b: number; id: number }> {
  const b = await bodega();
  const id = await productoSinEvento(cantidad, b);
  await svc.stock.registrarStockInicial(
    { productoId: id, bodegaId: b, cantidad, motivo: STOCK_INICIAL },
    asUser('ana'),
  );
  return { b, id };
}

/** Its ProductoCreado as producto-svc's event writer builds it (productoEventData), written at `at`. */
function productoCreado(
  productoId: number,
  cantidadEnStock: number,
  bodegaId: number,
  usuario: string,
  at = new Date(),
): string {
  return JSON.stringify(
    buildEnvelope({
      namespace: 'Service',
      type: 'ProductoCreado',
      source: 'producto-svc',
      subject: `/productos/${productoId}`,
      data: {
        productoId,
        nombre: 'Sin evento',
        descripcion: null,
        precio: 2,
        cantidadEnStock,
        cantidad: cantidadEnStock,
        bodegaId,
        ...eventAudit('CREATE', usuario, at),
        version: 1,
      },
      at,
    }),
  );
}

async function publicar(body: string): Promise<number> {
  return (await jetstream(nc).publish(eventSubject(ns.prefix, 'ProductoCreado'), body)).seq;
}

/** Waits until bodega-svc's creation consumer has acknowledged every message up to `seq`. */
async function processedThrough(seq: number): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await waitFor(
    async () => (await jsm.consumers.info(ns.stream, PRODUCTO_CREADO_CONSUMER)).ack_floor.stream_seq >= seq,
    `the consumer to process ${seq}`,
  );
}

/** Waits until the consumer has processed every ProductoCreado in the stream (a create's own included). */
async function processedAll(): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await waitFor(async () => {
    const info = await jsm.consumers.info(ns.stream, PRODUCTO_CREADO_CONSUMER);
    return info.num_pending === 0 && info.num_ack_pending === 0;
  }, 'the consumer to process every ProductoCreado');
}

/** Step (4)'s series as scraped: initial stocks recorded from the event, and the lag histogram's samples. */
async function desdeEvento(): Promise<{ total: number; retrasos: number; hasta3600: number; hasta21600: number }> {
  const text = await scrapeMetrics(svc.app.metricsPort);
  const retraso = 'inventario_stock_inicial_desde_evento_retraso_seconds';
  return {
    total: metricSample(text, 'inventario_stock_inicial_desde_evento_total') ?? NaN,
    retrasos: metricSample(text, `${retraso}_count`) ?? NaN,
    hasta3600: metricSample(text, `${retraso}_bucket`, { le: '3600' }) ?? NaN,
    hasta21600: metricSample(text, `${retraso}_bucket`, { le: '21600' }) ?? NaN,
  };
}

/** The product's STOCK_INICIAL lines in SQL, with their operation's author. */
async function lineasIniciales(productoId: number) {
  return svc
    .db('movimientos as m')
    .join('operaciones as o', 'o.id', 'm.operacion_id')
    .where({ 'm.producto_id': productoId, 'm.motivo': 'STOCK_INICIAL' })
    .select<{ bodega_id: number; tipo: string; cantidad: number; usuario: string; principal_id: string | null }[]>(
      'm.bodega_id',
      'm.tipo',
      'm.cantidad',
      'o.usuario',
      'o.principal_id',
    );
}

async function total(productoId: number): Promise<number> {
  const { totales } = await svc.stock.getTotalesDeProductos({ productoIds: [productoId] });
  return Number(totales[0]!.total);
}

async function cuentas(productoId: number) {
  const contar = async (table: string, where?: Record<string, unknown>) =>
    Number(
      (
        await svc
          .db(table)
          .where(where ?? {})
          .count<{ n: number }[]>({ n: '*' })
      )[0]!.n,
    );
  return {
    lineas: await contar('movimientos', { producto_id: productoId }),
    operaciones: await contar('operaciones'),
    outbox: await contar('outbox'),
  };
}

describe('the initial stock, recorded from ProductoCreado', () => {
  it('a create whose call was lost: the consumer records one STOCK_INICIAL line of its units, in its warehouse', async () => {
    const b = await bodega();
    await processedAll();
    const antes = await desdeEvento();
    const { producto } = await productoSvc.api.create({
      nombre: 'Llamada perdida',
      precio: '1.00',
      cantidadEnStock: 7,
      bodegaId: b,
    });
    const id = producto!.id;
    await waitFor(async () => (await lineasIniciales(id)).length > 0, 'the consumer to record the initial stock');
    // The create's author (this producto-svc's client calls as `tester`); the event carries no principal.
    expect(await lineasIniciales(id)).toEqual([
      { bodega_id: b, tipo: 'ENTRADA', cantidad: 7, usuario: 'tester', principal_id: null },
    ]);
    expect(await svc.db('stock_inicial').where({ producto_id: id })).toEqual([
      expect.objectContaining({ origen: 'STOCK_INICIAL', operacion_id: expect.anything() }),
    ]);
    expect(await total(id)).toBe(7);
    // Counted once as recorded late, with its lag from the creation.
    await processedAll();
    expect(await desdeEvento()).toEqual(
      expect.objectContaining({
        total: antes.total + 1,
        retrasos: antes.retrasos + 1,
      }),
    );
  });

  it('the create recorded it first: the event adds nothing', async () => {
    const { b, id } = await registradoPorElCreate(5);
    const antes = await cuentas(id);
    expect(antes.lineas).toBe(1);
    const metricas = await desdeEvento();
    await processedThrough(await publicar(productoCreado(id, 5, b, 'ana')));
    expect(await cuentas(id)).toEqual(antes);
    expect(await total(id)).toBe(5);
    // Not a late recording: nothing counted.
    expect(await desdeEvento()).toEqual(metricas);
  });

  it('the create recorded it first: the event is answered by a plain read, without waiting for its row', async () => {
    const { b, id } = await registradoPorElCreate(5);
    const antes = await cuentas(id);
    const metricas = await desdeEvento();
    // The row held exclusively: the recording's transaction (its insert) would wait for it, redelivered until
    // it is let go; the plain read does not.
    const trx = await svc.db.transaction();
    try {
      await trx('stock_inicial').where({ producto_id: id }).forUpdate();
      await processedThrough(await publicar(productoCreado(id, 5, b, 'ana')));
    } finally {
      await trx.rollback();
    }
    expect(await cuentas(id)).toEqual(antes);
    expect(await total(id)).toBe(5);
    expect(await desdeEvento()).toEqual(metricas);
  });

  it('a movement came before the event: that said how many there are, the event records no line', async () => {
    const b = await bodega();
    const id = await productoSinEvento(6, b);
    await svc.stock.registrarMovimiento(
      { bodegaId: b, productoId: id, tipo: TipoMovimiento.TIPO_MOVIMIENTO_ENTRADA, cantidad: 2, motivo: 0 },
      asUser('ana'),
    );
    const antes = await cuentas(id);
    await processedThrough(await publicar(productoCreado(id, 6, b, 'ana')));
    expect(await lineasIniciales(id)).toEqual([]);
    expect(await cuentas(id)).toEqual(antes);
    expect(await svc.db('stock_inicial').where({ producto_id: id })).toEqual([
      expect.objectContaining({ origen: 'STOCK_INICIAL', operacion_id: null }),
    ]);
    // So the create's own call, arriving now, adds nothing either.
    await svc.stock.registrarStockInicial(
      { productoId: id, bodegaId: b, cantidad: 6, motivo: STOCK_INICIAL },
      asUser('ana'),
    );
    expect(await total(id)).toBe(2);
  });

  it('a count came before the event: the event records no line, and the count stands', async () => {
    const b = await bodega();
    const id = await productoSinEvento(6, b);
    await svc.stock.contarProducto({ productoId: id, bodegaId: b, cantidad: 3 }, asUser('ana'));
    const antes = await cuentas(id);
    await processedThrough(await publicar(productoCreado(id, 6, b, 'ana')));
    expect(await lineasIniciales(id)).toEqual([]);
    expect(await cuentas(id)).toEqual(antes);
    expect(await svc.db('stock_inicial').where({ producto_id: id })).toEqual([
      expect.objectContaining({ origen: 'STOCK_INICIAL', operacion_id: null }),
    ]);
    expect(await total(id)).toBe(3);
  });

  it('the same event delivered again records the units once', async () => {
    const b = await bodega();
    const id = await productoSinEvento(4, b);
    // Written two hours ago: its lag is counted from the creation, not from its delivery.
    const evento = productoCreado(id, 4, b, 'ana', new Date(Date.now() - 7_200_000));
    const antes = await desdeEvento();
    await processedThrough(await publicar(evento));
    await processedThrough(await publicar(evento));
    expect(await lineasIniciales(id)).toEqual([
      { bodega_id: b, tipo: 'ENTRADA', cantidad: 4, usuario: 'ana', principal_id: null },
    ]);
    expect(await total(id)).toBe(4);
    // Counted once; its lag past an hour and within six.
    expect(await desdeEvento()).toEqual({
      total: antes.total + 1,
      retrasos: antes.retrasos + 1,
      hasta3600: antes.hasta3600,
      hasta21600: antes.hasta21600 + 1,
    });
  });

  it('a product created with 0 units has nothing to record: it is only known', async () => {
    const id = await productoSinEvento(0, await bodega());
    await processedThrough(await publicar(productoCreado(id, 0, await bodega(), 'ana')));
    expect(await svc.db('stock_inicial').where({ producto_id: id })).toEqual([]);
    expect(await svc.db('productos_conocidos').where({ producto_id: id }).first()).toBeDefined();
  });
});
