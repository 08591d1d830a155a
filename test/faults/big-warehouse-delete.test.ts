/**
 * A forced delete of a warehouse holding 10,000 products (issue 16 item 3),
 * through the built BFF and services as processes, a private nats-server
 * and the suite's private mariadbd. One INSERT of every event used to pass
 * max_allowed_packet near 27,000 small products, and one call's duration
 * grew with the warehouse until it passed its deadline and counted against
 * the breaker. Now the BFF unassigns in bounded calls of bounded chunks:
 * 200, every product unassigned with one ProductoActualizado each, each call
 * inside its deadline (the default 5 s) and the breaker closed.
 */
import { createDb } from '@inventario/platform';
import { startPrivateNatsServer, type PrivateNatsServer } from '@inventario/testkit';
import { seedProductos } from '@inventario/testkit';
import { killAllServiceProcesses, startProcessStack, type ProcessStack } from './support/processes';

const PRODUCTOS = 10_000;

let nats: PrivateNatsServer;
let stack: ProcessStack;

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  stack = await startProcessStack({ label: 'f_bigdel', natsUrl: nats.url });
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await killAllServiceProcesses();
  await nats?.dispose();
});

test(`force-deleting a warehouse of ${PRODUCTOS} products: 200, all unassigned, one event each, breaker closed`, async () => {
  const created = await stack.request('POST', '/api/bodegas', {
    body: { nombre: 'Bodega enorme', capacidad: PRODUCTOS },
  });
  expect(created.status).toBe(201);
  const bodegaId = Number(created.body.id);
  const db = createDb(stack.databaseUrls['producto-svc'], { poolMax: 2 });
  try {
    const ids = await seedProductos(db, {
      count: PRODUCTOS,
      bodegaId,
      descripcion: 'Producto sembrado para la prueba',
    });
    expect(ids).toHaveLength(PRODUCTOS);

    const refused = await stack.request('DELETE', `/api/bodegas/${bodegaId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.totalProductos).toBe(PRODUCTOS);
    expect(refused.body.productos).toHaveLength(100);

    const started = Date.now();
    const res = await stack.request('DELETE', `/api/bodegas/${bodegaId}?force=true`);
    const elapsedMs = Date.now() - started;
    expect(res.status).toBe(200);
    expect(res.body.productosAfectados).toBe(PRODUCTOS);
    expect((res.body.detalleProductos as { id: number }[]).map((p) => p.id)).toEqual(ids.slice(0, 100));
    process.stdout.write(
      `big-warehouse-delete: ${PRODUCTOS} products unassigned and deleted in ${elapsedMs} ms, report ${res.text.length} bytes\n`,
    );

    const left = await db('productos')
      .where({ bodega_id: bodegaId })
      .count<{ n: number | string }[]>({ n: '*' })
      .first();
    expect(Number(left?.n)).toBe(0);
    const moved = await db('productos')
      .whereNull('bodega_id')
      .where({ version: 2 })
      .count<{ n: number | string }[]>({ n: '*' })
      .first();
    expect(Number(moved?.n)).toBe(PRODUCTOS);

    const events = await stack.settledEvents(180_000);
    const perProducto = new Map<string, number>();
    for (const e of events) {
      if (e.body.eventType.endsWith('ProductoActualizado'))
        perProducto.set(e.body.subject, (perProducto.get(e.body.subject) ?? 0) + 1);
    }
    expect(perProducto.size).toBe(PRODUCTOS);
    expect([...perProducto.values()].every((n) => n === 1)).toBe(true);
    expect(ids.every((id) => perProducto.has(`/productos/${id}`))).toBe(true);

    const health = await stack.request('GET', '/actuator/health', { auth: false });
    expect(health.body.components.productoSvc.details.breaker).toBe('closed');
  } finally {
    await db.destroy();
  }
}, 300_000);
