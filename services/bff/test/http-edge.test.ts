/**
 * What the HTTP edge answers before any use case runs: bodies that cannot
 * be read, unknown routes. Always a JSON error, never a 500 or a hang. The
 * BFF runs alone (its downstream addresses lead nowhere): none of these
 * requests may reach a service.
 */
import { deadAddress, startBareBff, type BareBff } from './support/bare-bff';

let bff: BareBff;

beforeAll(async () => {
  bff = await startBareBff({ PRODUCTO_SVC_ADDR: await deadAddress(), BODEGA_SVC_ADDR: await deadAddress() });
});

afterAll(async () => {
  await bff?.close();
});

function expectJsonError(res: { status: number; headers: Headers; body: unknown }, status: number, error: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toEqual({ error, mensaje: expect.any(String) });
}

describe('request bodies', () => {
  test.each([
    ['truncated JSON', '{"nombre": "x",'],
    ['a trailing comma', '{"nombre": "x",}'],
    ['single quotes', "{'nombre': 'x'}"],
    ['a duplicate key with different values', '{"nombre": "a", "nombre": "b"}'],
    ['absurdly deep nesting', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
  ])('%s is 400 MALFORMED_JSON', async (_case, rawBody) => {
    const res = await bff.request('POST', '/api/productos', { rawBody });
    expectJsonError(res, 400, 'MALFORMED_JSON');
  });

  test('a body over 1 MiB is 413', async () => {
    const rawBody = JSON.stringify({ nombre: 'x', descripcion: 'd'.repeat(1024 * 1024), precio: 1, cantidadEnStock: 1 });
    const res = await bff.request('POST', '/api/productos', { rawBody });
    expectJsonError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('a body just under 1 MiB is read (and then validated)', async () => {
    const rawBody = JSON.stringify({ nombre: 'x', descripcion: 'd'.repeat(1024 * 1024 - 100), precio: 1, cantidadEnStock: 1 });
    const res = await bff.request('POST', '/api/productos', { rawBody });
    expect(res.status).toBe(400);
    expect(res.body.detalles).toEqual([{ campo: 'descripcion', mensaje: 'no puede superar 65535 bytes' }]);
  });

  test.each([
    ['text/plain', '{"nombre":"x"}'],
    ['application/x-www-form-urlencoded', 'nombre=x'],
    ['application/xml', '<producto/>'],
  ])('Content-Type %s is 415', async (type, rawBody) => {
    const res = await bff.request('PUT', '/api/bodegas/1', { rawBody, headers: { 'content-type': type } });
    expectJsonError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('a body without any Content-Type is 415', async () => {
    const res = await fetch(`${bff.baseUrl}/api/bodegas`, {
      method: 'POST',
      headers: { authorization: bff.auth },
      body: new Uint8Array(Buffer.from('{"nombre":"x","capacidad":1}')),
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({ error: 'UNSUPPORTED_MEDIA_TYPE', mensaje: expect.any(String) });
  });

  test('application/json with a charset parameter is accepted', async () => {
    const res = await bff.request('POST', '/api/bodegas', {
      rawBody: '{"nombre":"","capacidad":1}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(400);
    expect(res.body.detalles).toEqual([{ campo: 'nombre', mensaje: 'no puede estar en blanco' }]);
  });

  test('a valid body goes on to the use case (here: the service is down, 503)', async () => {
    const res = await bff.request('POST', '/api/bodegas', { body: { nombre: 'x', capacidad: 1 } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('routes', () => {
  test.each([
    ['GET', '/api/nada'],
    ['GET', '/nada'],
    ['GET', '/api/v2/productos'],
    ['GET', '/api/productos/1/detalle'],
    ['PATCH', '/api/productos/1'],
    ['POST', '/api/bodegas/1'],
  ])('%s %s is a JSON 404', async (method, path) => {
    const res = await bff.request(method, path);
    expectJsonError(res, 404, 'NOT_FOUND');
    expect(res.body.mensaje).toContain(path);
  });

  test('routes are case-sensitive', async () => {
    expectJsonError(await bff.request('GET', '/API/PRODUCTOS'), 404, 'NOT_FOUND');
  });

  test('an unknown route without credentials is 401, revealing nothing about routes', async () => {
    const res = await bff.request('GET', '/api/nada', { auth: false });
    expectJsonError(res, 401, 'UNAUTHORIZED');
  });

  test('no response announces the framework', async () => {
    const res = await bff.request('GET', '/api/nada');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});
