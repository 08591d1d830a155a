/**
 * How the BFF answers when a downstream service misbehaves, against fake
 * gRPC servers (real grpc-js on ephemeral ports): a hung call ends at its
 * deadline (504), an unexpected status is a 500 that leaks nothing, and
 * every call carries the caller's identity in its metadata.
 */
import { Metadata, status } from '@grpc/grpc-js';
import { FIELD_VIOLATIONS_KEY } from '@inventario/platform';
import { Producto } from '@inventario/proto';
import { startBareBff, type BareBff } from './support/bare-bff';
import { startFakeDownstream, type FakeDownstream } from './support/fake-downstream';

const SECRET_DETAIL = "ER_NO_SUCH_TABLE: Table 'inventario_producto.productos' doesn't exist at /srv/app/store.js:12";

let fake: FakeDownstream;
let bff: BareBff;

const producto = Producto.fromPartial({
  id: 1,
  nombre: 'Tornillo',
  precio: '0.25',
  cantidadEnStock: 5,
  fechaCreacion: new Date('2026-01-02T03:04:05Z'),
  fechaActualizacion: new Date('2026-01-02T03:04:05Z'),
});

beforeAll(async () => {
  fake = await startFakeDownstream({
    producto: {
      // Never answers: only the deadline ends the call.
      getProducto: () => undefined,
      // A warehouse's products: none; the whole list: an unexpected failure.
      listProductos: (call, callback) => {
        const { bodegaIds } = call.request as { bodegaIds: number[] };
        if (bodegaIds.length > 0) callback(null, { productos: [], nextPageToken: '' });
        else callback({ code: status.INTERNAL, details: SECRET_DETAIL });
      },
      deleteProducto: (_call, callback) => callback({ code: status.UNAVAILABLE, details: 'database down' }),
      updateProducto: (_call, callback) => {
        const metadata = new Metadata();
        metadata.set(
          FIELD_VIOLATIONS_KEY,
          Buffer.from(JSON.stringify([{ campo: 'nombre', mensaje: 'ya no se admite' }])),
        );
        callback({ code: status.INVALID_ARGUMENT, details: 'nombre: ya no se admite', metadata });
      },
      createProducto: (_call, callback) => callback(null, { producto }),
    },
    bodega: {
      deleteBodega: (_call, callback) =>
        callback({ code: status.FAILED_PRECONDITION, details: 'la bodega está bloqueada' }),
      getBodega: (_call, callback) =>
        callback(null, {
          bodega: {
            id: 3,
            nombre: 'B',
            capacidad: 1,
            fechaCreacion: new Date(),
            fechaActualizacion: new Date(),
            version: 1,
          },
        }),
      listBodegas: (_call, callback) => callback({ code: status.DEADLINE_EXCEEDED, details: 'slow' }),
    },
    // No stock anywhere: the safe delete reaches DeleteBodega.
    existencia: { listExistencias: (_call, callback) => callback(null, { existencias: [], nextPageToken: '' }) },
  });
  const address = `127.0.0.1:${fake.port}`;
  bff = await startBareBff({
    PRODUCTO_SVC_ADDR: address,
    BODEGA_SVC_ADDR: address,
    GRPC_DEADLINE_MS: '300',
    BREAKER_VOLUME_THRESHOLD: '1000',
  });
});

afterAll(async () => {
  await bff?.close();
  await fake?.close();
});

test('a call that hangs ends at its deadline: 504', async () => {
  const res = await bff.request('GET', '/api/productos/1');
  expect(res.status).toBe(504);
  expect(res.body).toEqual({ error: 'GATEWAY_TIMEOUT', mensaje: expect.stringContaining('producto-svc') });
});

test('DEADLINE_EXCEEDED from a service is a 504 too', async () => {
  expect((await bff.request('GET', '/api/bodegas')).status).toBe(504);
});

test('an unexpected status is a 500 with a log id, and none of the downstream text', async () => {
  const res = await bff.request('GET', '/api/productos');
  expect(res.status).toBe(500);
  expect(res.body).toEqual({ error: 'INTERNAL_ERROR', mensaje: expect.stringMatching(/[0-9a-f-]{36}/) });
  expect(res.text).not.toContain('ER_');
  expect(res.text).not.toContain('store.js');
});

test('UNAVAILABLE is a 503 with Retry-After', async () => {
  const res = await bff.request('DELETE', '/api/productos/1');
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('10');
  expect(res.body.error).toBe('SERVICE_UNAVAILABLE');
});

test('INVALID_ARGUMENT keeps the field violations the service named', async () => {
  const res = await bff.request('PUT', '/api/productos/1', { body: { nombre: 'x' } });
  expect(res.status).toBe(400);
  expect(res.body.detalles).toEqual([{ campo: 'nombre', mensaje: 'ya no se admite' }]);
});

test('a FAILED_PRECONDITION other than the safe-delete conflict is a 409', async () => {
  const res = await bff.request('DELETE', '/api/bodegas/3');
  expect(res.status).toBe(409);
  expect(res.body).toEqual({ error: 'FAILED_PRECONDITION', mensaje: 'La bodega está bloqueada' });
});

test('a method the service does not implement is a 500, not a hang', async () => {
  const res = await bff.request('DELETE', '/api/bodegas/3?force=true');
  expect(res.status).toBe(500);
  expect(res.body.error).toBe('INTERNAL_ERROR');
});

describe('metadata of downstream calls', () => {
  test('carries the Basic-auth user, and a well-formed traceparent with its tracestate', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const tracestate = 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE';
    fake.calls.length = 0;
    await bff.request('POST', '/api/productos', {
      body: { nombre: 'x', precio: 1, cantidadEnStock: 1 },
      headers: { traceparent, tracestate },
    });
    const call = fake.calls.find((c) => c.method === 'createProducto');
    expect(call?.metadata.get('x-inventario-usuario')).toEqual(['tester']);
    expect(call?.metadata.get('traceparent')).toEqual([traceparent]);
    expect(call?.metadata.get('tracestate')).toEqual([tracestate]);
  });

  test('a tracestate without a valid traceparent is not passed on', async () => {
    fake.calls.length = 0;
    await bff.request('POST', '/api/productos', {
      body: { nombre: 'x', precio: 1, cantidadEnStock: 1 },
      headers: { traceparent: 'basura', tracestate: 'rojo=1' },
    });
    const call = fake.calls.find((c) => c.method === 'createProducto');
    expect(call?.metadata.get('tracestate')).toEqual([]);
  });

  test('a malformed traceparent is not passed on', async () => {
    fake.calls.length = 0;
    await bff.request('POST', '/api/productos', {
      body: { nombre: 'x', precio: 1, cantidadEnStock: 1 },
      headers: { traceparent: 'basura' },
    });
    const call = fake.calls.find((c) => c.method === 'createProducto');
    expect(call?.metadata.get('traceparent')).toEqual([]);
  });
});
