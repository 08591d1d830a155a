/**
 * The HTTP RED middleware on a real node:http server: the route template
 * taken when the route matched (as express sets it), shared with the trace
 * middleware, and a request the client abandoned counted as 499. The whole
 * BFF's labels are checked end to end in services/bff/test/bff-metrics.test.ts.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { createServiceRegistry } from '@inventario/platform';
// From the sources, not the package: the route template lives on the request
// under a symbol of the route-template module, which the middleware and the
// test must share.
import { createHttpMetrics, httpMetricsMiddleware } from '../src/metrics/http-metrics';
import { routeTemplate, type RoutableRequest } from '../src/route-template';
import { httpServerTracing } from '../src/tracing-http';
import { metricSample as sample, waitFor } from '@inventario/testkit';
import type { Registry } from 'prom-client';

type Handler = (req: RoutableRequest, res: ServerResponse) => void;

/** A server whose requests go through the trace and metrics middlewares, then `handler`. */
async function serve(registry: Registry, handler: Handler): Promise<{ server: Server; port: number }> {
  const tracing = httpServerTracing();
  const metrics = httpMetricsMiddleware(createHttpMetrics(registry));
  const server = createServer((req: IncomingMessage, res) =>
    tracing(req, res, () => metrics(req, res, () => handler(req, res))),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** What express does with a request routed by the router mounted at /api/productos to `/:id`, whose handler fails: the error leaves the router. */
function matchThenLeaveRouter(req: RoutableRequest): void {
  req.baseUrl = '/api/productos';
  req.route = { path: '/:id' };
  req.baseUrl = '';
}

describe('HTTP metrics middleware', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let registry: Registry;
  let server: Server | undefined;

  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => {
    registry = createServiceRegistry('bff');
    exporter.reset();
  });
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  it('labels by the template matched, after express reset baseUrl for the error middleware, as the span does', async () => {
    let seen: string | undefined;
    const started = await serve(registry, (req, res) => {
      matchThenLeaveRouter(req);
      seen = routeTemplate(req);
      res.statusCode = 404;
      res.end();
    });
    server = started.server;
    expect((await fetch(`http://127.0.0.1:${started.port}/api/productos/999`)).status).toBe(404);

    const text = await waitFor(async () => {
      const t = await registry.metrics();
      return sample(t, 'http_server_requests_total', { route: '/api/productos/:id', status_code: '404' }) === 1
        ? t
        : undefined;
    }, 'the request to be counted under its template');
    expect(
      sample(text, 'http_server_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/productos/:id',
        status_code: '404',
      }),
    ).toBe(1);
    expect(seen).toBe('/api/productos/:id');
    await waitFor(() => exporter.getFinishedSpans().length === 1, 'the span to end');
    expect(exporter.getFinishedSpans()[0]!.name).toBe('GET /api/productos/:id');
  });

  it('counts a request the client abandoned before the answer as 499, with the time until it went away', async () => {
    let arrived!: () => void;
    const inHandler = new Promise<void>((resolve) => (arrived = resolve));
    const started = await serve(registry, (req) => {
      req.baseUrl = '/api/productos';
      req.route = { path: '/' };
      arrived(); // and never answers
    });
    server = started.server;
    const client = request({ host: '127.0.0.1', port: started.port, path: '/api/productos' });
    client.on('error', () => undefined);
    client.end();
    await inHandler;
    client.destroy();

    const text = await waitFor(async () => {
      const t = await registry.metrics();
      return sample(t, 'http_server_requests_total', { method: 'GET', route: '/api/productos', status_code: '499' }) ===
        1
        ? t
        : undefined;
    }, 'the abandoned request to be counted as 499');
    expect(
      sample(text, 'http_server_request_duration_seconds_count', { route: '/api/productos', status_code: '499' }),
    ).toBe(1);
    // Not under the status the response object held (200 until set).
    expect(sample(text, 'http_server_requests_total', { status_code: '200' })).toBeUndefined();
  });

  it('counts a request no route matched as unmatched, by the status it was answered with', async () => {
    const started = await serve(registry, (_req, res) => {
      res.statusCode = 401;
      res.end();
    });
    server = started.server;
    expect((await fetch(`http://127.0.0.1:${started.port}/api/productos/7`)).status).toBe(401);
    await waitFor(
      async () =>
        sample(await registry.metrics(), 'http_server_requests_total', {
          method: 'GET',
          route: 'unmatched',
          status_code: '401',
        }) === 1,
      'the request to be counted as unmatched',
    );
  });
});
