/**
 * The breaker counts failures that say a service is unwell, not failures of
 * one request's size (issue 16 item 3): RESOURCE_EXHAUSTED (a message past
 * grpc-js' size limits, or a statement past the database's
 * max_allowed_packet, which producto-svc answers as RESOURCE_EXHAUSTED) is
 * still a 500 for that request, but never opens the breaker for everyone.
 * Against a fake producto-svc (real grpc-js) answering those statuses.
 */
import { status } from '@grpc/grpc-js';
import { startBareBff, type BareBff } from './support/bare-bff';
import { startFakeDownstream, type FakeDownstream } from './support/fake-downstream';

let fake: FakeDownstream;
let bff: BareBff;

beforeAll(async () => {
  fake = await startFakeDownstream({
    producto: {
      // Product 1 is too big for a limit on its way; product 2 finds the service broken.
      getProducto: (call, callback) =>
        (call.request as { id: number }).id === 1
          ? callback({
              code: status.RESOURCE_EXHAUSTED,
              details: 'the request is too large for one database statement',
            })
          : callback({ code: status.INTERNAL, details: 'internal error' }),
    },
  });
  const address = `127.0.0.1:${fake.port}`;
  bff = await startBareBff({
    PRODUCTO_SVC_ADDR: address,
    BODEGA_SVC_ADDR: address,
    BREAKER_VOLUME_THRESHOLD: '3',
    BREAKER_ERROR_THRESHOLD_PERCENT: '50',
    BREAKER_RESET_MS: '60000',
  });
});

afterAll(async () => {
  await bff?.close();
  await fake?.close();
});

async function productoBreaker(): Promise<string> {
  const res = await bff.request('GET', '/actuator/health', { auth: false });
  return res.body.components.productoSvc.details.breaker as string;
}

test('RESOURCE_EXHAUSTED answers are 500s that never open the breaker', async () => {
  for (let i = 0; i < 10; i++) {
    const res = await bff.request('GET', '/api/productos/1');
    expect(res.status).toBe(500);
    expect(res.body.error).toBe('INTERNAL_ERROR');
  }
  expect(await productoBreaker()).toBe('closed');
});

test('while INTERNAL answers open it (the control): they outnumber the earlier ones, which counted as successes', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) statuses.push((await bff.request('GET', '/api/productos/2')).status);
  expect(statuses).toContain(503);
  expect(await productoBreaker()).toBe('open');
});
