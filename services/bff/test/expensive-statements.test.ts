/**
 * Issue 21, item 2, at the BFF: a statement a service's database stopped at
 * its time limit (RESOURCE_EXHAUSTED, reason STATEMENT_TIMEOUT) and a lock
 * conflict (ABORTED, reason LOCK_CONFLICT) are outcomes of one request, never
 * the service's ill health. Before the fix the services answered both as
 * UNAVAILABLE: a 503 "reintente en 10 s" counted by the breaker, so a few
 * expensive verifications opened bodega-svc's breaker and every warehouse and
 * stock route answered 503 to everyone. Now: 504 (nothing written) and 409
 * with Retry-After, and with far more of them than the breaker's volume
 * threshold the breaker stays closed and the other routes keep answering.
 */
import { Metadata, status } from '@grpc/grpc-js';
import { startBareBff, type BareBff } from './support/bare-bff';
import { startFakeDownstream, type FakeDownstream } from './support/fake-downstream';

type Callback = (err: unknown, res?: unknown) => void;

function failure(code: status, reason: string, details: string) {
  const metadata = new Metadata();
  metadata.set('inventario-error-reason', reason);
  return { code, details, metadata };
}

const PRODUCTO = {
  id: 1,
  nombre: 'P',
  precio: '1.00',
  cantidadEnStock: 0,
  fechaCreacion: new Date(),
  fechaActualizacion: new Date(),
  version: 1,
};
const BODEGA = {
  id: 3,
  nombre: 'B',
  capacidad: 1,
  ocupacion: 0,
  fechaCreacion: new Date(),
  fechaActualizacion: new Date(),
  version: 1,
};

let downstream: FakeDownstream;
let bff: BareBff;

beforeAll(async () => {
  downstream = await startFakeDownstream({
    producto: { getProducto: (_call: unknown, callback: Callback) => callback(null, { producto: PRODUCTO }) },
    bodega: { getBodega: (_call: unknown, callback: Callback) => callback(null, { bodega: BODEGA }) },
    existencia: {
      verificarExistencias: (_call: unknown, callback: Callback) =>
        callback(
          failure(
            status.RESOURCE_EXHAUSTED,
            'STATEMENT_TIMEOUT',
            'a statement ran past the database time limit; nothing was written',
          ),
        ),
      registrarMovimiento: (_call: unknown, callback: Callback) =>
        callback(
          failure(
            status.ABORTED,
            'LOCK_CONFLICT',
            'la operación esperó demasiado a otras escrituras de los mismos registros',
          ),
        ),
    },
  });
  const address = `127.0.0.1:${downstream.port}`;
  bff = await startBareBff({
    PRODUCTO_SVC_ADDR: address,
    BODEGA_SVC_ADDR: address,
    BREAKER_VOLUME_THRESHOLD: '3',
    BREAKER_ERROR_THRESHOLD_PERCENT: '50',
  });
});

afterAll(async () => {
  await bff?.close();
  await downstream?.close();
});

async function breaker(): Promise<string> {
  const res = await bff.request('GET', '/actuator/health', { auth: false });
  return (res.body as { components: { bodegaSvc: { details: { breaker: string } } } }).components.bodegaSvc.details
    .breaker;
}

test('twenty verifications stopped at the statement limit: each a 504 saying nothing was written, the breaker stays closed', async () => {
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => bff.request('GET', '/api/existencias/verificacion')),
  );
  for (const res of answers) {
    expect(res.status).toBe(504);
    expect(res.body).toEqual({
      error: 'GATEWAY_TIMEOUT',
      mensaje:
        'La base de datos de bodega-svc detuvo la operación por superar su tiempo máximo; no se aplicó ningún cambio',
    });
    expect(res.headers.get('retry-after')).toBeNull();
  }
  expect(await breaker()).toBe('closed');
  expect((await bff.request('GET', '/api/bodegas/3')).status).toBe(200);
});

test('twenty lock conflicts: each a 409 LOCK_CONFLICT with Retry-After, the breaker stays closed', async () => {
  const answers = await Promise.all(
    Array.from({ length: 20 }, () =>
      bff.request('POST', '/api/bodegas/3/movimientos', { body: { productoId: 1, tipo: 'ENTRADA', cantidad: 1 } }),
    ),
  );
  for (const res of answers) {
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: 'LOCK_CONFLICT',
      mensaje: expect.stringMatching(/^Conflicto con otras escrituras: /),
    });
    expect(res.headers.get('retry-after')).toBe('1');
  }
  expect(await breaker()).toBe('closed');
  expect((await bff.request('GET', '/api/bodegas/3')).status).toBe(200);
});

test('a GraphQL mutation meeting a lock conflict is success: false with its code', async () => {
  const res = await bff.request('POST', '/api/graphql', {
    body: {
      query:
        'mutation { registrarMovimiento(input: {bodegaId: "3", productoId: "1", tipo: "ENTRADA", cantidad: 1}) { success error } }',
    },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    data: { registrarMovimiento: { success: false, error: expect.stringMatching(/^LOCK_CONFLICT: /) } },
  });
});
