/**
 * The BFF's GET /metrics on its own port (METRICS_PORT=0 here), scraped
 * after real traffic through the whole stack: HTTP RED metrics by route
 * template (never the raw URL), gRPC client metrics by method and code, and
 * the breakers' state and events. Metrics are never on the public port.
 */
import { metricSample as sample, scrapeMetrics as scrape, waitFor, crearProducto } from '@inventario/testkit';
import { deadAddress, startBareBff, type BareBff } from './support/bare-bff';
import { startTestStack, type TestStack } from './support/stack';

/** How much each sample moved while `traffic` ran. */
async function moved(
  port: number,
  traffic: () => Promise<void>,
): Promise<(name: string, labels: Record<string, string>) => number> {
  const before = await scrape(port);
  await traffic();
  const after = await scrape(port);
  return (name, labels) => (sample(after, name, labels) ?? NaN) - (sample(before, name, labels) ?? 0);
}

const GET_PRODUCTO = { grpc_service: 'inventario.v1.ProductoService', grpc_method: 'GetProducto' };

describe('BFF metrics with the services up', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack('bff_metrics');
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('counts a REST GET by its route template and status, and times it', async () => {
    const { id } = await crearProducto(stack);
    const delta = await moved(stack.metricsPort, async () => {
      expect((await stack.request('GET', `/api/productos/${id}`)).status).toBe(200);
    });
    const labels = { method: 'GET', route: '/api/productos/:id', status_code: '200', service: 'bff' };
    expect(delta('http_server_requests_total', labels)).toBe(1);
    expect(delta('http_server_request_duration_seconds_count', labels)).toBe(1);
    expect(delta('grpc_client_handled_total', { ...GET_PRODUCTO, grpc_code: 'OK' })).toBe(1);
    expect(delta('grpc_client_handling_seconds_count', GET_PRODUCTO)).toBe(1);
  });

  it('keeps the route template when the error middleware answers (404 of an unknown id)', async () => {
    const delta = await moved(stack.metricsPort, async () => {
      expect((await stack.request('GET', '/api/productos/999999')).status).toBe(404);
    });
    expect(
      delta('http_server_requests_total', { method: 'GET', route: '/api/productos/:id', status_code: '404' }),
    ).toBe(1);
    expect(delta('grpc_client_handled_total', { ...GET_PRODUCTO, grpc_code: 'NOT_FOUND' })).toBe(1);
  });

  it('labels a request no route matched "unmatched", never with its raw URL', async () => {
    const delta = await moved(stack.metricsPort, async () => {
      expect((await stack.request('GET', '/api/no-existe/12345')).status).toBe(404);
    });
    expect(delta('http_server_requests_total', { method: 'GET', route: 'unmatched', status_code: '404' })).toBe(1);
    expect(await scrape(stack.metricsPort)).not.toContain('no-existe');
  });

  it('labels GraphQL requests with their mount path', async () => {
    const delta = await moved(stack.metricsPort, async () => {
      expect((await stack.request('POST', '/api/graphql', { body: { query: '{ productos { id } }' } })).status).toBe(
        200,
      );
    });
    expect(delta('http_server_requests_total', { method: 'POST', route: '/api/graphql', status_code: '200' })).toBe(1);
  });

  it('never serves metrics on the public port', async () => {
    expect((await stack.request('GET', '/metrics', { auth: false })).status).toBe(401);
    expect((await stack.request('GET', '/metrics')).status).toBe(404);
  });

  it('starts with both breakers closed and every event at 0', async () => {
    const text = await scrape(stack.metricsPort);
    for (const breaker of ['producto-svc', 'bodega-svc']) {
      expect(sample(text, 'inventario_circuit_breaker_state', { breaker })).toBe(0);
      expect(sample(text, 'inventario_circuit_breaker_events_total', { breaker, event: 'open' })).toBe(0);
    }
  });
});

describe('BFF metrics with producto-svc unreachable', () => {
  let bff: BareBff;

  beforeAll(async () => {
    const address = await deadAddress();
    bff = await startBareBff({
      PRODUCTO_SVC_ADDR: address,
      BODEGA_SVC_ADDR: address,
      GRPC_DEADLINE_MS: '300',
      BREAKER_VOLUME_THRESHOLD: '2',
      BREAKER_ERROR_THRESHOLD_PERCENT: '50',
      // Stays open for the whole test.
      BREAKER_RESET_MS: '600000',
    });
  });

  afterAll(async () => {
    await bff?.close();
  });

  it('reports the breaker open (2) with its failure, open and reject events', async () => {
    const port = bff.app.metricsPort;
    await waitFor(
      async () =>
        (await bff.request('GET', '/api/productos/1')).headers.get('retry-after') !== null &&
        (await breakerState(port)) === 2,
      'the breaker to open',
      20_000,
    );
    const before = await scrape(port);
    expect(sample(before, 'inventario_circuit_breaker_events_total', { breaker: 'producto-svc', event: 'open' })).toBe(
      1,
    );
    expect(
      sample(before, 'inventario_circuit_breaker_events_total', { breaker: 'producto-svc', event: 'failure' }),
    ).toBeGreaterThanOrEqual(2);
    expect(
      sample(before, 'grpc_client_handled_total', { ...GET_PRODUCTO, grpc_code: 'UNAVAILABLE' }),
    ).toBeGreaterThanOrEqual(2);
    expect(sample(before, 'inventario_circuit_breaker_state', { breaker: 'bodega-svc' })).toBe(0);

    // An open breaker refuses without calling: a reject, and no gRPC call.
    expect((await bff.request('GET', '/api/productos/1')).status).toBe(503);
    const after = await scrape(port);
    const delta = (name: string, labels: Record<string, string>) =>
      (sample(after, name, labels) ?? NaN) - (sample(before, name, labels) ?? 0);
    expect(delta('inventario_circuit_breaker_events_total', { breaker: 'producto-svc', event: 'reject' })).toBe(1);
    expect(delta('grpc_client_handling_seconds_count', GET_PRODUCTO)).toBe(0);
    expect(
      delta('http_server_requests_total', { method: 'GET', route: '/api/productos/:id', status_code: '503' }),
    ).toBe(1);
  });

  async function breakerState(port: number): Promise<number | undefined> {
    return sample(await scrape(port), 'inventario_circuit_breaker_state', { breaker: 'producto-svc' });
  }
});
