/**
 * A REST answer written by sendJson (native JSON.stringify when it writes the same, the text sent as a Buffer) is
 * byte for byte what express wrote before (issue 23): status, headers in their order (express's ETag included),
 * a 304 for a GET whose If-None-Match matches, no body for HEAD. An express app on an ephemeral port: no services.
 */
import type { AddressInfo } from 'node:net';
import { request, type Server } from 'node:http';
import express from 'express';
import { LosslessNumber, stringify } from 'lossless-json';
import type { Producto } from '@inventario/contract';
import { jsonText, productoJson, productoJsonText, sendJson, sendJsonAnswer } from '../src/http/rest-json';

const deep = (depth: number): unknown => (depth === 0 ? { n: 1 } : { a: [deep(depth - 1)] });

const BODIES: [string, unknown][] = [
  [
    'an operation',
    {
      id: 100,
      tipo: 'SALIDA',
      comentario: null,
      movimientos: [{ id: 1, cantidad: -1, usuario: 'tester', fecha: '2026-11-30T10:19:57' }],
    },
  ],
  ['a LosslessNumber', { precio: new LosslessNumber('12.50'), l: [new LosslessNumber('1e400')] }],
  ['undefined', undefined],
  ['null', null],
  ['a string', 'ñandú "x" \u2028'],
  ['undefined, functions and symbols', { a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1, 2] }],
  ['non-finite numbers and minus zero', { a: NaN, b: Infinity, c: -0, d: [NaN] }],
  ['a bigint', { n: 12345678901234567890n }],
  ['a Date', { fecha: new Date(Date.UTC(2026, 10, 30)) }],
  ['a toJSON', { v: { toJSON: () => ({ precio: new LosslessNumber('1.10') }) } }],
  ['boxed values', { b: Object(false) as unknown, n: Object(1) as unknown, s: Object('x') as unknown }],
  ['integer-like keys', { b: 1, 2: 'dos', 1: 'uno' }],
  ['nesting 40 deep', deep(40)],
  ['a non-ASCII answer over 1000 bytes', { texto: 'é'.repeat(1200) }],
];

let server: Server;
let port: number;
const bodyOf = (req: express.Request): unknown => BODIES[Number(req.query.i)]![1];

beforeAll(async () => {
  const app = express();
  app.get('/old', (req, res) => {
    res
      .status(200)
      .type('application/json')
      .send(stringify(bodyOf(req)) ?? 'null');
  });
  app.get('/new', (req, res) => sendJson(res, 200, bodyOf(req)));
  app.post('/old', (req, res) => {
    res.location('/x/1');
    res
      .status(201)
      .type('application/json')
      .send(stringify(bodyOf(req)) ?? 'null');
  });
  app.post('/new', (req, res) => {
    res.location('/x/1');
    sendJson(res, 201, bodyOf(req));
  });
  app.put('/old', (req, res) => {
    res.setHeader('ETag', '"3"');
    res
      .status(200)
      .type('application/json')
      .send(stringify(bodyOf(req)) ?? 'null');
  });
  app.put('/new', (req, res) => {
    res.setHeader('ETag', '"3"');
    sendJson(res, 200, bodyOf(req));
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

interface Answer {
  status: number;
  /** Names and values in the order written, without Date. */
  head: string[];
  bytes: Buffer;
}

function call(method: string, path: string, headers: Record<string, string> = {}, at = port): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: at, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const head: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          if (res.rawHeaders[i] !== 'Date') head.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        }
        resolve({ status: res.statusCode!, head, bytes: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(BODIES.map(([what], i) => [what, i] as const))('%s', (_what, i) => {
  it.each(['GET', 'POST', 'PUT', 'HEAD'])('%s is answered as before', async (method) => {
    const old = await call(method, `/old?i=${i}`);
    expect(old.status).toBe(method === 'POST' ? 201 : 200);
    expect(await call(method, `/new?i=${i}`)).toEqual(old);
  });

  it('a GET whose If-None-Match is the answer ETag is a 304, as before', async () => {
    const { head } = await call('GET', `/old?i=${i}`);
    const etag = head.find((h) => h.startsWith('ETag: '))!.slice('ETag: '.length);
    const old = await call('GET', `/old?i=${i}`, { 'if-none-match': etag });
    expect(old.status).toBe(304);
    expect(await call('GET', `/new?i=${i}`, { 'if-none-match': etag })).toEqual(old);
  });

  it('the text is lossless-json stringify', () => {
    expect(jsonText(BODIES[i]![1])).toBe(stringify(BODIES[i]![1]) ?? 'null');
  });
});

it('a bigint inside a nesting too deep to be sure of is still lossless-json text', () => {
  const body = { a: [deep(40), { n: 1n }] };
  expect(jsonText(body)).toBe(stringify(body));
});

describe('a product answer', () => {
  const productos: Producto[] = [
    {
      id: 7,
      nombre: 'Tornillo "8 mm" ñ',
      descripcion: null,
      precio: '0.00',
      cantidadEnStock: 0,
      bodegaId: null,
      fechaCreacion: '2026-11-30T10:19:57',
      fechaActualizacion: '2026-11-30T10:19:57',
      version: 1,
    },
    {
      id: 4294967295,
      nombre: 'x',
      descripcion: 'Caja de 100\n',
      precio: '99999999.99',
      cantidadEnStock: 2147483647,
      bodegaId: 3,
      fechaCreacion: '2026-11-30T10:19:57',
      fechaActualizacion: '2026-12-01T00:00:00',
      version: 12,
    },
  ];

  it.each(productos.map((p) => [p.id, p] as const))('%s: productoJsonText is stringify(productoJson)', (_id, p) => {
    expect(productoJsonText(p)).toBe(stringify(productoJson(p)));
  });

  it('sendJsonAnswer writes what sendJson writes', async () => {
    const app = express();
    app.post('/a', (_req, res) => sendJson(res, 201, productoJson(productos[0]!)));
    app.post('/b', (_req, res) => sendJsonAnswer(res, 201, productoJsonText(productos[0]!)));
    const other = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => other.once('listening', resolve));
    const at = (other.address() as AddressInfo).port;
    try {
      expect(await call('POST', '/b', {}, at)).toEqual(await call('POST', '/a', {}, at));
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
