/**
 * /actuator/health and its probes against fake downstream services whose
 * grpc.health.v1 status the test controls, and the shutdown sequence:
 * readiness DOWN first, in-flight requests finished, then the port closed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '@inventario/testkit';
import { deadAddress, startBareBff, type BareBff } from './support/bare-bff';
import { startFakeDownstream, type FakeDownstream } from './support/fake-downstream';

let fake: FakeDownstream;

beforeAll(async () => {
  fake = await startFakeDownstream({
    bodega: {
      // Answers after a while, so a request is still in flight when shutdown starts.
      listBodegas: (_call, callback) => void sleep(1500).then(() => callback(null, { bodegas: [], nextPageToken: '' })),
    },
  });
});

afterAll(async () => {
  await fake?.close();
});

describe('with both services serving', () => {
  let bff: BareBff;

  beforeAll(async () => {
    const address = `127.0.0.1:${fake.port}`;
    bff = await startBareBff({ PRODUCTO_SVC_ADDR: address, BODEGA_SVC_ADDR: address });
  });

  afterAll(async () => {
    fake.setServing(true);
    await bff?.close();
  });

  test('health, liveness and readiness are UP, without credentials and never cached', async () => {
    const health = await bff.request('GET', '/actuator/health', { auth: false });
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      status: 'UP',
      components: {
        productoSvc: { status: 'UP', details: { grpc: 'SERVING', breaker: 'closed' } },
        bodegaSvc: { status: 'UP', details: { grpc: 'SERVING', breaker: 'closed' } },
      },
    });
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect((await bff.request('GET', '/actuator/health/liveness', { auth: false })).body).toEqual({ status: 'UP' });
    expect((await bff.request('GET', '/actuator/health/readiness', { auth: false })).status).toBe(200);
  });

  test('a service reporting NOT_SERVING makes health DOWN (503); liveness and readiness stay UP (the BFF degrades per route)', async () => {
    fake.setServing(false);
    const health = await bff.request('GET', '/actuator/health', { auth: false });
    expect(health.status).toBe(503);
    expect(health.body.status).toBe('DOWN');
    expect(health.body.components.productoSvc).toEqual({
      status: 'DOWN',
      details: { grpc: 'NOT_SERVING', breaker: 'closed' },
    });
    expect((await bff.request('GET', '/actuator/health/readiness', { auth: false })).body).toEqual({ status: 'UP' });
    expect((await bff.request('GET', '/actuator/health/liveness', { auth: false })).status).toBe(200);

    fake.setServing(true);
    expect((await bff.request('GET', '/actuator/health', { auth: false })).status).toBe(200);
  });
});

test('with the services unreachable, health is DOWN naming the gRPC code, and the BFF still starts and answers', async () => {
  const bff = await startBareBff({ PRODUCTO_SVC_ADDR: await deadAddress(), BODEGA_SVC_ADDR: await deadAddress() });
  try {
    const health = await bff.request('GET', '/actuator/health', { auth: false });
    expect(health.status).toBe(503);
    expect(health.body).toEqual({
      status: 'DOWN',
      components: {
        productoSvc: { status: 'DOWN', details: { grpc: 'UNAVAILABLE', breaker: 'closed' } },
        bodegaSvc: { status: 'DOWN', details: { grpc: 'UNAVAILABLE', breaker: 'closed' } },
      },
    });
    expect((await bff.request('GET', '/actuator/health/liveness', { auth: false })).status).toBe(200);
    expect((await bff.request('GET', '/actuator/health/readiness', { auth: false })).status).toBe(200);
  } finally {
    await bff.close();
  }
});

test('shutdown: readiness DOWN during the drain delay, in-flight requests finish, then the port closes', async () => {
  const address = `127.0.0.1:${fake.port}`;
  const bff = await startBareBff({ PRODUCTO_SVC_ADDR: address, BODEGA_SVC_ADDR: address, SHUTDOWN_DRAIN_MS: '1000' });
  const inFlight = bff.request('GET', '/api/bodegas');
  // The request has reached the (slow) service before shutdown starts.
  await waitFor(() => fake.calls.some((c) => c.method === 'listBodegas'), 'the request to reach bodega-svc');

  const stopping = bff.app.stop();
  const readiness = await bff.request('GET', '/actuator/health/readiness', { auth: false });
  expect(readiness.status).toBe(503);
  expect(readiness.body).toEqual({ status: 'DOWN' });
  expect(readiness.headers.get('connection')).toBe('close');
  expect((await bff.request('GET', '/actuator/health/liveness', { auth: false })).status).toBe(200);

  expect((await inFlight).status).toBe(200);
  await stopping;
  await expect(fetch(`${bff.baseUrl}/actuator/health/liveness`)).rejects.toThrow();
});
