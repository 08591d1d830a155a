/**
 * DELETE /api/bodegas/{id}: the warehouse safe delete of
 * docs/contract.md §2.7, across the real producto-svc and bodega-svc.
 */
import { createDb } from '@inventario/platform';
import { seedProductos, crearBodega, crearProducto, verificarExistencias } from '@inventario/testkit';
import { startTestStack, type TestStack } from './support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('bff_safe_delete');
});

afterAll(async () => {
  await stack?.close();
});

/** The events of one resource, once both outboxes are drained. */
async function eventsOf(subject: string): Promise<string[]> {
  return (await stack.settledEvents()).filter((e) => e.body.subject === subject).map((e) => e.body.eventType);
}

test('a warehouse that holds products is not deleted: 409 with the products, and nothing changes', async () => {
  const id = await crearBodega(stack);
  // Assigned only: units a product is created with are stocked in its warehouse (docs/contract.md §10.6).
  const a = await crearProducto(stack, { bodegaId: id, cantidadEnStock: 0 });
  const b = await crearProducto(stack, { bodegaId: id, cantidadEnStock: 0 });

  const res = await stack.request('DELETE', `/api/bodegas/${id}`);
  expect(res.status).toBe(409);
  expect(res.body).toEqual({
    error: 'BODEGA_CON_PRODUCTOS',
    mensaje: expect.stringContaining('force=true'),
    productos: [a, b],
    bodegaId: String(id),
    totalProductos: 2,
  });

  expect((await stack.request('GET', `/api/bodegas/${id}`)).status).toBe(200);
  expect((await stack.request('GET', `/api/productos/${a.id}`)).body.bodegaId).toBe(id);
  expect(await eventsOf(`/bodegas/${id}`)).toEqual(['Service.Inventario.BodegaCreada']);
});

test('force=false behaves like no force', async () => {
  const id = await crearBodega(stack);
  await crearProducto(stack, { bodegaId: id });
  expect((await stack.request('DELETE', `/api/bodegas/${id}?force=false`)).status).toBe(409);
});

test('force=true deletes it and reports the products, which remain without a warehouse', async () => {
  const id = await crearBodega(stack);
  // Assigned only (see above).
  const a = await crearProducto(stack, { bodegaId: id, cantidadEnStock: 0 });
  const b = await crearProducto(stack, { bodegaId: id, cantidadEnStock: 0 });
  const elsewhere = await crearProducto(stack);

  const res = await stack.request('DELETE', `/api/bodegas/${id}?force=true`);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    mensaje: expect.any(String),
    bodegaId: String(id),
    productosAfectados: 2,
    detalleProductos: [
      // As they are now: unassigned, one version further.
      { ...a, bodegaId: null, fechaActualizacion: expect.any(String), version: 2 },
      { ...b, bodegaId: null, fechaActualizacion: expect.any(String), version: 2 },
    ],
    advertencia: expect.any(String),
    existenciasRetiradas: 0,
    unidadesRetiradas: 0,
  });

  expect((await stack.request('GET', `/api/bodegas/${id}`)).status).toBe(404);
  for (const p of [a, b]) {
    const now = await stack.request('GET', `/api/productos/${p.id}`);
    expect(now.status).toBe(200);
    expect(now.body.bodegaId).toBeNull();
  }
  expect((await stack.request('GET', `/api/productos/${elsewhere.id}`)).status).toBe(200);

  expect(await eventsOf(`/bodegas/${id}`)).toEqual([
    'Service.Inventario.BodegaCreada',
    'Service.Inventario.BodegaEliminada',
  ]);
  expect(await eventsOf(`/productos/${a.id}`)).toEqual([
    'Service.Inventario.ProductoCreado',
    'Service.Inventario.ProductoActualizado',
  ]);
  const eliminada = (await stack.settledEvents()).find(
    (e) => e.body.subject === `/bodegas/${id}` && e.body.eventType.endsWith('BodegaEliminada'),
  );
  expect(eliminada?.body.data.usuario).toBe('tester');
});

test('force=true on an empty warehouse reports zero products', async () => {
  const id = await crearBodega(stack);
  const res = await stack.request('DELETE', `/api/v1/bodegas/${id}?force=true`);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ bodegaId: String(id), productosAfectados: 0, detalleProductos: [] });
});

test('an empty warehouse is deleted: 204 with an empty body', async () => {
  const id = await crearBodega(stack);
  const res = await stack.request('DELETE', `/api/bodegas/${id}`);
  expect(res.status).toBe(204);
  expect(res.text).toBe('');
  expect((await stack.request('GET', `/api/bodegas/${id}`)).status).toBe(404);
  expect(await eventsOf(`/bodegas/${id}`)).toEqual([
    'Service.Inventario.BodegaCreada',
    'Service.Inventario.BodegaEliminada',
  ]);
});

test('an unknown warehouse is 404, with or without force', async () => {
  for (const path of ['/api/bodegas/999999', '/api/bodegas/999999?force=true']) {
    const res = await stack.request('DELETE', path);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('NOT_FOUND');
  }
});

test('force accepts only true or false and no other parameter, and the id must be a positive integer', async () => {
  const id = await crearBodega(stack);
  for (const force of ['yes', '1', 'TRUE', '']) {
    const res = await stack.request('DELETE', `/api/bodegas/${id}?force=${force}`);
    expect(res.status).toBe(400);
    expect(res.body.detalles).toEqual([{ campo: 'force', mensaje: 'debe ser true o false' }]);
  }
  // An unknown parameter (a typo of force) is refused, not ignored: ignoring it would delete without force.
  for (const [query, campo] of [
    ['forse=true', 'forse'],
    ['force[]=true', 'force[]'],
    ['force=true&dryRun=true', 'dryRun'],
  ]) {
    const res = await stack.request('DELETE', `/api/bodegas/${id}?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.detalles).toEqual([{ campo, mensaje: 'no es un parámetro admitido (admitidos: force)' }]);
  }
  expect((await stack.request('GET', `/api/bodegas/${id}`)).status).toBe(200);

  const bad = await stack.request('DELETE', '/api/bodegas/0');
  expect(bad.status).toBe(400);
  expect(bad.body.detalles).toEqual([{ campo: 'id', mensaje: expect.any(String) }]);
});

test('a warehouse of 300 products with 60 KB descriptions: a bounded 409 that counts them all, then force=true is 200, one event each, breaker closed', async () => {
  const id = await crearBodega(stack);
  const descripcion = 'x'.repeat(60 * 1024);
  const db = createDb(stack.databaseUrls.producto);
  let ids: number[];
  try {
    ids = await seedProductos(db, { count: 300, bodegaId: id, descripcion });
  } finally {
    await db.destroy();
  }

  const refused = await stack.request('DELETE', `/api/bodegas/${id}`);
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ error: 'BODEGA_CON_PRODUCTOS', bodegaId: String(id), totalProductos: 300 });
  expect(refused.body.mensaje).toContain('300 producto(s)');
  // The first ones by id, within 256 KiB of JSON: the body stays small whatever the warehouse holds.
  const listed = (refused.body.productos as { id: number }[]).map((p) => p.id);
  expect(listed.length).toBeGreaterThan(0);
  expect(listed).toEqual(ids.slice(0, listed.length));
  expect(refused.text.length).toBeLessThan(300 * 1024);

  const res = await stack.request('DELETE', `/api/bodegas/${id}?force=true`);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ bodegaId: String(id), productosAfectados: 300 });
  expect(res.body.advertencia).toContain('300 producto(s)');
  const detalle = (res.body.detalleProductos as { id: number; bodegaId: unknown }[]).map((p) => p.id);
  expect(detalle).toEqual(ids.slice(0, detalle.length));
  expect(res.text.length).toBeLessThan(300 * 1024);
  expect((await stack.request('GET', `/api/bodegas/${id}`)).status).toBe(404);
  expect((await stack.request('GET', `/api/productos?bodegaId=${id}&limit=1`)).body).toEqual([]);

  const events = await stack.settledEvents();
  const perProducto = new Map<string, number>();
  for (const e of events) {
    if (e.body.eventType.endsWith('ProductoActualizado'))
      perProducto.set(e.body.subject, (perProducto.get(e.body.subject) ?? 0) + 1);
  }
  for (const p of ids) expect(perProducto.get(`/productos/${p}`)).toBe(1);

  const health = await stack.request('GET', '/actuator/health', { auth: false });
  expect(health.body.components.productoSvc.details.breaker).toBe('closed');
}, 120_000);

describe('a warehouse with stock (docs/contract.md §10.2)', () => {
  async function asignar(bodegaId: number, productoId: number, cantidad: number): Promise<void> {
    const res = await stack.request('POST', `/api/bodegas/${bodegaId}/productos`, { body: { productoId, cantidad } });
    if (res.status !== 200) throw new Error(`assignment answered ${res.status}: ${res.text}`);
  }

  test('holds products: the 409 lists those assigned and those stocked there, each counted once, and nothing changes', async () => {
    const id = await crearBodega(stack);
    const otra = await crearBodega(stack);
    // Created with no units: what they hold is what the test assigns (docs/contract.md §10.6).
    const asignado = await crearProducto(stack, { bodegaId: id, cantidadEnStock: 0 });
    const ambos = await crearProducto(stack, { bodegaId: id, cantidadEnStock: 0 });
    const deOtra = await crearProducto(stack, { bodegaId: otra, cantidadEnStock: 0 });
    const suelto = await crearProducto(stack, { cantidadEnStock: 0 });
    await asignar(id, ambos.id, 3);
    await asignar(id, deOtra.id, 4);
    await asignar(id, suelto.id, 0);

    const res = await stack.request('DELETE', `/api/bodegas/${id}`);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: 'BODEGA_CON_PRODUCTOS',
      mensaje: `La bodega ${id} tiene 4 producto(s) asignado(s) o con existencias; use force=true para eliminarla de todos modos`,
      // Each with its figure, its ledger total.
      productos: [asignado, { ...ambos, cantidadEnStock: 3 }, { ...deOtra, cantidadEnStock: 4 }, suelto],
      bodegaId: String(id),
      totalProductos: 4,
    });
    expect((await stack.request('GET', `/api/bodegas/${id}`)).body.ocupacion).toBe(7);
    expect((await stack.request('GET', `/api/bodegas/${id}/existencias`)).body.existencias).toHaveLength(3);
  });

  test('stock alone holds it too; force=true writes the stock out with the delete and reports every affected product once', async () => {
    const id = await crearBodega(stack);
    const otra = await crearBodega(stack);
    // Created with no units: what they hold is what the test assigns (docs/contract.md §10.6).
    const soloStock = await crearProducto(stack, { bodegaId: otra, cantidadEnStock: 0 });
    await asignar(id, soloStock.id, 1);
    const soloConStock = await stack.request('DELETE', `/api/bodegas/${id}`);
    expect(soloConStock.status).toBe(409);
    expect(soloConStock.body).toMatchObject({ productos: [{ ...soloStock, cantidadEnStock: 1 }], totalProductos: 1 });
    await stack.request('DELETE', `/api/bodegas/${id}/productos/${soloStock.id}`);

    const id2 = await crearBodega(stack);
    const asignado = await crearProducto(stack, { bodegaId: id2, cantidadEnStock: 0 });
    const ambos = await crearProducto(stack, { bodegaId: id2, cantidadEnStock: 0 });
    await asignar(id2, soloStock.id, 5);
    await asignar(id2, ambos.id, 2);
    const refused = await stack.request('DELETE', `/api/bodegas/${id2}?force=false`);
    expect(refused.status).toBe(409);
    expect(refused.body.totalProductos).toBe(3);

    const key = `force-stock-${Date.now()}`;
    const res = await stack.request('DELETE', `/api/bodegas/${id2}?force=true`, {
      headers: { 'idempotency-key': key },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      mensaje: 'Bodega eliminada exitosamente',
      bodegaId: String(id2),
      productosAfectados: 3,
      detalleProductos: [
        // Stocked there, assigned elsewhere: it keeps its warehouse.
        soloStock,
        { ...asignado, bodegaId: null, fechaActualizacion: expect.any(String), version: 2 },
        { ...ambos, bodegaId: null, fechaActualizacion: expect.any(String), version: 2 },
      ],
      advertencia: expect.stringContaining('se retiraron 7 unidad(es) de 2 existencia(s)'),
      existenciasRetiradas: 2,
      unidadesRetiradas: 7,
    });
    expect((await stack.request('GET', `/api/bodegas/${id2}`)).status).toBe(404);
    const lineas = await stack.request('GET', `/api/movimientos?bodegaId=${id2}&limit=10`);
    expect((lineas.body.movimientos as unknown[]).slice(0, 2)).toEqual([
      expect.objectContaining({ tipo: 'SALIDA', motivo: 'BODEGA_ELIMINADA' }),
      expect.objectContaining({ tipo: 'SALIDA', motivo: 'BODEGA_ELIMINADA' }),
    ]);
    expect((await stack.request('GET', `/api/productos/${soloStock.id}/existencias`)).body).toEqual({
      productoId: soloStock.id,
      total: 0,
      porBodega: [],
      sinUbicar: 0,
    });
    expect((await verificarExistencias(stack)).body.consistente).toBe(true);

    // A keyed repeat replays both steps and answers the same report.
    const repeat = await stack.request('DELETE', `/api/bodegas/${id2}?force=true`, {
      headers: { 'idempotency-key': key },
    });
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(res.body);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
  });
});
