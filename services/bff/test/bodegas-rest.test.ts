/**
 * /api/bodegas end to end (docs/contract.md §2), except the safe delete
 * (safe-delete.test.ts): the BFF over the real services.
 */
import { MENSAJES } from '../src/http/rest-fields';
import { FIELD_MENSAJES } from '@inventario/platform';
import { crearBodega, crearProducto, uniqueNombre } from '@inventario/testkit';
import { startTestStack, type TestStack } from './support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('bff_bodegas');
});

afterAll(async () => {
  await stack?.close();
});

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

describe('POST /api/bodegas', () => {
  test('creates the warehouse: 201 {mensaje, id} and a Location header', async () => {
    const nombre = uniqueNombre('Central');
    const res = await stack.request('POST', '/api/bodegas', { body: { nombre, ubicacion: 'Madrid', capacidad: 1000 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ mensaje: expect.any(String), id: expect.any(Number) });
    expect(res.headers.get('location')).toBe(`/api/bodegas/${res.body.id}`);

    const read = await stack.request('GET', `/api/bodegas/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      id: res.body.id,
      nombre,
      ubicacion: 'Madrid',
      capacidad: 1000,
      ocupacion: 0,
      fechaCreacion: expect.stringMatching(TIMESTAMP),
      fechaActualizacion: expect.stringMatching(TIMESTAMP),
      version: 1,
    });
    expect(read.body.fechaActualizacion).toBe(read.body.fechaCreacion);
  });

  test('the /api/v1 alias answers a /api/v1 Location; ubicacion is optional', async () => {
    const res = await stack.request('POST', '/api/v1/bodegas', {
      body: { nombre: uniqueNombre('Sin sitio'), capacidad: 0 },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/bodegas/${res.body.id}`);
    expect((await stack.request('GET', `/api/v1/bodegas/${res.body.id}`)).body.ubicacion).toBeNull();
  });

  test('a name already taken, in any case or accent, is 409 and creates nothing', async () => {
    const nombre = uniqueNombre('Almacén Sur');
    await crearBodega(stack, { nombre });
    const before = ((await stack.request('GET', '/api/bodegas')).body as unknown[]).length;
    const res = await stack.request('POST', '/api/bodegas', {
      body: { nombre: nombre.toUpperCase().replace('É', 'E'), capacidad: 1 },
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'ALREADY_EXISTS', mensaje: expect.any(String) });
    expect((await stack.request('GET', '/api/bodegas')).body).toHaveLength(before);
  });

  test.each([
    ['nombre missing', { capacidad: 1 }, 'nombre', 'es obligatorio'],
    ['nombre blank', { nombre: ' ', capacidad: 1 }, 'nombre', 'no puede estar en blanco'],
    [
      'nombre over 255 characters',
      { nombre: '🍎'.repeat(256), capacidad: 1 },
      'nombre',
      'no puede superar 255 caracteres',
    ],
    ['nombre not text', { nombre: ['a'], capacidad: 1 }, 'nombre', 'debe ser texto'],
    [
      'ubicacion over 255 characters',
      { nombre: 'x', ubicacion: 'u'.repeat(256), capacidad: 1 },
      'ubicacion',
      'no puede superar 255 caracteres',
    ],
    ['ubicacion not text', { nombre: 'x', ubicacion: 7, capacidad: 1 }, 'ubicacion', 'debe ser texto'],
    ['capacidad missing', { nombre: 'x' }, 'capacidad', 'es obligatorio'],
    ['capacidad negative', { nombre: 'x', capacidad: -1 }, 'capacidad', 'no puede ser negativo'],
    ['capacidad fractional', { nombre: 'x', capacidad: 2.5 }, 'capacidad', 'debe ser un número entero'],
    ['capacidad as a string', { nombre: 'x', capacidad: '10' }, 'capacidad', 'debe ser un número'],
    ['an unknown field', { nombre: 'x', capacidad: 1, direccion: 'y' }, 'direccion', 'no es un campo admitido'],
  ])('%s: 400 naming the field', async (_case, body, campo, mensaje) => {
    const res = await stack.request('POST', '/api/bodegas', { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'VALIDATION_ERROR',
      mensaje: expect.any(String),
      detalles: [{ campo, mensaje }],
    });
  });

  test('255 characters (not UTF-16 units) is the limit of nombre', async () => {
    const res = await stack.request('POST', '/api/bodegas', {
      body: { nombre: `${'🍎'.repeat(250)}${Date.now().toString(36).slice(-5)}`, capacidad: 1 },
    });
    expect(res.status).toBe(201);
  });
});

describe('GET /api/bodegas', () => {
  test('lists every warehouse in REST form', async () => {
    const id = await crearBodega(stack, { ubicacion: null });
    const res = await stack.request('GET', '/api/bodegas');
    expect(res.status).toBe(200);
    expect(res.body).toContainEqual({
      id,
      nombre: expect.any(String),
      ubicacion: null,
      capacidad: 100,
      ocupacion: 0,
      fechaCreacion: expect.stringMatching(TIMESTAMP),
      fechaActualizacion: expect.stringMatching(TIMESTAMP),
      version: 1,
    });
  });

  test('an unknown id is 404 and a malformed one 400', async () => {
    expect((await stack.request('GET', '/api/bodegas/999999')).status).toBe(404);
    for (const id of ['x1', '%zz', '%e2%82']) {
      const bad = await stack.request('GET', `/api/bodegas/${id}`);
      expect(bad.status).toBe(400);
      expect(bad.body.detalles).toEqual([{ campo: 'id', mensaje: expect.any(String) }]);
    }
  });
});

describe('GET /api/bodegas/{id}/productos', () => {
  test('lists {id, nombre, cantidad, precio} of the products it holds, and only those', async () => {
    const id = await crearBodega(stack);
    const otra = await crearBodega(stack);
    const a = await crearProducto(stack, { bodegaId: id, cantidadEnStock: 7, precio: 3.5 });
    const b = await crearProducto(stack, { bodegaId: id, cantidadEnStock: 0, precio: 100 });
    await crearProducto(stack, { bodegaId: otra });

    const res = await stack.request('GET', `/api/bodegas/${id}/productos`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: a.id, nombre: a.nombre, cantidad: 7, precio: 3.5 },
      { id: b.id, nombre: b.nombre, cantidad: 0, precio: 100 },
    ]);
    expect(res.text).toContain('"precio":3.50');
  });

  test('stocked there but assigned elsewhere counts its units there, each product once, by id (bodega-svc merges)', async () => {
    const id = await crearBodega(stack, { capacidad: 100 });
    const otra = await crearBodega(stack, { capacidad: 100 });
    const a = await crearProducto(stack, { bodegaId: id, cantidadEnStock: 7, precio: 1 });
    const c = await crearProducto(stack, { bodegaId: otra, cantidadEnStock: 0, precio: 2 });
    const stocked = await stack.request('POST', `/api/bodegas/${id}/productos`, {
      body: { productoId: c.id, cantidad: 4 },
    });
    expect(stocked.status).toBe(200);
    const res = await stack.request('GET', `/api/bodegas/${id}/productos`);
    expect(res.body).toEqual([
      { id: a.id, nombre: a.nombre, cantidad: 7, precio: 1 },
      { id: c.id, nombre: c.nombre, cantidad: 4, precio: 2 },
    ]);
    // Still assigned to the other warehouse, whose list shows it too, with its ledger total.
    expect((await stack.request('GET', `/api/bodegas/${otra}/productos`)).body).toEqual([
      { id: c.id, nombre: c.nombre, cantidad: 4, precio: 2 },
    ]);
  });

  test('an empty warehouse lists nothing; an unknown one is 404', async () => {
    const id = await crearBodega(stack);
    expect((await stack.request('GET', `/api/bodegas/${id}/productos`)).body).toEqual([]);
    const missing = await stack.request('GET', '/api/v1/bodegas/999999/productos');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('NOT_FOUND');
  });
});

describe('PUT /api/bodegas/{id}', () => {
  test('is partial: 200 {mensaje}; absent fields keep their value, null clears ubicacion', async () => {
    const nombre = uniqueNombre('Parcial');
    const id = await crearBodega(stack, { nombre, ubicacion: 'Sevilla', capacidad: 40 });
    const res = await stack.request('PUT', `/api/bodegas/${id}`, { body: { capacidad: 45 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ mensaje: expect.any(String) });
    expect((await stack.request('GET', `/api/bodegas/${id}`)).body).toMatchObject({
      nombre,
      ubicacion: 'Sevilla',
      capacidad: 45,
    });

    await stack.request('PUT', `/api/v1/bodegas/${id}`, { body: { ubicacion: null, id: 1, fechaActualizacion: 'x' } });
    expect((await stack.request('GET', `/api/bodegas/${id}`)).body).toMatchObject({
      nombre,
      ubicacion: null,
      capacidad: 45,
    });
  });

  test('no updatable field is 400; an invalid one is 400 naming it; an unknown id is 404; a taken name is 409', async () => {
    const taken = uniqueNombre('Ocupado');
    await crearBodega(stack, { nombre: taken });
    const id = await crearBodega(stack);

    const empty = await stack.request('PUT', `/api/bodegas/${id}`, { body: { id } });
    expect(empty.status).toBe(400);
    expect(empty.body.detalles[0].campo).toBe('cuerpo');

    const invalid = await stack.request('PUT', `/api/bodegas/${id}`, { body: { capacidad: -5 } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.detalles).toEqual([{ campo: 'capacidad', mensaje: 'no puede ser negativo' }]);

    const nulls = await stack.request('PUT', `/api/bodegas/${id}`, { body: { nombre: null, capacidad: null } });
    expect(nulls.status).toBe(400);
    expect(nulls.body.detalles).toEqual([
      { campo: 'nombre', mensaje: MENSAJES.noNulo },
      { campo: 'capacidad', mensaje: MENSAJES.noNulo },
    ]);

    const surrogate = await stack.request('PUT', `/api/bodegas/${id}`, { body: { ubicacion: 'Nave \udc00' } });
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.detalles).toEqual([{ campo: 'ubicacion', mensaje: FIELD_MENSAJES.malFormado }]);

    expect((await stack.request('PUT', '/api/bodegas/999999', { body: { capacidad: 1 } })).status).toBe(404);

    const duplicate = await stack.request('PUT', `/api/bodegas/${id}`, { body: { nombre: taken } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error).toBe('ALREADY_EXISTS');
  });
});

describe('events', () => {
  test('warehouse writes publish events carrying the Basic-auth user', async () => {
    const id = await crearBodega(stack);
    await stack.request('PUT', `/api/bodegas/${id}`, { body: { capacidad: 1 } });
    const events = (await stack.settledEvents()).filter((e) => e.body.subject === `/bodegas/${id}`);
    expect(events.map((e) => e.body.eventType)).toEqual([
      'Service.Inventario.BodegaCreada',
      'Service.Inventario.BodegaActualizada',
    ]);
    for (const e of events) expect(e.body.data.usuario).toBe('tester');
  });
});
