/**
 * The admin HTTP server every service runs on METRICS_PORT: GET /metrics in
 * Prometheus text from the service's own registry (service label, process
 * metrics), JSON 404/405 for anything else, and a port that is free again
 * once closed. Plus the gRPC server wrapper and the HTTP middleware on their
 * own, which the services' metrics tests exercise end to end.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { status, type handleUnaryCall, type ServiceDefinition } from '@grpc/grpc-js';
import { createLogger, createServiceRegistry, startMetricsServer, type MetricsServer } from '@inventario/platform';
import { createGrpcServerMetrics, instrumentGrpcService } from '../src/metrics/grpc-metrics';
import { Counter, Gauge, type Registry } from 'prom-client';
import { metricSample as sample } from '@inventario/testkit';

const logger = createLogger('metrics-test', 'silent');

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe: Server = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

describe('metrics server', () => {
  let registry: Registry;
  let server: MetricsServer;
  let base: string;

  beforeAll(async () => {
    registry = createServiceRegistry('producto-svc');
    new Counter({ name: 'test_things_total', help: 'Things.', registers: [registry] }).inc(3);
    server = await startMetricsServer({ registry, host: '127.0.0.1', port: 0, logger });
    base = `http://127.0.0.1:${server.port}`;
  });

  afterAll(async () => {
    await server.close();
  });

  it('answers GET /metrics in Prometheus text, every series labelled with the service, process metrics included', async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(sample(text, 'test_things_total', { service: 'producto-svc' })).toBe(3);
    for (const name of [
      'process_resident_memory_bytes',
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(sample(text, name, { service: 'producto-svc' })).toBeGreaterThanOrEqual(0);
    }
  });

  it('ignores a query string', async () => {
    expect((await fetch(`${base}/metrics?x=1`)).status).toBe(200);
  });

  it('answers any other path with a JSON 404', async () => {
    const res = await fetch(`${base}/api/productos`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'NOT_FOUND', mensaje: expect.any(String) });
  });

  it('answers another method with a JSON 405 naming the allowed ones', async () => {
    const res = await fetch(`${base}/metrics`, { method: 'POST', body: 'x' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(await res.json()).toEqual({ error: 'METHOD_NOT_ALLOWED', mensaje: expect.any(String) });
  });

  it('closes at once with a scrape in progress: the connection is dropped, not waited for, and the port is free', async () => {
    // A collect that holds the scrape until the test lets it go.
    const slow = createServiceRegistry('producto-svc');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let collecting!: () => void;
    const inCollect = new Promise<void>((resolve) => (collecting = resolve));
    new Gauge({
      name: 'test_slow_gauge',
      help: 'Collected slowly.',
      registers: [slow],
      async collect() {
        collecting();
        await held;
      },
    });
    const other = await startMetricsServer({ registry: slow, host: '127.0.0.1', port: 0, logger });
    try {
      const scrape = fetch(`http://127.0.0.1:${other.port}/metrics`).then((res) => res.text());
      scrape.catch(() => undefined);
      await inCollect;
      const closed = other.close().then(() => 'closed');
      const waited = new Promise((resolve) => setTimeout(() => resolve('still waiting for the scrape'), 2000).unref());
      expect(await Promise.race([closed, waited])).toBe('closed');
      await expect(scrape).rejects.toThrow();
      expect(await portIsFree(other.port)).toBe(true);
    } finally {
      release();
      await other.close();
    }
  });

  it('refuses to start on a port in use, so a misconfigured service stops at start', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const { port } = squatter.address() as AddressInfo;
    try {
      await expect(startMetricsServer({ registry, host: '127.0.0.1', port, logger })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});

describe('gRPC server metrics wrapper', () => {
  const definition = {
    getThing: { path: '/test.v1.ThingService/GetThing' },
  } as unknown as ServiceDefinition;

  it('counts each call by the status it ends with and times it; every known code starts at 0', async () => {
    const registry = createServiceRegistry('bodega-svc');
    const metrics = createGrpcServerMetrics(registry, [definition]);
    const labels = { grpc_service: 'test.v1.ThingService', grpc_method: 'GetThing' };
    const before = await registry.metrics();
    expect(sample(before, 'grpc_server_handled_total', { ...labels, grpc_code: 'OK' })).toBe(0);
    expect(sample(before, 'grpc_server_handled_total', { ...labels, grpc_code: 'NOT_FOUND' })).toBe(0);

    const handler: handleUnaryCall<{ id: number }, { id: number }> = (call, callback) => {
      if (call.request.id > 0) callback(null, { id: call.request.id });
      else callback({ code: status.NOT_FOUND, details: 'no such thing' });
    };
    const wrapped = instrumentGrpcService(definition, { getThing: handler }, metrics).getThing as handleUnaryCall<
      { id: number },
      { id: number }
    >;
    const answers: unknown[] = [];
    for (const id of [1, 2, 0]) {
      wrapped({ request: { id } } as Parameters<typeof wrapped>[0], (err, value) =>
        answers.push(err ? err.code : value),
      );
    }
    // The caller's callback still gets exactly what the handler answered.
    expect(answers).toEqual([{ id: 1 }, { id: 2 }, status.NOT_FOUND]);
    const after = await registry.metrics();
    expect(sample(after, 'grpc_server_handled_total', { ...labels, grpc_code: 'OK' })).toBe(2);
    expect(sample(after, 'grpc_server_handled_total', { ...labels, grpc_code: 'NOT_FOUND' })).toBe(1);
    expect(sample(after, 'grpc_server_handling_seconds_count', labels)).toBe(3);
  });
});
