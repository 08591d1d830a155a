/**
 * producto-svc's GET /metrics on its own port (METRICS_PORT=0 here), scraped
 * after real traffic: gRPC server metrics by method and code, the outbox
 * (published, lag, pending rows while NATS is unreachable) and the
 * reconciliation consumer's gauges while it is held up.
 */
import { status } from '@grpc/grpc-js';
import { jetstream } from '@nats-io/jetstream';
import { buildEnvelope, eventAudit, eventSubject, type DeletedEventData } from '@inventario/platform';
import { metricSample as sample, scrapeMetrics as scrape, startPrivateNatsServer, waitFor } from '@inventario/testkit';
import { BODEGA_ELIMINADA_CONSUMER } from '../src/events/bodega-eliminada-consumer';
import { startBodegaSvcProcess, type BodegaSvcUnderTest } from '@inventario/testkit/grpc';
import { startTestService, type TestService } from './support/test-service';

const GET = { grpc_service: 'inventario.v1.ProductoService', grpc_method: 'GetProducto' };
const PRODUCTO = { nombre: 'Tornillo', precio: '0.25', cantidadEnStock: 10 };

describe('producto-svc metrics', () => {
  let svc: TestService;
  // The reconciliation asks bodega-svc whether it deleted a warehouse: a real one, the built service as a process.
  let bodegaSvc: BodegaSvcUnderTest;

  beforeAll(async () => {
    bodegaSvc = await startBodegaSvcProcess('p_metrics_b');
    // No statement limit: a test below holds a row lock, with the consumer waiting on it, for as long as the sampler takes.
    svc = await startTestService('p_metrics', { BODEGA_SVC_ADDR: bodegaSvc.address, DB_STATEMENT_TIMEOUT_MS: '0' });
    await svc.app.ready;
  });

  afterAll(async () => {
    await svc?.close();
    await bodegaSvc?.close();
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
    const delta = (name: string, labels: Record<string, string>) =>
      (sample(after, name, labels) ?? NaN) - (sample(before, name, labels) ?? 0);
    expect(delta('grpc_server_handled_total', { ...GET, grpc_code: 'OK' })).toBe(1);
    expect(delta('grpc_server_handled_total', { ...GET, grpc_code: 'NOT_FOUND' })).toBe(1);
    expect(delta('grpc_server_handled_total', { grpc_method: 'CreateProducto', grpc_code: 'OK' })).toBe(1);
    expect(delta('grpc_server_handling_seconds_count', GET)).toBe(2);
  });

  it("counts a create's event as published, with its insert-to-ack lag", async () => {
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

  it('reports the reconciliation consumer as sampled from JetStream: events waiting while it is held up, then none', async () => {
    const labels = { consumer: BODEGA_ELIMINADA_CONSUMER };
    const events = 5;
    // A warehouse bodega-svc deleted: the reconciliation acts only on a deletion its owner confirms. The product is
    // created while it exists (producto-svc asks bodega-svc), then bodega-svc deletes it, writing its units out.
    const { bodega } = await bodegaSvc.rpc.createBodega({ nombre: 'Bodega Sur', capacidad: 1 });
    const bodegaId = bodega!.id;
    const { producto } = await svc.api.create({ ...PRODUCTO, bodegaId });
    while ((await bodegaSvc.rpc.deleteBodega({ id: bodegaId, retirarExistencias: true })).pendiente);
    // Hold the product's row lock: the consumer's first unassignment waits on it, and the events behind it wait in the stream.
    const trx = await svc.db.transaction();
    try {
      await trx('productos').where({ id: producto!.id }).forUpdate().first('id');
      const js = jetstream(svc.nc);
      for (let i = 0; i < events; i += 1) {
        const data: DeletedEventData = {
          id: bodegaId,
          nombre: 'Bodega Sur',
          ...eventAudit('DELETE', 'ana', new Date()),
          version: 1,
        };
        await js.publish(
          eventSubject(svc.namespace.prefix, 'BodegaEliminada'),
          JSON.stringify(
            buildEnvelope({
              namespace: 'Service',
              type: 'BodegaEliminada',
              source: 'bodega-svc',
              subject: `/bodegas/${bodegaId}`,
              data,
              at: new Date(),
            }),
          ),
        );
      }
      // Only a sample of the consumer's info can say so (every gauge started at 0): each event is
      // either not delivered yet, or delivered and not acked (the one in hand, one pulled ahead).
      const gauge = (t: string, name: string) =>
        sample(t, `inventario_jetstream_consumer_${name}_messages`, labels) ?? NaN;
      const held = await waitFor(
        async () => {
          const t = await scrape(svc.app.metricsPort);
          return gauge(t, 'pending') + gauge(t, 'ack_pending') === events ? t : undefined;
        },
        'the sampler to see every event waiting',
        20_000,
      );
      expect(gauge(held, 'pending')).toBeGreaterThan(0);
      expect(gauge(held, 'ack_pending')).toBeGreaterThanOrEqual(1);
      expect(gauge(held, 'redelivered')).toBe(0);
    } finally {
      await trx.rollback();
    }
    await waitFor(
      async () => {
        const t = await scrape(svc.app.metricsPort);
        return (
          sample(t, 'inventario_jetstream_consumer_pending_messages', labels) === 0 &&
          sample(t, 'inventario_jetstream_consumer_ack_pending_messages', labels) === 0
        );
      },
      'the sampler to see every event handled',
      20_000,
    );
    expect(sample(await scrape(svc.app.metricsPort), 'inventario_jetstream_redeliveries_total', labels)).toBe(0);
  });

  it("reports pending rows and the oldest one's age during a NATS outage, then the lag from insert to ack", async () => {
    const nats = await startPrivateNatsServer();
    await nats.stop();
    const offline = await startTestService('p_metrics_off', { NATS_URL: nats.url });
    try {
      await offline.api.create(PRODUCTO);
      await offline.api.create(PRODUCTO);
      const during = await waitFor(
        async () => {
          const t = await scrape(offline.app.metricsPort);
          return sample(t, 'inventario_outbox_pending_rows') === 2 ? t : undefined;
        },
        'the sampler to see both pending rows',
        20_000,
      );
      const oldestAge = sample(during, 'inventario_outbox_oldest_pending_age_seconds') ?? NaN;
      expect(oldestAge).toBeGreaterThan(0);
      expect(sample(during, 'inventario_outbox_published_total')).toBe(0);

      await nats.start();
      const after = await waitFor(
        async () => {
          const t = await scrape(offline.app.metricsPort);
          return sample(t, 'inventario_outbox_published_total') === 2 &&
            sample(t, 'inventario_outbox_pending_rows') === 0
            ? t
            : undefined;
        },
        'both events published and the gauge back to 0',
        30_000,
      );
      expect(sample(after, 'inventario_outbox_oldest_pending_age_seconds')).toBe(0);
      expect(sample(after, 'inventario_outbox_publish_lag_seconds_count')).toBe(2);
      // Each lag runs from the row's insert, so it covers the outage the row waited through.
      expect(sample(after, 'inventario_outbox_publish_lag_seconds_sum')).toBeGreaterThan(oldestAge);
    } finally {
      await offline.close();
      await nats.dispose();
    }
  });
});
