/**
 * Contract test: drives every operation of the OpenAPI document against the
 * real stack (both gRPC services, the BFF, MariaDB, NATS) through its success
 * and the error statuses a client can provoke, and checks each real response
 * against the document. The last tests require that every documented
 * operation and status was seen here (or in openapi-failures.test.ts, which
 * provokes 429, 503 and 504 on every route), so docs without a route, or a
 * status nobody can produce, fail. Routes without docs are caught by the
 * route-table test in openapi-document.unit.test.ts.
 */
import { request as httpRequest } from 'node:http';
import { MAX_BODY_BYTES } from '../src/http/http-errors';
import { openApiDocument } from '../src/openapi/document';
import { createOpenApiValidator, operationKey, type DocumentedOperation } from './support/openapi-validator';
import { IDENTIDAD_ROUTES } from '../src/openapi/identidad-routes';
import {
  basicAuth,
  startTestStack,
  type StackRequestOptions,
  type StackResponse,
  type TestStack,
} from './support/stack';

const validator = createOpenApiValidator();
let stack: TestStack;

beforeAll(async () => {
  // Wrong credentials are sent once per documented operation: more than the default failed-authentication limit.
  stack = await startTestStack('openapi', { env: { AUTH_FAILURES_PER_15_MIN: '1000' } });
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

/** One request; its response must match the document and have the expected status. */
async function call(
  method: string,
  path: string,
  status: number,
  options?: StackRequestOptions,
): Promise<StackResponse> {
  const res = await stack.request(method, path, options);
  validator.assertResponse({ method, path, status: res.status, headers: res.headers, body: res.body, text: res.text });
  if (res.status !== status)
    throw new Error(`${method} ${path}: expected ${status}, got ${res.status} ${res.text.slice(0, 500)}`);
  return res;
}

/** A request the document describes: its JSON body must match the documented requestBody. */
async function callWithBody(method: string, path: string, status: number, body: unknown): Promise<StackResponse> {
  expect(validator.requestBodyProblems(method, path, body)).toEqual([]);
  return call(method, path, status, { body });
}

/** A body the document says is invalid, which the BFF must also refuse with 400. */
async function callWithInvalidBody(method: string, path: string, body: unknown): Promise<StackResponse> {
  expect(validator.requestBodyProblems(method, path, body)).not.toEqual([]);
  return call(method, path, 400, { body });
}

/** The ids of a JSON list of resources. */
const idsOf = (list: unknown) => (list as { id: number }[]).map((item) => item.id);
/** The fields a 400 body names, sorted. */
const camposOf = (error: unknown) => (error as { detalles: { campo: string }[] }).detalles.map((d) => d.campo).sort();

let seq = 0;
const unique = (name: string) => `${name} ${Date.now().toString(36)}-${++seq}`;
const MISSING_ID = 4_000_000_000;

async function crearBodega(nombre = unique('Bodega')): Promise<number> {
  const res = await callWithBody('POST', '/api/bodegas', 201, {
    nombre,
    ubicacion: 'Calle Mayor 10, Madrid',
    capacidad: 1000,
  });
  return res.body.id as number;
}

async function crearProducto(bodegaId: number | null): Promise<{ id: number }> {
  const res = await callWithBody('POST', '/api/productos', 201, {
    nombre: unique('Tornillo M6'),
    descripcion: 'Caja de 100',
    precio: 19.9,
    cantidadEnStock: 500,
    bodegaId,
  });
  return res.body as { id: number };
}

/** The body routes: their concrete paths need existing ids, filled in by the test. */
function bodyRoutes(ids: { producto: number; bodega: number }) {
  return [
    ['POST', '/api/productos'],
    ['PUT', `/api/productos/${ids.producto}`],
    ['POST', '/api/bodegas'],
    ['PUT', `/api/bodegas/${ids.bodega}`],
    ['POST', `/api/bodegas/${ids.bodega}/productos`],
    ['POST', `/api/bodegas/${ids.bodega}/movimientos`],
    ['PATCH', `/api/bodegas/${ids.bodega}/existencias/${ids.producto}`],
    ['POST', '/api/transferencias'],
    ['POST', '/api/operaciones/1/reverso'],
    ['POST', '/api/graphql'],
  ] as const;
}

describe('bodegas', () => {
  it('POST /api/bodegas creates one (201, Location) and refuses a duplicate name (409) or invalid fields (400)', async () => {
    const nombre = unique('Bodega Central');
    const created = await callWithBody('POST', '/api/bodegas', 201, { nombre, ubicacion: null, capacidad: 10 });
    expect(created.headers.get('location')).toBe(`/api/bodegas/${created.body.id}`);
    const viaAlias = await callWithBody('POST', '/api/v1/bodegas', 201, {
      nombre: unique('Bodega Norte'),
      capacidad: 0,
    });
    expect(viaAlias.headers.get('location')).toBe(`/api/v1/bodegas/${viaAlias.body.id}`);

    await call('POST', '/api/bodegas', 409, { body: { nombre, capacidad: 5 } });
    const invalid = await callWithInvalidBody('POST', '/api/bodegas', { nombre: '', capacidad: -1, color: 'rojo' });
    expect(camposOf(invalid.body)).toEqual(['capacidad', 'color', 'nombre']);
    await call('POST', '/api/bodegas', 400, { rawBody: '{"nombre": "Sur",' });
    await call('POST', '/api/bodegas', 400);
  });

  it('GET /api/bodegas lists them and GET /api/bodegas/{id} reads one, 404 when unknown, 400 when the id is not a positive integer', async () => {
    const id = await crearBodega();
    const list = await call('GET', '/api/bodegas', 200);
    expect(idsOf(list.body)).toContain(id);
    expect((await call('GET', `/api/bodegas/${id}`, 200)).body.id).toBe(id);
    await call('GET', `/api/bodegas/${MISSING_ID}`, 404);
    await call('GET', '/api/bodegas/abc', 400);
    await call('GET', '/api/bodegas/0', 400);
  });

  it('PUT /api/bodegas/{id} updates (200 {mensaje}); 400 without an updatable field, 404 unknown, 409 when renaming onto another name', async () => {
    const id = await crearBodega();
    const otra = unique('Bodega Otra');
    await crearBodega(otra);
    await callWithBody('PUT', `/api/bodegas/${id}`, 200, { capacidad: 1500, id: 999 });
    expect((await call('GET', `/api/bodegas/${id}`, 200)).body.capacidad).toBe(1500);
    await callWithInvalidBody('PUT', `/api/bodegas/${id}`, {});
    await callWithInvalidBody('PUT', `/api/bodegas/${id}`, { capacidad: 'mucha' });
    await call('PUT', `/api/bodegas/${MISSING_ID}`, 404, { body: { capacidad: 1 } });
    await call('PUT', '/api/bodegas/-3', 400, { body: { capacidad: 1 } });
    await call('PUT', `/api/bodegas/${id}`, 409, { body: { nombre: otra } });
  });

  it('GET /api/bodegas/{id}/productos lists what it holds; 404 for an unknown warehouse, 400 for a bad id', async () => {
    const id = await crearBodega();
    const producto = await crearProducto(id);
    const res = await call('GET', `/api/bodegas/${id}/productos`, 200);
    expect(res.body).toEqual([expect.objectContaining({ id: producto.id, cantidad: 500, precio: 19.9 })]);
    await call('GET', `/api/bodegas/${MISSING_ID}/productos`, 404);
    await call('GET', '/api/bodegas/1.5/productos', 400);
  });

  it('DELETE /api/bodegas/{id}: 409 with its products, 200 with force=true, 204 when empty, 404 unknown, 400 bad id or force', async () => {
    const llena = await crearBodega();
    const producto = await crearProducto(llena);
    const conflict = await call('DELETE', `/api/bodegas/${llena}`, 409);
    expect(conflict.body).toMatchObject({
      bodegaId: String(llena),
      productos: [expect.objectContaining({ id: producto.id })],
    });
    await call('DELETE', `/api/bodegas/${llena}?force=quizas`, 400);
    const forced = await call('DELETE', `/api/bodegas/${llena}?force=true`, 200);
    expect(forced.body).toMatchObject({ bodegaId: String(llena), productosAfectados: 1 });
    expect((await call('GET', `/api/productos/${producto.id}`, 200)).body.bodegaId).toBeNull();

    const vacia = await crearBodega();
    await call('DELETE', `/api/bodegas/${vacia}`, 204);
    await call('DELETE', `/api/bodegas/${vacia}`, 404);
    await call('DELETE', '/api/bodegas/x', 400);
  });
});

describe('productos', () => {
  it('POST /api/productos creates one (201, the product, Location); 400 for invalid fields, an unknown bodegaId or malformed JSON', async () => {
    const bodegaId = await crearBodega();
    const body = { nombre: 'Martillo', descripcion: null, precio: 12.5, cantidadEnStock: 40, bodegaId };
    const created = await callWithBody('POST', '/api/productos', 201, body);
    expect(created.body).toMatchObject(body);
    expect(created.headers.get('location')).toBe(`/api/productos/${created.body.id}`);

    const invalid = await callWithInvalidBody('POST', '/api/productos', {
      nombre: 'x',
      precio: 1.999,
      cantidadEnStock: -2,
    });
    expect(camposOf(invalid.body)).toEqual(['cantidadEnStock', 'precio']);
    const unknownBodega = await call('POST', '/api/productos', 400, { body: { ...body, bodegaId: MISSING_ID } });
    expect(unknownBodega.body.detalles).toEqual([expect.objectContaining({ campo: 'bodegaId' })]);
    await call('POST', '/api/productos', 400, { rawBody: '[1, 2' });
  });

  it('GET /api/productos lists all of them, or a page, filtered by bodegaId and q; 400 for a bad parameter', async () => {
    const bodegaId = await crearBodega();
    const uno = await crearProducto(bodegaId);
    const dos = await crearProducto(bodegaId);
    const all = await call('GET', '/api/productos', 200);
    expect(idsOf(all.body)).toEqual(expect.arrayContaining([uno.id, dos.id]));
    const page = await call('GET', `/api/productos?bodegaId=${bodegaId}&limit=1&offset=1`, 200);
    expect(idsOf(page.body)).toEqual([dos.id]);
    expect(idsOf((await call('GET', '/api/productos?q=tornillo&limit=1000', 200)).body).length).toBeGreaterThan(0);
    await call('GET', '/api/productos?limit=0', 400);
    await call('GET', '/api/productos?offset=-1', 400);
  });

  it('GET /api/productos/{id} reads one; 404 unknown, 400 bad id', async () => {
    const { id } = await crearProducto(null);
    expect((await call('GET', `/api/productos/${id}`, 200)).body.id).toBe(id);
    await call('GET', `/api/productos/${MISSING_ID}`, 404);
    await call('GET', '/api/productos/99999999999', 400);
  });

  it('PUT /api/productos/{id} updates the fields present (200); 400 without an updatable field, 404 unknown', async () => {
    const { id } = await crearProducto(null);
    const updated = await callWithBody('PUT', `/api/productos/${id}`, 200, { precio: 21.5, fechaCreacion: 'ignorada' });
    expect(updated.body).toMatchObject({ id, precio: 21.5, cantidadEnStock: 500 });
    await callWithInvalidBody('PUT', `/api/productos/${id}`, {});
    // Read-only fields only: valid for the schema (minProperties), refused as its description says.
    expect((await call('PUT', `/api/productos/${id}`, 400, { body: { id: 5 } })).body).toMatchObject({
      detalles: [{ campo: 'cuerpo' }],
    });
    await callWithInvalidBody('PUT', `/api/productos/${id}`, { nombre: ' ' });
    await call('PUT', `/api/productos/${MISSING_ID}`, 404, { body: { precio: 1 } });
    await call('PUT', '/api/productos/abc', 400, { body: { precio: 1 } });
  });

  it('DELETE /api/productos/{id} deletes (204); 404 unknown, 400 bad id', async () => {
    const { id } = await crearProducto(null);
    await call('DELETE', `/api/productos/${id}`, 204);
    await call('DELETE', `/api/productos/${id}`, 404);
    await call('DELETE', '/api/productos/1e3', 400);
  });
});

describe('safe writes (versions, If-Match, If-None-Match, Idempotency-Key)', () => {
  const key = () => `clave-${unique('k').replace(/\s/g, '-')}`;

  it('products: ETag and 304 on GET, 412 on a stale If-Match, 201/200/204 replays, 422 on a reused key', async () => {
    const { id } = await crearProducto(null);
    const read = await call('GET', `/api/productos/${id}`, 200);
    expect(read.headers.get('etag')).toBe('"1"');
    await call('GET', `/api/productos/${id}`, 304, { headers: { 'if-none-match': '"1"' } });

    const updated = await call('PUT', `/api/productos/${id}`, 200, {
      body: { precio: 20 },
      headers: { 'if-match': '"1"' },
    });
    expect(updated.headers.get('etag')).toBe('"2"');
    const stale = await call('PUT', `/api/productos/${id}`, 412, {
      body: { precio: 21 },
      headers: { 'if-match': '"1"' },
    });
    expect(stale.body).toMatchObject({ error: 'PRECONDITION_FAILED', versionActual: 2 });
    await call('DELETE', `/api/productos/${id}`, 412, { headers: { 'if-match': '"1"' } });

    const k = key();
    const body = { nombre: unique('Clave'), precio: 1, cantidadEnStock: 1 };
    const first = await call('POST', '/api/productos', 201, { body, headers: { 'idempotency-key': k } });
    const again = await call('POST', '/api/productos', 201, { body, headers: { 'idempotency-key': k } });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    await call('POST', '/api/productos', 422, { body: { ...body, precio: 2 }, headers: { 'idempotency-key': k } });

    const pk = key();
    await call('PUT', `/api/productos/${id}`, 200, { body: { precio: 22 }, headers: { 'idempotency-key': pk } });
    await call('PUT', `/api/productos/${id}`, 200, { body: { precio: 22 }, headers: { 'idempotency-key': pk } });
    await call('PUT', `/api/productos/${id}`, 422, { body: { precio: 23 }, headers: { 'idempotency-key': pk } });
    const dk = key();
    await call('DELETE', `/api/productos/${id}`, 204, { headers: { 'idempotency-key': dk } });
    const replayed = await call('DELETE', `/api/productos/${id}`, 204, { headers: { 'idempotency-key': dk } });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    await call('DELETE', `/api/productos/${first.body.id}`, 422, { headers: { 'idempotency-key': dk } });
  });

  it('warehouses: ETag and 304 on GET, 412 on a stale If-Match, replays, 422 on a reused key', async () => {
    const id = await crearBodega();
    const read = await call('GET', `/api/bodegas/${id}`, 200);
    expect(read.headers.get('etag')).toBe('"1.0"');
    await call('GET', `/api/bodegas/${id}`, 304, { headers: { 'if-none-match': '"1.0"' } });
    await call('PUT', `/api/bodegas/${id}`, 200, { body: { capacidad: 5 }, headers: { 'if-match': '"1.0"' } });
    await call('PUT', `/api/bodegas/${id}`, 412, { body: { capacidad: 6 }, headers: { 'if-match': '"1"' } });
    await call('DELETE', `/api/bodegas/${id}`, 412, { headers: { 'if-match': '"1"' } });

    const k = key();
    const body = { nombre: unique('Bodega Clave'), capacidad: 10 };
    await call('POST', '/api/bodegas', 201, { body, headers: { 'idempotency-key': k } });
    const again = await call('POST', '/api/bodegas', 201, { body, headers: { 'idempotency-key': k } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    await call('POST', '/api/bodegas', 422, { body: { ...body, capacidad: 11 }, headers: { 'idempotency-key': k } });
    const pk = key();
    await call('PUT', `/api/bodegas/${id}`, 200, { body: { capacidad: 7 }, headers: { 'idempotency-key': pk } });
    await call('PUT', `/api/bodegas/${id}`, 422, { body: { capacidad: 8 }, headers: { 'idempotency-key': pk } });
    const dk = key();
    await call('DELETE', `/api/bodegas/${id}`, 204, { headers: { 'idempotency-key': dk } });
    await call('DELETE', `/api/bodegas/${id}`, 204, { headers: { 'idempotency-key': dk } });
    await call('DELETE', `/api/bodegas/${again.body.id}`, 422, { headers: { 'idempotency-key': dk } });
  });
});

describe('existencias (docs/contract.md §10.2)', () => {
  const key = () => `clave-${unique('stock').replace(/\s/g, '-')}`;

  it('POST /api/bodegas/{id}/productos sets the units (200, ETag); 400, 404, 409 over capacity, 412 stale If-Match, 428 without it on an existing level, 422 reused key', async () => {
    const bodegaId = await crearBodega();
    const { id: productoId } = await crearProducto(null);
    const res = await callWithBody('POST', `/api/bodegas/${bodegaId}/productos`, 200, {
      productoId,
      cantidad: 10,
      umbralMinimo: 2,
    });
    expect(res.headers.get('etag')).toBe('"1"');
    await callWithInvalidBody('POST', `/api/bodegas/${bodegaId}/productos`, { productoId, cantidad: -1 });
    await call('POST', `/api/bodegas/${bodegaId}/productos`, 404, { body: { productoId: MISSING_ID, cantidad: 1 } });
    await call('POST', `/api/bodegas/${MISSING_ID}/productos`, 404, { body: { productoId, cantidad: 1 } });
    const excedida = await call('POST', `/api/bodegas/${bodegaId}/productos`, 409, {
      body: { productoId, cantidad: 1001 },
      headers: { 'if-match': '"1"' },
    });
    expect(excedida.body).toMatchObject({
      error: 'CAPACIDAD_EXCEDIDA',
      capacidad: 1000,
      ocupacion: 10,
      solicitado: 991,
    });
    await call('POST', `/api/bodegas/${bodegaId}/productos`, 412, {
      body: { productoId, cantidad: 1 },
      headers: { 'if-match': '"7"' },
    });
    await call('POST', `/api/bodegas/${bodegaId}/productos`, 428, { body: { productoId, cantidad: 1 } });
    const k = key();
    await call('POST', `/api/bodegas/${bodegaId}/productos`, 200, {
      body: { productoId, cantidad: 3 },
      headers: { 'idempotency-key': k, 'if-match': '"1"' },
    });
    await call('POST', `/api/bodegas/${bodegaId}/productos`, 422, {
      body: { productoId, cantidad: 4 },
      headers: { 'idempotency-key': k, 'if-match': '"1"' },
    });
  });

  it('DELETE /api/bodegas/{id}/productos/{productoId} removes it (200); 400, 404, 412 stale If-Match, 422 reused key', async () => {
    const bodegaId = await crearBodega();
    // Created with no warehouse (its initial units are unlocated), so the assignment creates the level and needs no If-Match.
    const { id: productoId } = await crearProducto(null);
    await call('POST', `/api/bodegas/${bodegaId}/productos`, 200, { body: { productoId, cantidad: 2 } });
    await call('DELETE', `/api/bodegas/${bodegaId}/productos/${productoId}`, 412, { headers: { 'if-match': '"5"' } });
    const k = key();
    const res = await call('DELETE', `/api/bodegas/${bodegaId}/productos/${productoId}`, 200, {
      headers: { 'idempotency-key': k },
    });
    expect(res.body).toEqual({ mensaje: expect.any(String), productoId, bodegaId, cantidadRetirada: 2 });
    await call('DELETE', `/api/bodegas/${bodegaId}/productos/${productoId}`, 404);
    await call('DELETE', `/api/bodegas/${bodegaId}/productos/abc`, 400);
    const { id: otro } = await crearProducto(bodegaId);
    await call('DELETE', `/api/bodegas/${bodegaId}/productos/${otro}`, 422, { headers: { 'idempotency-key': k } });
  });

  it('the level reads: 200 (ETag), 304, 400, 404', async () => {
    const bodegaId = await crearBodega();
    const { id: productoId } = await crearProducto(null);
    await call('POST', `/api/bodegas/${bodegaId}/productos`, 200, { body: { productoId, cantidad: 4 } });
    const all = await call('GET', `/api/bodegas/${bodegaId}/existencias`, 200);
    expect(all.body).toMatchObject({
      bodegaId,
      capacidad: 1000,
      ocupacion: 4,
      existencias: [{ productoId, cantidad: 4 }],
    });
    await call('GET', `/api/bodegas/${MISSING_ID}/existencias`, 404);
    await call('GET', '/api/bodegas/x/existencias', 400);
    const one = await call('GET', `/api/bodegas/${bodegaId}/existencias/${productoId}`, 200);
    expect(one.headers.get('etag')).toBe('"1"');
    await call('GET', `/api/bodegas/${bodegaId}/existencias/${productoId}`, 304, {
      headers: { 'if-none-match': '"1"' },
    });
    await call('GET', `/api/bodegas/${bodegaId}/existencias/${MISSING_ID}`, 404);
    await call('GET', `/api/bodegas/${bodegaId}/existencias/0`, 400);
    expect((await call('GET', `/api/productos/${productoId}/existencias`, 200)).body).toMatchObject({
      productoId,
      total: 4,
    });
    await call('GET', `/api/productos/${MISSING_ID}/existencias`, 404);
    await call('GET', '/api/productos/-1/existencias', 400);
  });

  it('PATCH /api/bodegas/{id}/existencias/{productoId} changes only the threshold (200, ETag); 400, 404, 412 stale If-Match, 422 reused key', async () => {
    const bodegaId = await crearBodega();
    const { id: productoId } = await crearProducto(null);
    await call('POST', `/api/bodegas/${bodegaId}/productos`, 200, { body: { productoId, cantidad: 8 } });
    const path = `/api/bodegas/${bodegaId}/existencias/${productoId}`;
    const res = await callWithBody('PATCH', path, 200, { umbralMinimo: 10, version: 1 });
    expect([res.headers.get('etag'), res.body]).toEqual([
      '"2"',
      expect.objectContaining({ cantidad: 8, umbralMinimo: 10, version: 2 }),
    ]);
    expect(
      (await call('PATCH', path, 200, { body: { umbralMinimo: null }, headers: { 'if-match': '"2"' } })).body,
    ).toMatchObject({
      umbralMinimo: null,
      version: 3,
    });
    await callWithInvalidBody('PATCH', path, { umbralMinimo: 5, cantidad: 3 });
    await callWithInvalidBody('PATCH', path, { umbralMinimo: -1 });
    await callWithInvalidBody('PATCH', path, {});
    await call('PATCH', `/api/bodegas/${bodegaId}/existencias/x`, 400, { body: { umbralMinimo: 1 } });
    await call('PATCH', `/api/bodegas/${bodegaId}/existencias/${MISSING_ID}`, 404, { body: { umbralMinimo: 1 } });
    await call('PATCH', `/api/bodegas/${MISSING_ID}/existencias/${productoId}`, 404, { body: { umbralMinimo: 1 } });
    await call('PATCH', path, 412, { body: { umbralMinimo: 1 }, headers: { 'if-match': '"2"' } });
    const k = key();
    await call('PATCH', path, 200, { body: { umbralMinimo: 4 }, headers: { 'idempotency-key': k } });
    await call('PATCH', path, 422, { body: { umbralMinimo: 5 }, headers: { 'idempotency-key': k } });
    // No line: the level's history is still the one assignment.
    expect((await call('GET', `/api/movimientos?bodegaId=${bodegaId}`, 200)).body.movimientos).toHaveLength(1);
  });

  it('POST /api/bodegas/{id}/movimientos: 201, 400, 404, 409 with figures, 412, 422, 428', async () => {
    const bodegaId = await crearBodega();
    const { id: productoId } = await crearProducto(null);
    const path = `/api/bodegas/${bodegaId}/movimientos`;
    const entrada = await callWithBody('POST', path, 201, { productoId, tipo: 'ENTRADA', cantidad: 5 });
    expect(entrada.headers.get('location')).toBe(`/api/operaciones/${entrada.body.id}`);
    await callWithInvalidBody('POST', path, { productoId, tipo: 'TRANSFERENCIA', cantidad: 1 });
    await call('POST', `/api/bodegas/${MISSING_ID}/movimientos`, 404, {
      body: { productoId, tipo: 'ENTRADA', cantidad: 1 },
    });
    const salida = await call('POST', path, 409, { body: { productoId, tipo: 'SALIDA', cantidad: 6 } });
    expect(salida.body).toMatchObject({ error: 'STOCK_INSUFICIENTE', disponible: 5, solicitado: 6 });
    await call('POST', path, 428, { body: { productoId, tipo: 'AJUSTE', cantidad: 4 } });
    await call('POST', path, 412, {
      body: { productoId, tipo: 'AJUSTE', cantidad: 4 },
      headers: { 'if-match': '"9"' },
    });
    await call('POST', path, 201, {
      body: { productoId, tipo: 'AJUSTE', cantidad: 4 },
      headers: { 'if-match': '"1"' },
    });
    const k = key();
    await call('POST', path, 201, {
      body: { productoId, tipo: 'SALIDA', cantidad: 1 },
      headers: { 'idempotency-key': k },
    });
    await call('POST', path, 422, {
      body: { productoId, tipo: 'SALIDA', cantidad: 2 },
      headers: { 'idempotency-key': k },
    });
  });

  it('POST /api/transferencias: 201 with both lines, 400, 404, 409 with figures, 422', async () => {
    const [origenId, destinoId] = [await crearBodega(), await crearBodega()];
    const { id: productoId } = await crearProducto(null);
    await call('POST', `/api/bodegas/${origenId}/productos`, 200, { body: { productoId, cantidad: 5 } });
    const body = { productoId, origenId, destinoId, cantidad: 2 };
    const res = await callWithBody('POST', '/api/transferencias', 201, body);
    expect(res.body.movimientos).toHaveLength(2);
    const misma = await call('POST', '/api/transferencias', 400, { body: { ...body, destinoId: origenId } });
    expect(camposOf(misma.body)).toEqual(['destinoId']);
    await call('POST', '/api/transferencias', 404, { body: { ...body, destinoId: MISSING_ID } });
    await call('POST', '/api/transferencias', 409, { body: { ...body, cantidad: 4 } });
    const k = key();
    await call('POST', '/api/transferencias', 201, { body, headers: { 'idempotency-key': k } });
    await call('POST', '/api/transferencias', 422, {
      body: { ...body, cantidad: 1 },
      headers: { 'idempotency-key': k },
    });
  });

  it('operations: GET 200/400/404; POST reverso 201, 400, 404, 409 already reversed, 422', async () => {
    const bodegaId = await crearBodega();
    const { id: productoId } = await crearProducto(null);
    const entrada = await call('POST', `/api/bodegas/${bodegaId}/movimientos`, 201, {
      body: { productoId, tipo: 'ENTRADA', cantidad: 3 },
    });
    expect((await call('GET', `/api/operaciones/${entrada.body.id}`, 200)).body).toEqual(entrada.body);
    await call('GET', `/api/operaciones/${MISSING_ID}`, 404);
    await call('GET', '/api/operaciones/cero', 400);
    const reverso = await callWithBody('POST', `/api/operaciones/${entrada.body.id}/reverso`, 201, {
      comentario: 'Anulada',
    });
    expect(reverso.body).toMatchObject({ tipo: 'REVERSO', revierteA: entrada.body.id });
    const ya = await call('POST', `/api/operaciones/${entrada.body.id}/reverso`, 409);
    expect(ya.body.error).toBe('OPERACION_YA_REVERTIDA');
    await call('POST', `/api/operaciones/${MISSING_ID}/reverso`, 404);
    await callWithInvalidBody('POST', `/api/operaciones/${entrada.body.id}/reverso`, { comentario: 7 });
    const otra = await call('POST', `/api/bodegas/${bodegaId}/movimientos`, 201, {
      body: { productoId, tipo: 'ENTRADA', cantidad: 1 },
    });
    const k = key();
    await call('POST', `/api/operaciones/${otra.body.id}/reverso`, 201, { headers: { 'idempotency-key': k } });
    await call('POST', `/api/operaciones/${otra.body.id}/reverso`, 422, {
      body: { comentario: 'otra' },
      headers: { 'idempotency-key': k },
    });
  });

  it('GET /api/movimientos pages with a cursor, 400 for a bad parameter; GET /api/existencias/verificacion 200', async () => {
    const bodegaId = await crearBodega();
    const { id: productoId } = await crearProducto(null);
    for (const cantidad of [1, 2, 3])
      await call('POST', `/api/bodegas/${bodegaId}/movimientos`, 201, {
        body: { productoId, tipo: 'ENTRADA', cantidad },
      });
    const first = await call('GET', `/api/movimientos?bodegaId=${bodegaId}&limit=2`, 200);
    expect(first.body.siguienteCursor).toEqual(expect.any(String));
    const second = await call(
      'GET',
      `/api/movimientos?bodegaId=${bodegaId}&limit=2&cursor=${encodeURIComponent(first.body.siguienteCursor as string)}`,
      200,
    );
    expect(second.body).toMatchObject({ movimientos: [{ cantidad: 1 }], siguienteCursor: null });
    await call('GET', '/api/movimientos?desde=ayer', 400);
    expect((await call('GET', '/api/existencias/verificacion', 200)).body.consistente).toBe(true);
  });

  it('PUT /api/bodegas/{id} below the occupancy is 409 CAPACIDAD_INSUFICIENTE with its figures', async () => {
    const bodegaId = await crearBodega();
    const { id: productoId } = await crearProducto(null);
    await call('POST', `/api/bodegas/${bodegaId}/productos`, 200, { body: { productoId, cantidad: 6 } });
    const res = await call('PUT', `/api/bodegas/${bodegaId}`, 409, { body: { capacidad: 5 } });
    expect(res.body).toMatchObject({ error: 'CAPACIDAD_INSUFICIENTE', capacidad: 5, ocupacion: 6 });
  });
});

describe('graphql', () => {
  const query = '{ productos { id nombre precio cantidad } }';
  // GET runs only cheap documents (docs/contract.md §4.1): every list with a small first.
  const cheapQuery = '{ productos(first: 10) { id nombre precio cantidad } }';

  it('GET /api/graphql answers the info body, GraphiQL to a browser, a query result, and its protocol errors', async () => {
    const info = await call('GET', '/api/graphql', 200, { headers: { accept: 'application/json' } });
    expect(info.body).toMatchObject({ endpoint: '/api/graphql', ejemplo: { query: expect.any(String) } });
    const page = await call('GET', '/api/graphql', 200, { headers: { accept: 'text/html' } });
    expect(page.text).toMatch(/graphiql/i);
    await call('GET', `/api/graphql?query=${encodeURIComponent(cheapQuery)}`, 200, {
      headers: { accept: 'application/json' },
    });
    await call('GET', `/api/graphql?query=${encodeURIComponent(cheapQuery)}`, 200, {
      headers: { accept: 'application/graphql-response+json' },
    });
    const noJson = `/api/graphql?query=${encodeURIComponent(cheapQuery)}&variables=%7Bno-json`;
    await call('GET', noJson, 200, { headers: { accept: 'application/json' } });
    await call('GET', noJson, 400, { headers: { accept: 'application/graphql-response+json' } });
    await call('GET', `/api/graphql?query=${encodeURIComponent(cheapQuery)}`, 406, {
      headers: { accept: 'text/plain' },
    });
  });

  it('GET /api/graphql refuses a mutation with 405 and a JSON {errors} body (mutations only by POST)', async () => {
    const mutation = encodeURIComponent('mutation { eliminarProducto(id: "1") { success } }');
    const res = await call('GET', `/api/graphql?query=${mutation}`, 405, { headers: { accept: 'application/json' } });
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('POST /api/graphql answers data and GraphQL errors with 200 (application/json), 400 (graphql-response+json), 406/415 for requests that are not GraphQL over HTTP', async () => {
    const bodegaId = await crearBodega();
    const ok = await callWithBody('POST', '/api/graphql', 200, {
      query: 'query B($id: ID!) { bodega(id: $id) { id nombre } }',
      variables: { id: String(bodegaId) },
    });
    expect(ok.body.data.bodega.id).toBe(String(bodegaId));
    const invalid = await callWithBody('POST', '/api/graphql', 200, { query: '{ productos { peso } }' });
    expect(invalid.body.errors[0].extensions.classification).toBe('ValidationError');
    const sinQuery = { variables: {} };
    expect(validator.requestBodyProblems('POST', '/api/graphql', sinQuery)).not.toEqual([]);
    await call('POST', '/api/graphql', 200, { body: sinQuery, headers: { accept: 'application/json' } });
    await call('POST', '/api/graphql', 400, {
      body: sinQuery,
      headers: { accept: 'application/graphql-response+json' },
    });
    await call('POST', '/api/graphql', 200, { rawBody: '{"query": ' });
    await call('POST', '/api/graphql', 400, {
      rawBody: '{"query": ',
      headers: { accept: 'application/graphql-response+json' },
    });
    await call('POST', '/api/graphql', 406, { body: { query }, headers: { accept: 'text/plain' } });
    await call('POST', '/api/graphql', 415, { rawBody: query, headers: { 'content-type': 'application/graphql' } });
  });
});

describe('every route that reads a body', () => {
  it('answers 413 to a body over 1 MiB, 415 to a body that is not JSON or has an unknown Content-Encoding, 400 to one that does not decompress', async () => {
    const ids = { producto: (await crearProducto(null)).id, bodega: await crearBodega() };
    const tooLarge = JSON.stringify({ nombre: 'x'.repeat(MAX_BODY_BYTES) });
    for (const [method, path] of bodyRoutes(ids)) {
      await call(method, path, 413, { rawBody: tooLarge });
      await call(method, path, 415, {
        rawBody: 'nombre=Sur',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      await call(method, path, 415, { rawBody: '{"nombre":"Sur"}', headers: { 'content-encoding': 'compress' } });
      const notGzip = await call(method, path, 400, {
        rawBody: '{"nombre":"Sur"}',
        headers: { 'content-encoding': 'gzip' },
      });
      expect(notGzip.body.error).toBe('MALFORMED_JSON');
    }
  });
});

describe('authentication', () => {
  it('every authenticated operation answers 401 with the Basic challenge without credentials or with wrong ones', async () => {
    const concrete = (path: string) => path.replace(/\{[^}]+\}/g, '1');
    const authenticated = validator.operations().filter((o) => o.operation.security === undefined);
    expect(authenticated.length).toBeGreaterThan(10);
    for (const { method, path } of authenticated) {
      const missing = await call(method, concrete(path), 401, { auth: false });
      expect(missing.headers.get('www-authenticate')).toMatch(/^Basic realm="inventario"/);
      await call(method, concrete(path), 401, { auth: basicAuth('tester', 'wrong') });
    }
  });
});

describe('health probes', () => {
  it('answer without credentials: 200 UP while both services are up', async () => {
    const health = await call('GET', '/actuator/health', 200, { auth: false });
    expect(health.body).toMatchObject({
      status: 'UP',
      components: { productoSvc: { status: 'UP' }, bodegaSvc: { status: 'UP' } },
    });
    await call('GET', '/actuator/health/liveness', 200, { auth: false });
    await call('GET', '/actuator/health/readiness', 200, { auth: false });
  });

  it.each(['/actuator/health', '/actuator/health/liveness', '/actuator/health/readiness'])(
    '%s answers 413 to a declared body over 1 MiB (that check runs before the probes)',
    async (path) => {
      const res = await new Promise<{ status: number; headers: Record<string, string>; text: string }>(
        (resolve, reject) => {
          const req = httpRequest(
            `${stack.baseUrl}${path}`,
            { method: 'GET', headers: { 'content-length': String(MAX_BODY_BYTES + 1) } },
            (r) => {
              let text = '';
              r.setEncoding('utf8');
              r.on('data', (chunk: string) => (text += chunk));
              r.on('end', () =>
                resolve({ status: r.statusCode ?? 0, headers: r.headers as Record<string, string>, text }),
              );
            },
          );
          req.on('error', reject);
          req.flushHeaders();
        },
      );
      validator.assertResponse({
        method: 'GET',
        path,
        status: res.status,
        headers: res.headers,
        body: JSON.parse(res.text) as unknown,
        text: res.text,
      });
      expect(res.status).toBe(413);
    },
  );
});

describe('the documentation endpoints', () => {
  it('GET /api/openapi.json serves this document', async () => {
    const res = await call('GET', '/api/openapi.json', 200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });

  it('GET /api/v1/openapi.json and /api/v1/docs/ serve the same under the alias', async () => {
    const res = await call('GET', '/api/v1/openapi.json', 200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
    const page = await call('GET', '/api/v1/docs/', 200);
    expect(page.text).toContain('<div id="swagger-ui">');
  });

  it('GET /api/docs leads to the Swagger UI page, whose assets are served locally and which loads ../openapi.json', async () => {
    const redirect = await fetch(`${stack.baseUrl}/api/docs`, {
      headers: { authorization: stack.auth },
      redirect: 'manual',
    });
    const text = await redirect.text();
    validator.assertResponse({
      method: 'GET',
      path: '/api/docs',
      status: redirect.status,
      headers: redirect.headers,
      body: undefined,
      text,
    });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/api/docs/');
    expect(text).toMatch(/\/api\/docs\//);

    const page = await call('GET', '/api/docs/', 200);
    expect(page.text).toContain('<div id="swagger-ui">');
    const scripts = [...page.text.matchAll(/src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toEqual(['./swagger-ui-bundle.js', './swagger-ui-standalone-preset.js', './swagger-ui-init.js']);
    for (const script of scripts) {
      const asset = await stack.request('GET', `/api/docs/${script.slice(2)}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toMatch(/javascript/);
    }
    const init = await stack.request('GET', '/api/docs/swagger-ui-init.js');
    expect(init.text).toContain('"swaggerUrl": "../openapi.json"');
    // No online validator badge, which would ask swagger.io about the document.
    expect(init.text).toContain('"validatorUrl": null');
  });

  it('both answer 401 without credentials', async () => {
    await call('GET', '/api/openapi.json', 401, { auth: false });
    await call('GET', '/api/docs/', 401, { auth: false });
    expect((await stack.request('GET', '/api/docs/swagger-ui-bundle.js', { auth: false })).status).toBe(401);
  });
});

describe('the /api/v1 alias', () => {
  it('reaches every documented /api operation (none answers the unknown-route 404)', async () => {
    const unknown = await stack.request('GET', '/api/v1/no-existe');
    expect(unknown.status).toBe(404);
    const ids = { producto: (await crearProducto(null)).id, bodega: await crearBodega() };
    // A level and an operation to read: the product entered into the warehouse.
    const entrada = await call('POST', `/api/bodegas/${ids.bodega}/movimientos`, 201, {
      body: { productoId: ids.producto, tipo: 'ENTRADA', cantidad: 1 },
    });
    // A reservation of that unit, to read (docs/contract.md §13).
    const reserva = await call('POST', '/api/reservas', 201, {
      body: { referencia: unique('alias'), lineas: [{ bodegaId: ids.bodega, productoId: ids.producto, cantidad: 1 }] },
    });
    const idFor = (path: string) =>
      path.startsWith('/api/productos')
        ? ids.producto
        : path.startsWith('/api/operaciones')
          ? (entrada.body.id as number)
          : path.startsWith('/api/reservas')
            ? (reserva.body.id as number)
            : ids.bodega;
    const concrete = (path: string) =>
      path.replace('{id}', String(idFor(path))).replace('{productoId}', String(ids.producto));
    const malformed = (path: string) => path.replace(/\{[^}]+\}/g, '0');
    // The identity routes' ids are users and tokens; identity-routes.test.ts calls them (under /api/v1 too).
    for (const { method, path } of validator
      .operations()
      .filter((o) => o.path.startsWith('/api/') && !IDENTIDAD_PATHS.has(o.path))) {
      // Side-effect free: reads as they are, writes with a body or id the BFF refuses (400).
      const request = ((): [string, number, StackRequestOptions?] => {
        if (method === 'GET') return [concrete(path), 200, { headers: { accept: 'application/json' } }];
        if (method === 'DELETE') return [malformed(path), 400];
        if (path.endsWith('/graphql'))
          return [path, 400, { body: { variables: {} }, headers: { accept: 'application/graphql-response+json' } }];
        return [concrete(path), 400, { body: { noAdmitido: true } }];
      })();
      await call(method, `/api/v1${request[0].slice('/api'.length)}`, request[1], request[2]);
    }
  });
});

describe('with producto-svc down', () => {
  let bodegaId: number;
  let otraBodegaId: number;
  let productoId: number;

  beforeAll(async () => {
    bodegaId = await crearBodega();
    otraBodegaId = await crearBodega();
    // No units: bodega-svc has not seen it (an initial stock would have told it), so a stock write must ask producto-svc.
    productoId = (
      (
        await callWithBody('POST', '/api/productos', 201, {
          nombre: unique('Sin stock'),
          precio: 1,
          cantidadEnStock: 0,
        })
      ).body as { id: number }
    ).id;
    await stack.stopProductoSvc();
  }, 60_000);

  it('every operation that needs producto-svc answers 503 with Retry-After; bodega-only operations still work', async () => {
    const requests: [string, string, StackRequestOptions?][] = [
      ['GET', '/api/productos'],
      ['GET', `/api/productos/${productoId}`],
      ['POST', '/api/productos', { body: { nombre: 'Sierra', precio: 30, cantidadEnStock: 2 } }],
      ['PUT', `/api/productos/${productoId}`, { body: { precio: 31 } }],
      ['DELETE', `/api/productos/${productoId}`],
      ['GET', `/api/bodegas/${bodegaId}/productos`],
      ['DELETE', `/api/bodegas/${bodegaId}`],
      // bodega-svc asks producto-svc about a product it has not seen (by event, initial stock or an earlier question): one never created.
      ['POST', `/api/bodegas/${bodegaId}/productos`, { body: { productoId: MISSING_ID, cantidad: 1 } }],
      ['DELETE', `/api/bodegas/${bodegaId}/productos/${productoId}`],
      [
        'POST',
        `/api/bodegas/${bodegaId}/movimientos`,
        { body: { productoId: MISSING_ID, tipo: 'ENTRADA', cantidad: 1 } },
      ],
      [
        'POST',
        '/api/transferencias',
        { body: { productoId: MISSING_ID, origenId: bodegaId, destinoId: otraBodegaId, cantidad: 1 } },
      ],
      ['GET', `/api/productos/${productoId}/existencias`],
      // Last: the forced delete marks the warehouse before it needs producto-svc, and a marked warehouse refuses
      // stock writes (409 BODEGA_ELIMINANDOSE) until the delete is repeated (docs/operations.md).
      ['DELETE', `/api/bodegas/${bodegaId}?force=true`],
    ];
    for (const [method, path, options] of requests) {
      const res = await call(method, path, 503, options);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    await call('GET', `/api/bodegas/${bodegaId}`, 200);
  });

  it('health answers 503 DOWN naming productoSvc; liveness and readiness stay 200 (the BFF degrades per route)', async () => {
    const health = await call('GET', '/actuator/health', 503, { auth: false });
    expect(health.body).toMatchObject({
      status: 'DOWN',
      components: { productoSvc: { status: 'DOWN' }, bodegaSvc: { status: 'UP' } },
    });
    await call('GET', '/actuator/health/readiness', 200, { auth: false });
    await call('GET', '/actuator/health/liveness', 200, { auth: false });
  });
});

/**
 * Statuses this file does not provoke, and why. Everything else the
 * document lists must have been seen above.
 */
function notProvokedHere({ method, path }: DocumentedOperation, status: number): string | undefined {
  if (IDENTIDAD_PATHS.has(path))
    return 'an identity route: identity-routes.test.ts checks its answers against this document, with identidad-svc';
  if (status === 403)
    return 'needs a principal without the permission: identity-authorization.test.ts, with identidad-svc';
  if (status === 500) return 'needs an internal fault; the body shape is checked by the unit test';
  if (status === 503 && path === '/actuator/health/readiness') return 'only while the BFF shuts down';
  if (status === 429 || status === 504) return 'provoked on every route by openapi-failures.test.ts';
  if (path.startsWith('/api/reservas'))
    return 'the reservation routes: reservas-rest.test.ts checks their statuses against the document';
  const keyedOnly = [
    'POST /api/productos',
    'PUT /api/productos/{id}',
    'DELETE /api/productos/{id}',
    'DELETE /api/bodegas/{id}/productos/{productoId}',
    // Or PRODUCTO_ELIMINADO, only between a product's deletion and bodega-svc writing its stock out.
    'PATCH /api/bodegas/{id}/existencias/{productoId}',
  ];
  if (status === 409 && keyedOnly.includes(operationKey(method, path)))
    return 'IDEMPOTENCY_KEY_IN_USE needs two requests at once: safe-writes.test.ts';
  const bodegaOnly = [
    'GET /api/bodegas',
    'POST /api/bodegas',
    'GET /api/bodegas/{id}',
    'PUT /api/bodegas/{id}',
    'GET /api/bodegas/{id}/existencias',
    'GET /api/bodegas/{id}/existencias/{productoId}',
    'PATCH /api/bodegas/{id}/existencias/{productoId}',
    'GET /api/operaciones/{id}',
    'POST /api/operaciones/{id}/reverso',
    'GET /api/movimientos',
    'GET /api/existencias/verificacion',
  ];
  if (status === 503 && bodegaOnly.includes(operationKey(method, path)))
    return 'needs bodega-svc down: openapi-failures.test.ts';
  return undefined;
}

/** The identity routes (docs/contract.md §12.8): served only with identidad-svc. */
const IDENTIDAD_PATHS = new Set(
  Object.values(IDENTIDAD_ROUTES).flatMap((rows) => rows.map((r) => r.route.split(' ')[1])),
);

describe('coverage of the document', () => {
  it('every documented operation was exercised with every status this file can provoke', () => {
    const missing: string[] = [];
    for (const operation of validator.operations()) {
      const seen = validator.exercised().get(operationKey(operation.method, operation.path)) ?? new Set<number>();
      for (const status of operation.statuses) {
        if (!seen.has(status) && !notProvokedHere(operation, status))
          missing.push(`${operationKey(operation.method, operation.path)} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
