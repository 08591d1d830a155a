/**
 * DELETE /api/bodegas/{id}: the spec's warehouse deletion rules and
 * ARCHITECTURE §6, across the real producto-svc and bodega-svc.
 */
import { crearBodega, crearProducto } from './support/rest-fixtures';
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
  const a = await crearProducto(stack, { bodegaId: id });
  const b = await crearProducto(stack, { bodegaId: id });

  const res = await stack.request('DELETE', `/api/bodegas/${id}`);
  expect(res.status).toBe(409);
  expect(res.body).toEqual({
    error: 'BODEGA_CON_PRODUCTOS',
    mensaje: expect.stringContaining('force=true'),
    productos: [a, b],
    bodegaId: String(id),
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
  const a = await crearProducto(stack, { bodegaId: id });
  const b = await crearProducto(stack, { bodegaId: id });
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
  });

  expect((await stack.request('GET', `/api/bodegas/${id}`)).status).toBe(404);
  for (const p of [a, b]) {
    const now = await stack.request('GET', `/api/productos/${p.id}`);
    expect(now.status).toBe(200);
    expect(now.body.bodegaId).toBeNull();
  }
  expect((await stack.request('GET', `/api/productos/${elsewhere.id}`)).status).toBe(200);

  expect(await eventsOf(`/bodegas/${id}`)).toEqual(['Service.Inventario.BodegaCreada', 'Service.Inventario.BodegaEliminada']);
  expect(await eventsOf(`/productos/${a.id}`)).toEqual(['Service.Inventario.ProductoCreado', 'Service.Inventario.ProductoActualizado']);
  const eliminada = (await stack.settledEvents()).find((e) => e.body.subject === `/bodegas/${id}` && e.body.eventType.endsWith('BodegaEliminada'));
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
  expect(await eventsOf(`/bodegas/${id}`)).toEqual(['Service.Inventario.BodegaCreada', 'Service.Inventario.BodegaEliminada']);
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
