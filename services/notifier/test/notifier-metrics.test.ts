/**
 * The notifier's GET /metrics on its own port (METRICS_PORT=0 here): its
 * email counters, process metrics, and the event consumers' gauges (sampled
 * from JetStream) and redeliveries, scraped while an event is retried
 * against a refusing SMTP server and once it is sent.
 */
import { sampleEnvelope } from '../src/sample-events';
import { HANDLERS } from '../src/handlers';
import { metricSample as sample, scrapeMetrics as scrape, waitFor } from '@inventario/testkit';
import { handlerFor, startTestNotifier, type TestNotifier } from './support/test-notifier';

describe('notifier metrics', () => {
  let t: TestNotifier;

  beforeAll(async () => {
    // The second failure waits a minute: the event then sits redelivered and unacknowledged.
    t = await startTestNotifier({ NOTIFIER_BACKOFF_MS: '200,60000' });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('serves its registry on METRICS_PORT: email counters at 0, process metrics, service="notifier"', async () => {
    const text = await scrape(t.app.metricsPort);
    expect(sample(text, 'process_resident_memory_bytes', { service: 'notifier' })).toBeGreaterThan(0);
    for (const name of [
      'notifier_emails_sent_total',
      'notifier_emails_retried_total',
      'notifier_emails_dead_lettered_total',
    ]) {
      expect(sample(text, name, { event_type: 'BodegaEliminada', service: 'notifier' })).toBe(0);
      expect(sample(text, name, { event_type: 'StockBajo', service: 'notifier' })).toBe(0);
      // No series for the event types the notifier does not email.
      expect(text).not.toMatch(new RegExp(`^${name}\\{[^}]*event_type="(MovimientoRegistrado|StockRepuesto)"`, 'm'));
    }
  });

  it('has every consumer series of the eight event consumers from the start', async () => {
    expect(HANDLERS).toHaveLength(8);
    for (const { name } of HANDLERS) {
      const text = await scrape(t.app.metricsPort);
      expect(sample(text, 'inventario_jetstream_consumer_pending_messages', { consumer: name })).toBe(0);
      expect(sample(text, 'inventario_jetstream_consumer_ack_pending_messages', { consumer: name })).toBe(0);
      expect(sample(text, 'inventario_jetstream_consumer_redelivered_messages', { consumer: name })).toBe(0);
      expect(sample(text, 'inventario_jetstream_redeliveries_total', { consumer: name })).toBe(0);
    }
  });

  it('counts the redelivery and the retries of an event the SMTP server refuses, and shows it pending', async () => {
    t.sink.setMode({ accept: false, code: 451, message: 'try again later' });
    const consumer = { consumer: handlerFor('ProductoCreado') };
    await t.events.publish('ProductoCreado', sampleEnvelope('ProductoCreado', { id: 901, nombre: 'Reintento' }));

    const text = await waitFor(
      async () => {
        const s = await scrape(t.app.metricsPort);
        const sampled = sample(s, 'inventario_jetstream_consumer_redelivered_messages', consumer) === 1;
        return sampled && sample(s, 'notifier_emails_retried_total', { event_type: 'ProductoCreado' }) === 2
          ? s
          : undefined;
      },
      'the retried event in the counters and the sampled gauges',
      20_000,
    );
    expect(sample(text, 'inventario_jetstream_redeliveries_total', consumer)).toBe(1);
    expect(sample(text, 'inventario_jetstream_consumer_ack_pending_messages', consumer)).toBe(1);
    expect(sample(text, 'notifier_emails_sent_total', { event_type: 'ProductoCreado' })).toBe(0);
    // Another consumer saw nothing.
    expect(sample(text, 'inventario_jetstream_redeliveries_total', { consumer: handlerFor('BodegaCreada') })).toBe(0);
  });
});
