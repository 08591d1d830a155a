/**
 * producto-svc's GET /metrics on its own port (METRICS_PORT=0 here), scraped
 * after real traffic: gRPC server metrics by method and code, the outbox
 * (published, lag, pending rows while NATS is unreachable) and the
 * reconciliation consumer's gauges.
 */
import { status } from '@grpc/grpc-js';
import { metricSample as sample, scrapeMetrics as scrape, startPrivateNatsServer, waitFor } from '@inventario/testkit';
import { BODEGA_ELIMINADA_CONSUMER } from '../src/events/bodega-eliminada-consumer';
import { startTestService, type TestService } from './support/test-service';

const GET = { grpc_service: 'inventario.v1.ProductoService', grpc_method: 'GetProducto' };
const PRODUCTO = { nombre: 'Tornillo', precio: '0.25', cantidadEnStock: 10 };

describe('producto-svc metrics', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService('p_metrics');
    await svc.app.ready;
  });

  afterAll(async () => {
    await svc?.close();
  });

  it('serves metrics on METRICS_PORT, not on the gRPC port, labelled service="producto-svc"', async () => {
    expect(svc.app.metricsPort).toBeGreaterThan(0);
    expect(svc.app.metricsPort).not.toBe(svc.app.grpcPort);
    const text = await scrape(svc.app.metricsPort);
    expect(sample(text, 'process_resident_memory_bytes', { service: 'producto-svc' })).toBeGreaterThan(0);
    // Every series exists from the start, at 0.
    expect(sample(text, 'grpc_server_handled_total', { ...GET, grpc_code: 'UNAVAILABLE' })).toBe(0);
    expect(sample(text, 'inventario_outbox_publish_failures_total')).toBe(0);
  });

  it('counts gRPC calls by method and status code and times them', async () => {
    const before = await scrape(svc.app.metricsPort);
    const { producto } = await svc.api.create(PRODUCTO);
    await svc.api.get(producto!.id);
    await expect(svc.api.get(999_999)).rejects.toMatchObject({ code: status.NOT_FOUND });
    const after = await scrape(svc.app.metricsPort);
    const delta = (name: string, labels: Record<string, string>) => (sample(after, name, labels) ?? NaN) - (sample(before, name, labels) ?? 0);
    expect(delta('grpc_server_handled_total', { ...GET, grpc_code: 'OK' })).toBe(1);
    expect(delta('grpc_server_handled_total', { ...GET, grpc_code: 'NOT_FOUND' })).toBe(1);
    expect(delta('grpc_server_handled_total', { grpc_method: 'CreateProducto', grpc_code: 'OK' })).toBe(1);
    expect(delta('grpc_server_handling_seconds_count', GET)).toBe(2);
  });

  it('counts a create\'s event as published, with its commit-to-ack lag', async () => {
    const before = await scrape(svc.app.metricsPort);
    const published = sample(before, 'inventario_outbox_published_total') ?? NaN;
    const lags = sample(before, 'inventario_outbox_publish_lag_seconds_count') ?? NaN;
    await svc.api.create(PRODUCTO);
    const after = await waitFor(async () => {
      const text = await scrape(svc.app.metricsPort);
      return (sample(text, 'inventario_outbox_published_total') ?? 0) > published ? text : undefined;
    }, 'the relay to count the published event');
    expect(sample(after, 'inventario_outbox_published_total')).toBe(published + 1);
    expect(sample(after, 'inventario_outbox_publish_lag_seconds_count')).toBe(lags + 1);
    expect(sample(after, 'inventario_outbox_publish_lag_seconds_sum')).toBeGreaterThan(0);
  });

  it('reports the reconciliation consumer, sampled from JetStream', async () => {
    const labels = { consumer: BODEGA_ELIMINADA_CONSUMER };
    const text = await waitFor(async () => {
      const t = await scrape(svc.app.metricsPort);
      return sample(t, 'inventario_jetstream_consumer_pending_messages', labels) !== undefined ? t : undefined;
    }, 'the consumer gauges');
    expect(sample(text, 'inventario_jetstream_consumer_ack_pending_messages', labels)).toBe(0);
    expect(sample(text, 'inventario_jetstream_consumer_redelivered_messages', labels)).toBe(0);
    expect(sample(text, 'inventario_jetstream_redeliveries_total', labels)).toBe(0);
  });

  it('reports pending rows and the oldest one\'s age during a NATS outage, then the lag from commit to ack', async () => {
    const nats = await startPrivateNatsServer();
    await nats.stop();
    const offline = await startTestService('p_metrics_off', { NATS_URL: nats.url });
    try {
      await offline.api.create(PRODUCTO);
      await offline.api.create(PRODUCTO);
      const during = await waitFor(async () => {
        const t = await scrape(offline.app.metricsPort);
        return sample(t, 'inventario_outbox_pending_rows') === 2 ? t : undefined;
      }, 'the sampler to see both pending rows', 20_000);
      const oldestAge = sample(during, 'inventario_outbox_oldest_pending_age_seconds') ?? NaN;
      expect(oldestAge).toBeGreaterThan(0);
      expect(sample(during, 'inventario_outbox_published_total')).toBe(0);

      await nats.start();
      const after = await waitFor(async () => {
        const t = await scrape(offline.app.metricsPort);
        return sample(t, 'inventario_outbox_published_total') === 2 && sample(t, 'inventario_outbox_pending_rows') === 0 ? t : undefined;
      }, 'both events published and the gauge back to 0', 30_000);
      expect(sample(after, 'inventario_outbox_oldest_pending_age_seconds')).toBe(0);
      expect(sample(after, 'inventario_outbox_publish_lag_seconds_count')).toBe(2);
      // Each lag runs from the row's commit, so it covers the outage the row waited through.
      expect(sample(after, 'inventario_outbox_publish_lag_seconds_sum')).toBeGreaterThan(oldestAge);
    } finally {
      await offline.close();
      await nats.dispose();
    }
  });
});
