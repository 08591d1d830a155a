/**
 * End to end (contract §10.1 "History is never lost"): a product deleted in
 * a real producto-svc has its stock written out of every warehouse by the
 * real bodega-svc, which consumed producto-svc's ProductoEliminado from the
 * shared stream and asked producto-svc (PRODUCTO_SVC_ADDR) before acting.
 * What is checked is what the database holds afterwards.
 */
import { status } from '@grpc/grpc-js';
import { jetstream, jetstreamManager, type ConsumerInfo } from '@nats-io/jetstream';
import {
  buildEnvelope,
  eventAudit,
  eventSubject,
  type DeletedEventData,
  type NatsConnection,
} from '@inventario/platform';
import {
  connectTestNats,
  readStream,
  testEventNamespace,
  waitFor,
  waitForOutboxesDrained,
  type EventNamespace,
} from '@inventario/testkit';
import { startProductoSvcProcess, type ProductoSvcUnderTest } from '@inventario/testkit/grpc';
import { PRODUCTO_ELIMINADO_CONSUMER } from '../src/events/producto-eliminado-consumer';
import { asUser, grpcError, startTestService, type TestService } from './support/test-service';

let ns: EventNamespace;
let productoSvc: ProductoSvcUnderTest;
let svc: TestService;
let nc: NatsConnection;

beforeAll(async () => {
  ns = testEventNamespace();
  // Both services on one stream, as in production: producto-svc's events reach bodega-svc's consumer.
  productoSvc = await startProductoSvcProcess('bodega_pe_e2e_p', { namespace: ns });
  svc = await startTestService('bodega_pe_e2e', {
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

async function consumerInfo(): Promise<ConsumerInfo> {
  return (await jetstreamManager(nc)).consumers.info(ns.stream, PRODUCTO_ELIMINADO_CONSUMER);
}

/** Waits until bodega-svc's consumer has acknowledged (or terminated) every message up to `seq`. */
async function processedThrough(seq: number): Promise<void> {
  await waitFor(
    async () => (await consumerInfo()).ack_floor.stream_seq >= seq,
    `bodega-svc's consumer to process stream sequence ${seq}`,
  );
}

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

async function publish(payload: string): Promise<number> {
  return (await jetstream(nc).publish(eventSubject(ns.prefix, 'ProductoEliminado'), payload)).seq;
}

async function createBodega(nombre: string, capacidad: number): Promise<number> {
  const { bodega } = await svc.rpc.createBodega({ nombre: `${nombre} ${Date.now()}`, capacidad });
  if (!bodega) throw new Error('CreateBodega answered without a bodega');
  return bodega.id;
}

/** Without units: its ProductoCreado would record them here (this producto-svc's own call goes to a stand-in). */
async function createProducto(nombre: string): Promise<number> {
  const { producto } = await productoSvc.api.create({ nombre, precio: '1.00', cantidadEnStock: 0 });
  if (!producto) throw new Error('CreateProducto answered without a producto');
  return producto.id;
}

/** Sets the units of a product in a warehouse through ExistenciaService, as the BFF's assignment does. */
function stock(bodegaId: number, productoId: number, cantidad: number): Promise<unknown> {
  return svc.stock.asignarExistencia({ bodegaId, productoId, cantidad }, asUser('tester'));
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

interface LineaRow {
  bodega_id: number;
  tipo: string;
  motivo: string;
  cantidad: number;
  cantidad_anterior: number;
  cantidad_posterior: number;
  usuario: string;
}

/** The product's ledger lines, oldest first. */
function lineas(productoId: number): Promise<LineaRow[]> {
  return svc
    .db('movimientos')
    .where({ producto_id: productoId })
    .orderBy('id')
    .select('bodega_id', 'tipo', 'motivo', 'cantidad', 'cantidad_anterior', 'cantidad_posterior', 'usuario');
}

/** Units of the product per warehouse, as the levels hold them (absent: no level). */
async function niveles(productoId: number): Promise<Record<number, number>> {
  const rows = await svc
    .db('existencias')
    .where({ producto_id: productoId })
    .select<{ bodega_id: number; cantidad: number }[]>('bodega_id', 'cantidad');
  return Object.fromEntries(rows.map((r) => [r.bodega_id, r.cantidad]));
}

async function ocupacion(bodegaId: number): Promise<number> {
  // Exact occupancy: the row less the exits not yet folded into it (bodega_salidas, issue 23).
  const row = await svc
    .db('bodegas')
    .where({ id: bodegaId })
    .first<{ ocupacion: number }>(
      svc.db.raw(
        'ocupacion - COALESCE((SELECT SUM(unidades) FROM bodega_salidas WHERE bodega_id = bodegas.id), 0) AS ocupacion',
      ),
    );
  return Number(row?.ocupacion);
}

async function recordedAsDeleted(productoId: number): Promise<boolean> {
  return (await svc.db('productos_eliminados').where({ producto_id: productoId }).first()) !== undefined;
}

describe('ProductoEliminado reconciliation, end to end', () => {
  it('writes the deleted product out of every warehouse (PRODUCTO_ELIMINADO), keeps its lines and leaves other products alone', async () => {
    const [norte, sur] = [await createBodega('Norte', 100), await createBodega('Sur', 100)];
    const [borrado, otro] = [await createProducto('Borrado'), await createProducto('Otro')];
    await stock(norte, borrado, 10);
    await stock(sur, borrado, 5);
    await stock(norte, otro, 7);

    await processedThrough(await deleteProducto(borrado));

    expect(await niveles(borrado)).toEqual({});
    expect(await lineas(borrado)).toEqual([
      {
        bodega_id: norte,
        tipo: 'AJUSTE',
        motivo: 'ASIGNACION',
        cantidad: 10,
        cantidad_anterior: 0,
        cantidad_posterior: 10,
        usuario: 'tester',
      },
      {
        bodega_id: sur,
        tipo: 'AJUSTE',
        motivo: 'ASIGNACION',
        cantidad: 5,
        cantidad_anterior: 0,
        cantidad_posterior: 5,
        usuario: 'tester',
      },
      {
        bodega_id: norte,
        tipo: 'SALIDA',
        motivo: 'PRODUCTO_ELIMINADO',
        cantidad: -10,
        cantidad_anterior: 10,
        cantidad_posterior: 0,
        usuario: 'system',
      },
      {
        bodega_id: sur,
        tipo: 'SALIDA',
        motivo: 'PRODUCTO_ELIMINADO',
        cantidad: -5,
        cantidad_anterior: 5,
        cantidad_posterior: 0,
        usuario: 'system',
      },
    ]);
    expect(await recordedAsDeleted(borrado)).toBe(true);
    expect([await ocupacion(norte), await ocupacion(sur)]).toEqual([7, 0]);
    expect(await niveles(otro)).toEqual({ [norte]: 7 });

    // Published through the outbox like any operation, as 'system'.
    const written = (await svc.publishedEvents()).filter(
      (e) =>
        e.body.eventType === 'Service.Inventario.MovimientoRegistrado' &&
        e.body.data.tipoOperacion === 'PRODUCTO_ELIMINADO',
    );
    expect(written.map((e) => e.body.data.usuario)).toEqual(['system']);

    // From then on a stock write for the product is refused.
    const refused = await grpcError(stock(norte, borrado, 1));
    expect(refused.code).toBe(status.FAILED_PRECONDITION);
    expect(refused.metadata.get('inventario-error-reason')).toEqual(['PRODUCTO_ELIMINADO']);
    expect(await niveles(borrado)).toEqual({});
  });

  it('changes nothing when the same event arrives again', async () => {
    const bodega = await createBodega('Duplicado', 50);
    const producto = await createProducto('Duplicado');
    await stock(bodega, producto, 3);
    const seq = await deleteProducto(producto);
    await processedThrough(seq);
    const [lines, operations] = [
      await lineas(producto),
      await svc.db('operaciones').count<{ n: number }[]>({ n: '*' }),
    ];
    expect(lines.map((l) => l.motivo)).toEqual(['ASIGNACION', 'PRODUCTO_ELIMINADO']);

    const stored = await (await jetstreamManager(nc)).streams.getMessage(ns.stream, { seq });
    if (!stored) throw new Error(`stream message ${seq} is gone`);
    await processedThrough(await publish(stored.string()));

    expect(await lineas(producto)).toEqual(lines);
    expect(await svc.db('operaciones').count<{ n: number }[]>({ n: '*' })).toEqual(operations);
    expect((await consumerInfo()).num_ack_pending).toBe(0);
  });

  it('leaves the stock of a product producto-svc still has: a well-formed ProductoEliminado for it is refused', async () => {
    const bodega = await createBodega('Vivo', 50);
    const producto = await createProducto('Vivo');
    await stock(bodega, producto, 4);

    await processedThrough(await publish(productoEliminado(producto)));

    expect(await niveles(producto)).toEqual({ [bodega]: 4 });
    expect((await lineas(producto)).map((l) => l.motivo)).toEqual(['ASIGNACION']);
    expect(await recordedAsDeleted(producto)).toBe(false);
    expect(await ocupacion(bodega)).toBe(4);
  });

  it('refuses a forged or misrouted event for a product producto-svc deleted, and acts on the genuine one', async () => {
    const bodega = await createBodega('Falsa', 50);
    const producto = await createProducto('Falsa');
    await stock(bodega, producto, 6);
    // Deleted in producto-svc's database with no event yet (as while its relay is behind):
    // producto-svc confirms the deletion, so only the envelope can refuse the forged events.
    await productoSvc.db('productos').where({ id: producto }).del();

    for (const forged of [
      { source: 'bodega-svc' },
      { eventType: 'Service.Inventario.BodegaEliminada' },
      { subject: `/bodegas/${producto}` },
    ]) {
      await processedThrough(await publish(productoEliminado(producto, forged)));
    }
    expect(await niveles(producto)).toEqual({ [bodega]: 6 });
    expect(await recordedAsDeleted(producto)).toBe(false);

    await processedThrough(await publish(productoEliminado(producto)));
    expect(await niveles(producto)).toEqual({});
    expect(await recordedAsDeleted(producto)).toBe(true);
  });
});

describe('a forged ProductoEliminado for the next product, not created yet (issue 21 item 8)', () => {
  it('is refused: producto-svc never deleted it, so the product created next can hold stock', async () => {
    const bodega = await createBodega('Siguiente', 50);
    const last = await createProducto('Último');
    const next = last + 1;
    // Well formed in every respect; producto-svc has no such product, but it never deleted one.
    await processedThrough(await publish(productoEliminado(next)));
    expect(await recordedAsDeleted(next)).toBe(false);

    expect(await createProducto('Siguiente')).toBe(next);
    await stock(bodega, next, 3);
    expect(await niveles(next)).toEqual({ [bodega]: 3 });
  });
});
