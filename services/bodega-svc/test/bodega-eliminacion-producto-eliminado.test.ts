/**
 * A safe DeleteBodega right after a product's deletion (contract §7.6): the stock left is a
 * deleted product's, which the ProductoEliminado consumer has not written out yet. Here it never
 * gets there on its own: producto-svc publishes to a stream of its own, which bodega-svc's
 * consumer does not read, so the delete meets the deletion first every time; the event is copied
 * into bodega-svc's stream afterwards to let the consumer run late. Real producto-svc, MariaDB, NATS.
 */
import { credentials, status, type Metadata } from '@grpc/grpc-js';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { errorReasonOf, eventSubject, type NatsConnection } from '@inventario/platform';
import { BodegaServiceClient, type DeleteBodegaResponse } from '@inventario/proto';
import { connectTestNats, readStream, waitFor, waitForOutboxesDrained } from '@inventario/testkit';
import { startProductoSvcProcess, type ProductoSvcUnderTest } from '@inventario/testkit/grpc';
import { ELIMINADOS_POR_BORRADO, RESERVA_MS } from '../src/eliminados-en-bodega';
import { PRODUCTO_ELIMINADO_CONSUMER } from '../src/events/producto-eliminado-consumer';
import { asUser, grpcError, startTestService, type TestService } from './support/test-service';

/** producto-svc on a private stream of its own (its `namespace`), which bodega-svc's consumer does not read. */
interface Servicios {
  productoSvc: ProductoSvcUnderTest;
  svc: TestService;
}

async function startServicios(label: string): Promise<Servicios> {
  const productoSvc = await startProductoSvcProcess(`${label}_p`);
  const svc = await startTestService(label, { env: { PRODUCTO_SVC_ADDR: productoSvc.address } }).catch(
    async (err: unknown) => {
      await productoSvc.close();
      throw err;
    },
  );
  return { productoSvc, svc };
}

async function createBodega({ svc }: Servicios, nombre: string): Promise<number> {
  const { bodega } = await svc.rpc.createBodega({ nombre: `${nombre} ${Date.now()}`, capacidad: 100 });
  if (!bodega) throw new Error('CreateBodega answered without a bodega');
  return bodega.id;
}

async function createProducto({ productoSvc }: Servicios, nombre: string): Promise<number> {
  const { producto } = await productoSvc.api.create({ nombre, precio: '1.00', cantidadEnStock: 1 });
  if (!producto) throw new Error('CreateProducto answered without a producto');
  return producto.id;
}

function stock({ svc }: Servicios, bodegaId: number, productoId: number, cantidad: number): Promise<unknown> {
  return svc.stock.asignarExistencia({ bodegaId, productoId, cantidad }, asUser('tester'));
}

async function count(s: Servicios, table: string, where: Record<string, unknown> = {}): Promise<number> {
  const row = await s.svc.db(table).where(where).count<{ n: number | string }[]>({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

async function recordedAsDeleted(s: Servicios, productoId: number): Promise<boolean> {
  return (await count(s, 'productos_eliminados', { producto_id: productoId })) === 1;
}

async function refusal(s: Servicios, bodegaId: number): Promise<[status, string | undefined]> {
  const err = await grpcError(s.svc.rpc.deleteBodega({ id: bodegaId }, asUser('ana')));
  return [err.code, errorReasonOf(err)];
}

/** DeleteBodega as a caller with a deadline (the BFF's GRPC_DEADLINE_MS) makes it. */
async function deleteBodegaWithin(
  s: Servicios,
  id: number,
  deadlineMs: number,
  metadata: Metadata = asUser('ana'),
): Promise<DeleteBodegaResponse> {
  const client = new BodegaServiceClient(s.svc.address, credentials.createInsecure());
  try {
    return await new Promise((resolve, reject) =>
      client.deleteBodega({ id }, metadata, { deadline: Date.now() + deadlineMs }, (err, res) =>
        err ? reject(err) : resolve(res),
      ),
    );
  } finally {
    client.close();
  }
}

describe('a safe DeleteBodega holding only stock of products producto-svc deleted', () => {
  let s: Servicios;
  let nc: NatsConnection;

  beforeAll(async () => {
    s = await startServicios('bodega_del_pe');
    nc = await connectTestNats();
  });

  afterAll(async () => {
    await nc?.close();
    await s?.svc.close();
    await s?.productoSvc.close();
  });

  it('writes them out as the consumer would, deletes the warehouse, and leaves the late consumer nothing to do', async () => {
    const bodega = await createBodega(s, 'Ultima');
    const otra = await createBodega(s, 'Otra');
    const borrado = await createProducto(s, 'Borrado');
    await stock(s, bodega, borrado, 10);
    await stock(s, otra, borrado, 4);
    await s.productoSvc.api.delete(borrado);

    expect(await s.svc.rpc.deleteBodega({ id: bodega }, asUser('ana'))).toMatchObject({
      existenciasRetiradas: 0,
      unidadesRetiradas: 0,
      pendiente: false,
    });

    // Written out of every warehouse as §7.6 says, by 'system', before the warehouse went.
    const lineas = await s.svc
      .db('movimientos')
      .where({ producto_id: borrado })
      .orderBy('id')
      .select('bodega_id', 'tipo', 'motivo', 'cantidad', 'usuario');
    expect(lineas).toEqual([
      { bodega_id: bodega, tipo: 'AJUSTE', motivo: 'ASIGNACION', cantidad: 10, usuario: 'tester' },
      { bodega_id: otra, tipo: 'AJUSTE', motivo: 'ASIGNACION', cantidad: 4, usuario: 'tester' },
      { bodega_id: bodega, tipo: 'SALIDA', motivo: 'PRODUCTO_ELIMINADO', cantidad: -10, usuario: 'system' },
      { bodega_id: otra, tipo: 'SALIDA', motivo: 'PRODUCTO_ELIMINADO', cantidad: -4, usuario: 'system' },
    ]);
    expect(await count(s, 'existencias', { producto_id: borrado })).toBe(0);
    expect(await recordedAsDeleted(s, borrado)).toBe(true);
    expect(await count(s, 'bodegas', { id: bodega })).toBe(0);
    const published = (await s.svc.publishedEvents()).map((e) => ({
      type: e.body.eventType,
      subject: e.body.subject,
      tipoOperacion: e.body.data.tipoOperacion,
    }));
    const writeOut = published.findIndex((e) => e.tipoOperacion === 'PRODUCTO_ELIMINADO');
    const deleted = published.findIndex((e) => e.type === 'Service.Inventario.BodegaEliminada');
    expect([writeOut >= 0, deleted > writeOut]).toEqual([true, true]);

    // The consumer, reached late by producto-svc's own event, finds the work done.
    const [lines, operations, outbox] = [
      await count(s, 'movimientos'),
      await count(s, 'operaciones'),
      await s.svc.outboxCount(),
    ];
    await waitForOutboxesDrained([s.productoSvc.db], "producto-svc's relay to publish the deletion");
    const event = (await readStream(nc, s.productoSvc.namespace.stream)).find(
      (e) => e.body.eventType === 'Service.Inventario.ProductoEliminado' && e.body.subject === `/productos/${borrado}`,
    );
    if (!event) throw new Error(`producto-svc published no ProductoEliminado for product ${borrado}`);
    const { seq } = await jetstream(nc).publish(
      eventSubject(s.svc.ns.prefix, 'ProductoEliminado'),
      JSON.stringify(event.body),
    );
    const consumers = (await jetstreamManager(nc)).consumers;
    await waitFor(
      async () => (await consumers.info(s.svc.ns.stream, PRODUCTO_ELIMINADO_CONSUMER)).ack_floor.stream_seq >= seq,
      "bodega-svc's consumer to process the late ProductoEliminado",
    );
    expect([await count(s, 'movimientos'), await count(s, 'operaciones'), await s.svc.outboxCount()]).toEqual([
      lines,
      operations,
      outbox,
    ]);
    expect((await consumers.info(s.svc.ns.stream, PRODUCTO_ELIMINADO_CONSUMER)).num_ack_pending).toBe(0);
  });

  it('writes out 60 deleted products and deletes the warehouse in one call within the BFF deadline', async () => {
    const bodega = await createBodega(s, 'Sesenta');
    const borrados: number[] = [];
    for (let i = 0; i < 60; i++) borrados.push(await createProducto(s, `Borrado ${i}`));
    for (const id of borrados) await stock(s, bodega, id, 1);
    for (const id of borrados) await s.productoSvc.api.delete(id);
    expect(borrados.length).toBeLessThanOrEqual(ELIMINADOS_POR_BORRADO);

    expect(await deleteBodegaWithin(s, bodega, 5000)).toMatchObject({ existenciasRetiradas: 0, pendiente: false });

    const salidas = await s.svc
      .db('movimientos')
      .where({ bodega_id: bodega, tipo: 'SALIDA', motivo: 'PRODUCTO_ELIMINADO', usuario: 'system' })
      .orderBy('producto_id')
      .pluck('producto_id');
    expect(salidas).toEqual(borrados);
    expect(await count(s, 'existencias', { bodega_id: bodega })).toBe(0);
    const registrados = await s.svc.db('productos_eliminados').whereIn('producto_id', borrados).pluck('producto_id');
    expect(registrados.map(Number).sort((a, b) => a - b)).toEqual(borrados);
    expect(await count(s, 'bodegas', { id: bodega })).toBe(0);
  });

  it('is refused as before while it also holds a product producto-svc has, and writes nothing out', async () => {
    const soloVivo = await createBodega(s, 'Vivo');
    const mixta = await createBodega(s, 'Mixta');
    const [vivo, borrado] = [await createProducto(s, 'Vivo'), await createProducto(s, 'Borrado')];
    await stock(s, soloVivo, vivo, 3);
    await stock(s, mixta, vivo, 2);
    await stock(s, mixta, borrado, 5);
    await s.productoSvc.api.delete(borrado);
    const lines = await count(s, 'movimientos');

    expect(await refusal(s, soloVivo)).toEqual([status.FAILED_PRECONDITION, 'BODEGA_CON_EXISTENCIAS']);
    expect(await refusal(s, mixta)).toEqual([status.FAILED_PRECONDITION, 'BODEGA_CON_EXISTENCIAS']);

    expect(await count(s, 'movimientos')).toBe(lines);
    expect(await count(s, 'existencias', { bodega_id: mixta, producto_id: borrado })).toBe(1);
    expect(await recordedAsDeleted(s, borrado)).toBe(false);
    expect(await count(s, 'bodegas', { id: mixta })).toBe(1);
  });
});

describe('a safe DeleteBodega holding a deleted product while producto-svc cannot answer', () => {
  let s: Servicios;
  let productoSvcClosed = false;

  beforeAll(async () => {
    s = await startServicios('bodega_del_pe_caido');
  });

  afterAll(async () => {
    await s?.svc.close();
    if (!productoSvcClosed) await s?.productoSvc.close();
  });

  it("is refused, not DEADLINE_EXCEEDED, when producto-svc does not answer within the caller's deadline", async () => {
    const bodega = await createBodega(s, 'Lento');
    const borrado = await createProducto(s, 'Borrado');
    await stock(s, bodega, borrado, 7);
    await s.productoSvc.api.delete(borrado);
    const lines = await count(s, 'movimientos');
    // Stopped, not gone: its port still takes the question and never answers it.
    s.productoSvc.process.signal('SIGSTOP');
    try {
      const err = await grpcError(deleteBodegaWithin(s, bodega, RESERVA_MS + 2000));
      expect([err.code, errorReasonOf(err)]).toEqual([status.FAILED_PRECONDITION, 'BODEGA_CON_EXISTENCIAS']);
    } finally {
      s.productoSvc.process.signal('SIGCONT');
    }
    expect(await count(s, 'movimientos')).toBe(lines);
    expect(await recordedAsDeleted(s, borrado)).toBe(false);
    expect(await count(s, 'bodegas', { id: bodega })).toBe(1);
  });

  it('is refused as before, with nothing written out: the deletion is not guessed', async () => {
    const bodega = await createBodega(s, 'Sin respuesta');
    const borrado = await createProducto(s, 'Borrado');
    await stock(s, bodega, borrado, 7);
    await s.productoSvc.api.delete(borrado);
    await s.productoSvc.close();
    productoSvcClosed = true;
    const lines = await count(s, 'movimientos');

    expect(await refusal(s, bodega)).toEqual([status.FAILED_PRECONDITION, 'BODEGA_CON_EXISTENCIAS']);

    expect(await count(s, 'movimientos')).toBe(lines);
    expect(await count(s, 'existencias', { bodega_id: bodega, producto_id: borrado })).toBe(1);
    expect(await recordedAsDeleted(s, borrado)).toBe(false);
  });
});
