/**
 * One circuit breaker per downstream service: with producto-svc stopped,
 * product routes answer 503 + Retry-After (the breaker opens and refuses
 * calls without trying) while warehouse routes keep working; once
 * producto-svc is back the BFF recovers by itself, without a restart.
 */
import { waitFor, crearBodega, crearProducto } from '@inventario/testkit';
import { startTestStack, type TestStack } from './support/stack';

const RESET_SECONDS = 1;

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('bff_breaker', {
    env: {
      BREAKER_RESET_MS: String(RESET_SECONDS * 1000),
      BREAKER_VOLUME_THRESHOLD: '3',
      BREAKER_ERROR_THRESHOLD_PERCENT: '50',
    },
  });
});

afterAll(async () => {
  await stack?.close();
});

async function breakerOf(component: 'productoSvc' | 'bodegaSvc'): Promise<string> {
  const res = await stack.request('GET', '/actuator/health', { auth: false });
  return res.body.components[component].details.breaker as string;
}

test('domain answers (404, 400) do not trip the breaker', async () => {
  for (let i = 0; i < 10; i++) {
    expect((await stack.request('GET', '/api/productos/999999')).status).toBe(404);
    expect((await stack.request('PUT', '/api/productos/999999', { body: { bodegaId: 999999 } })).status).toBe(400);
  }
  expect(await breakerOf('productoSvc')).toBe('closed');
  expect(await breakerOf('bodegaSvc')).toBe('closed');
  expect((await stack.request('GET', '/api/productos')).status).toBe(200);
});

test('producto-svc down: product routes 503 with Retry-After, warehouses keep working, then recovery', async () => {
  const bodegaId = await crearBodega(stack);
  const producto = await crearProducto(stack, { bodegaId });

  await stack.stopProductoSvc();
  try {
    // Failures fill the breaker's window until it opens.
    await waitFor(
      async () => {
        const res = await stack.request('GET', '/api/productos');
        expect(res.status).toBe(503);
        return (await breakerOf('productoSvc')) === 'open';
      },
      'the producto-svc breaker to open',
      30_000,
      20,
    );

    for (const [method, path, body] of [
      ['GET', '/api/productos', undefined],
      ['GET', `/api/productos/${producto.id}`, undefined],
      ['POST', '/api/productos', { nombre: 'Durante la caída', precio: 1, cantidadEnStock: 1 }],
      ['PUT', `/api/v1/productos/${producto.id}`, { cantidadEnStock: 2 }],
      ['DELETE', `/api/productos/${producto.id}`, undefined],
      ['GET', `/api/bodegas/${bodegaId}/productos`, undefined],
    ] as const) {
      const res = await stack.request(method, path, body === undefined ? {} : { body });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'SERVICE_UNAVAILABLE', mensaje: expect.stringContaining('producto-svc') });
      expect(res.headers.get('retry-after')).toBe(String(RESET_SECONDS));
    }

    // The other breaker and the other service are unaffected.
    expect((await stack.request('GET', '/api/bodegas')).status).toBe(200);
    expect((await stack.request('GET', `/api/bodegas/${bodegaId}`)).status).toBe(200);
    expect((await stack.request('PUT', `/api/bodegas/${bodegaId}`, { body: { capacidad: 7 } })).status).toBe(200);
    const nueva = await stack.request('POST', '/api/bodegas', {
      body: { nombre: `Durante la caída ${Date.now()}`, capacidad: 1 },
    });
    expect(nueva.status).toBe(201);
    expect(await breakerOf('bodegaSvc')).toBe('closed');

    const health = await stack.request('GET', '/actuator/health', { auth: false });
    expect(health.status).toBe(503);
    expect(health.body.status).toBe('DOWN');
    expect(health.body.components.productoSvc.status).toBe('DOWN');
    expect(health.body.components.bodegaSvc.status).toBe('UP');
    // Readiness follows only the BFF's own state: warehouse routes still work, so it stays in rotation.
    expect((await stack.request('GET', '/actuator/health/readiness', { auth: false })).status).toBe(200);
    expect((await stack.request('GET', '/actuator/health/liveness', { auth: false })).status).toBe(200);
  } finally {
    await stack.startProductoSvc();
  }

  // The breaker half-opens after its reset time, tries one call, and closes on success.
  const back = await waitFor(
    async () => {
      const res = await stack.request('GET', `/api/productos/${producto.id}`);
      return res.status === 200 ? res : undefined;
    },
    'product routes to answer again',
    30_000,
    100,
  );
  expect(back.body).toEqual(producto);
  expect(await breakerOf('productoSvc')).toBe('closed');
  expect((await stack.request('GET', '/actuator/health', { auth: false })).status).toBe(200);
  expect(
    (await stack.request('PUT', `/api/productos/${producto.id}`, { body: { cantidadEnStock: 9 } })).body
      .cantidadEnStock,
  ).toBe(9);
});
