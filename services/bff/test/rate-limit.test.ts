/**
 * RATE_LIMIT_PER_MINUTE per client IP, counted before authentication (so
 * password guessing is limited too); the health probes are exempt.
 */
import { deadAddress, startBareBff, type BareBff } from './support/bare-bff';
import { basicAuth } from './support/stack';

const LIMIT = 3;

let bff: BareBff;

beforeAll(async () => {
  bff = await startBareBff({
    PRODUCTO_SVC_ADDR: await deadAddress(),
    BODEGA_SVC_ADDR: await deadAddress(),
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
  });
});

afterAll(async () => {
  await bff?.close();
});

test('over the limit: 429 with Retry-After and a JSON body, for right and wrong credentials alike; health stays exempt', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < LIMIT; i++)
    statuses.push((await bff.request('GET', '/api/nada', { auth: basicAuth('intruso', `intento-${i}`) })).status);
  expect(statuses).toEqual([401, 401, 401]);

  const guessed = await bff.request('GET', '/api/nada', { auth: basicAuth('intruso', 'otro intento') });
  expect(guessed.status).toBe(429);
  expect(guessed.body).toEqual({ error: 'TOO_MANY_REQUESTS', mensaje: expect.any(String) });
  const retryAfter = Number(guessed.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);

  expect((await bff.request('GET', '/api/nada')).status).toBe(429);
  expect((await bff.request('GET', '/actuator/health/liveness', { auth: false })).status).toBe(200);
});
