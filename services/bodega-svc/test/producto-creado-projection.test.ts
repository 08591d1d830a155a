/**
 * bodega-svc's projection of known products (docs/decisions.md, "Stock has one home"), end to end:
 * a real producto-svc and bodega-svc on one stream, as in production. A product created there is
 * recorded by the durable bodega-svc-producto-creado once producto-svc confirms it, so its first
 * stock write asks producto-svc nothing; a forged ProductoCreado for an id producto-svc does not
 * have records nothing; and a write that comes before the event asks producto-svc itself.
 */
import { status } from '@grpc/grpc-js';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { buildEnvelope, eventAudit, eventSubject, type NatsConnection } from '@inventario/platform';
import { TipoMovimiento } from '@inventario/proto';
import { connectTestNats, testEventNamespace, waitFor, type EventNamespace } from '@inventario/testkit';
import { startProductoSvcProcess, type ProductoSvcUnderTest } from '@inventario/testkit/grpc';
import { PRODUCTO_CREADO_CONSUMER } from '../src/events/producto-creado-consumer';
import { asUser, grpcError, startTestService, type TestService } from './support/test-service';

let ns: EventNamespace;
let productoSvc: ProductoSvcUnderTest;
let svc: TestService;
let nc: NatsConnection;

beforeAll(async () => {
  ns = testEventNamespace();
  productoSvc = await startProductoSvcProcess('bodega_pc_p', { namespace: ns });
  svc = await startTestService('bodega_pc', {
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

const conocido = async (productoId: number) =>
  (await svc.db('productos_conocidos').where({ producto_id: productoId }).first()) !== undefined;

async function bodega(): Promise<number> {
  const { bodega: b } = await svc.rpc.createBodega({ nombre: `Bodega ${Math.random()}`, capacidad: 100 });
  return b!.id;
}

/** Without units (one with units: stock-inicial-desde-evento.test.ts). */
async function createProducto(nombre: string, cantidadEnStock = 0): Promise<number> {
  const { producto } = await productoSvc.api.create({ nombre, precio: '1.00', cantidadEnStock });
  return producto!.id;
}

/** Waits until bodega-svc's creation consumer has acknowledged every message up to `seq`. */
async function processedThrough(seq: number): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await waitFor(
    async () => (await jsm.consumers.info(ns.stream, PRODUCTO_CREADO_CONSUMER)).ack_floor.stream_seq >= seq,
    `the consumer to process ${seq}`,
  );
}

describe('known products', () => {
  it('a product created in producto-svc is recorded from its ProductoCreado, and takes stock', async () => {
    const id = await createProducto('Proyectado');
    await waitFor(() => conocido(id), 'bodega-svc to record the created product');
    const res = await svc.stock.registrarMovimiento(
      {
        bodegaId: await bodega(),
        productoId: id,
        tipo: TipoMovimiento.TIPO_MOVIMIENTO_ENTRADA,
        cantidad: 2,
        motivo: 0,
      },
      asUser('ana'),
    );
    expect(res.operacion!.movimientos[0]).toMatchObject({ productoId: id, cantidad: 2 });
  });

  it('a forged ProductoCreado for an id producto-svc does not have records nothing, and a write naming it is a 404 on productoId', async () => {
    const forged = 3_900_000_001;
    const envelope = buildEnvelope({
      namespace: 'Service',
      type: 'ProductoCreado',
      source: 'producto-svc',
      subject: `/productos/${forged}`,
      data: {
        productoId: forged,
        nombre: 'Falso',
        descripcion: null,
        precio: 1,
        cantidadEnStock: 0,
        cantidad: 0,
        bodegaId: null,
        version: 1,
        ...eventAudit('CREATE', 'mallory', new Date()),
      },
      at: new Date(),
    });
    const { seq } = await jetstream(nc).publish(eventSubject(ns.prefix, 'ProductoCreado'), JSON.stringify(envelope));
    await processedThrough(seq);
    expect(await conocido(forged)).toBe(false);
    const err = await grpcError(
      svc.stock.registrarMovimiento(
        {
          bodegaId: await bodega(),
          productoId: forged,
          tipo: TipoMovimiento.TIPO_MOVIMIENTO_ENTRADA,
          cantidad: 1,
          motivo: 0,
        },
        asUser('ana'),
      ),
    );
    expect(err.code).toBe(status.NOT_FOUND);
    expect(err.details).toBe(`No existe el producto ${forged}`);
    expect(await conocido(forged)).toBe(false);
  });

  it('a write before the event asks producto-svc: the product is recorded then', async () => {
    // Straight into producto-svc's table, so no ProductoCreado is ever published for it.
    const [id] = await productoSvc.db('productos').insert({
      nombre: 'Sin evento',
      precio: '2.00',
      cantidad_en_stock: 0,
      fecha_creacion: new Date(),
      fecha_actualizacion: new Date(),
    });
    expect(await conocido(Number(id))).toBe(false);
    await svc.stock.registrarMovimiento(
      {
        bodegaId: await bodega(),
        productoId: Number(id),
        tipo: TipoMovimiento.TIPO_MOVIMIENTO_ENTRADA,
        cantidad: 1,
        motivo: 0,
      },
      asUser('ana'),
    );
    expect(await conocido(Number(id))).toBe(true);
  });
});
