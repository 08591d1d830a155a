/**
 * One log line per request, with method, path, status, duration and user,
 * and never a credential.
 */
import pino from 'pino';
import { waitFor, logLineSink } from '@inventario/testkit';
import { deadAddress, startBareBff, type BareBff } from './support/bare-bff';
import { basicAuth, TEST_PASSWORD, TEST_USER } from './support/stack';

const lines: Record<string, unknown>[] = [];
let bff: BareBff;

beforeAll(async () => {
  const sink = logLineSink(lines);
  bff = await startBareBff(
    { PRODUCTO_SVC_ADDR: await deadAddress(), BODEGA_SVC_ADDR: await deadAddress() },
    pino({ level: 'info' }, sink),
  );
});

afterAll(async () => {
  await bff?.close();
});

test('each request is logged once with method, path, status, ms and user; credentials never appear', async () => {
  await bff.request('GET', '/api/nada?q=abc');
  await bff.request('GET', '/api/productos', { auth: basicAuth(TEST_USER, 'contraseña-equivocada') });

  const requests = await waitFor(() => {
    const found = lines.filter((l) => l.msg === 'request');
    return found.length >= 2 ? found : undefined;
  }, 'the request log lines');
  expect(requests).toEqual([
    expect.objectContaining({
      method: 'GET',
      path: '/api/nada',
      status: 404,
      ms: expect.any(Number),
      usuario: TEST_USER,
    }),
    expect.objectContaining({ method: 'GET', path: '/api/productos', status: 401, ms: expect.any(Number) }),
  ]);
  expect(requests[1]).not.toHaveProperty('usuario');

  const everything = JSON.stringify(lines);
  expect(everything).not.toContain(TEST_PASSWORD);
  expect(everything).not.toContain('contraseña-equivocada');
  expect(everything).not.toContain(bff.auth.slice('Basic '.length));
  expect(everything.toLowerCase()).not.toContain('authorization');
});
