/**
 * What the HTTP edge answers before any use case runs: bodies that cannot
 * be read, unknown routes, malformed URLs and requests Node's parser
 * refuses. Always a JSON error, never a 500 or a hang. The BFF runs alone
 * (its downstream addresses lead nowhere): none of these requests may reach
 * a service.
 */
import { connect } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { MAX_BODY_BYTES } from '../src/http/http-errors';
import { NUMBER_MENSAJES } from '../src/http/json-number';
import { deadAddress, startBareBff, type BareBff } from './support/bare-bff';

let bff: BareBff;

beforeAll(async () => {
  bff = await startBareBff({ PRODUCTO_SVC_ADDR: await deadAddress(), BODEGA_SVC_ADDR: await deadAddress() });
});

afterAll(async () => {
  await bff?.close();
});

function expectJsonError(
  res: { status: number; headers: Headers; body: unknown },
  status: number,
  error: string,
): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toEqual({ error, mensaje: expect.any(String) });
}

describe('request bodies', () => {
  const quoted = 'se esperaba el nombre de una propiedad entre comillas';
  test.each([
    ['truncated JSON', '{"nombre": "x",', `${quoted} y el cuerpo terminó (posición 15)`],
    ['a trailing comma', '{"nombre": "x",}', `${quoted} y se encontró '}' (posición 15)`],
    ['single quotes', "{'nombre': 'x'}", `${quoted} y se encontró ''' (posición 1)`],
    [
      'a duplicate key with different values',
      '{"nombre": "a", "nombre": "b"}',
      "la propiedad 'nombre' aparece dos veces con valores distintos (posición 17)",
    ],
    [
      'absurdly deep nesting',
      `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      'el JSON está anidado a demasiada profundidad',
    ],
  ])('%s is 400 MALFORMED_JSON, its reason in Spanish', async (_case, rawBody, motivo) => {
    const res = await bff.request('POST', '/api/productos', { rawBody });
    expectJsonError(res, 400, 'MALFORMED_JSON');
    expect(res.body.mensaje).toBe(`El cuerpo no es JSON válido: ${motivo}`);
  });

  test('a body over 1 MiB is 413', async () => {
    const rawBody = JSON.stringify({
      nombre: 'x',
      descripcion: 'd'.repeat(MAX_BODY_BYTES),
      precio: 1,
      cantidadEnStock: 1,
    });
    const res = await bff.request('POST', '/api/productos', { rawBody });
    expectJsonError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('a body just under 1 MiB is read (and then validated)', async () => {
    const rawBody = JSON.stringify({
      nombre: 'x',
      descripcion: 'd'.repeat(MAX_BODY_BYTES - 100),
      precio: 1,
      cantidadEnStock: 1,
    });
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

  test('a number of 100 000 digits is refused as too long, naming its field, and the request completes', async () => {
    const huge = `1${'0'.repeat(100_000)}1`;
    const res = await bff.request('POST', '/api/productos', {
      rawBody: `{"nombre":"x","precio":${huge},"cantidadEnStock":${huge}}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.detalles).toEqual([
      { campo: 'precio', mensaje: NUMBER_MENSAJES.demasiadoLargo },
      { campo: 'cantidadEnStock', mensaje: NUMBER_MENSAJES.demasiadoLargo },
    ]);
  });

  test('a valid body goes on to the use case (here: the service is down, 503)', async () => {
    const res = await bff.request('POST', '/api/bodegas', { body: { nombre: 'x', capacidad: 1 } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

/** A raw body sent to `path` with a Content-Encoding header. */
function sendEncoded(path: string, body: Buffer | string, encoding: string) {
  const rawBody = typeof body === 'string' ? body : new Uint8Array(body);
  return bff.request('POST', path, { rawBody, headers: { 'content-encoding': encoding } });
}

describe.each([
  ['REST', '/api/bodegas'],
  ['GraphQL', '/api/graphql'],
])('compressed bodies on %s (%s)', (_surface, path) => {
  const json = '{"query":"{ health }"}';

  test.each([
    ['gzip', json],
    ['br', json],
    ['deflate', json],
    ['gzip', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02])],
  ])('Content-Encoding %s over a body that does not decompress is 400 MALFORMED_JSON', async (encoding, body) => {
    expectJsonError(await sendEncoded(path, body, encoding), 400, 'MALFORMED_JSON');
  });

  test('an unsupported Content-Encoding is 415, naming the ones accepted', async () => {
    const res = await sendEncoded(path, json, 'compress');
    expectJsonError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(res.body.mensaje).toContain('gzip');
  });
});

describe.each([
  ['gzip', gzipSync],
  ['br', brotliCompressSync],
])('a real %s body', (encoding, compress) => {
  const body = compress(Buffer.from('{"query":"{ health }"}'));

  test('is read on REST (and then validated: query is not a field of a warehouse)', async () => {
    const res = await sendEncoded('/api/bodegas', body, encoding);
    expect(res.status).toBe(400);
    expect(res.body.detalles).toContainEqual({ campo: 'query', mensaje: 'no es un campo admitido' });
  });

  test('is read on GraphQL (and executed: health needs no service)', async () => {
    const res = await sendEncoded('/api/graphql', body, encoding);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { health: 'OK' } });
  });
});

describe('URLs whose path does not decode', () => {
  test.each([
    ['GET', '/api/productos/%zz'],
    ['GET', '/api/v1/productos/%'],
    ['GET', '/api/bodegas/%ff/productos'],
    ['PUT', '/api/productos/%zz'],
    ['DELETE', '/api/bodegas/%zz'],
  ])('%s %s is 400 VALIDATION_ERROR naming id', async (method, path) => {
    const res = await bff.request(method, path, method === 'PUT' ? { body: { nombre: 'x' } } : {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'VALIDATION_ERROR',
      mensaje: expect.any(String),
      detalles: [{ campo: 'id', mensaje: expect.stringContaining('%') }],
    });
  });

  test('a path that does not decode where no id goes is a plain JSON 404', async () => {
    expectJsonError(await bff.request('GET', '/api/nada/%zz'), 404, 'NOT_FOUND');
  });
});

/** Writes `request` on a raw TCP connection and reads until the server closes it. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

describe("requests Node's HTTP parser refuses", () => {
  test('a malformed request line is 400 with a JSON error body, and the connection closes', async () => {
    const raw = await rawExchange(bff.app.httpPort, 'ESTO NO ES HTTP\r\n\r\n');
    const [head = '', body = ''] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toMatch(/\r\nContent-Type: application\/json; charset=utf-8(\r\n|$)/);
    expect(head).toMatch(/\r\nConnection: close(\r\n|$)/);
    expect(JSON.parse(body)).toEqual({ error: 'BAD_REQUEST', mensaje: expect.any(String) });
  });

  test('a 20 000-character query string is 431 with a JSON error body', async () => {
    const res = await bff.request('GET', `/api/productos?q=${'x'.repeat(20_000)}`);
    expectJsonError(res, 431, 'REQUEST_HEADERS_TOO_LARGE');
  });

  test('the server keeps answering after refusing them', async () => {
    await rawExchange(bff.app.httpPort, 'ESTO NO ES HTTP\r\n\r\n');
    expectJsonError(await bff.request('GET', '/api/nada'), 404, 'NOT_FOUND');
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
