import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Knex } from '../db';
import type { Logger } from '../logger';
import { pendingOutboxSummary } from '../outbox';
import { startSampler } from './sampler';

export interface OutboxRelayMetrics {
  /** Seconds from the row's INSERT (a little before its commit) to JetStream's ack. */
  lag: Histogram;
  published: Counter;
  failures: Counter;
}

export interface OutboxMetrics extends OutboxRelayMetrics {
  pendingRows: Gauge;
  oldestPendingAge: Gauge;
}

/** Two indexed queries per interval and replica. */
const OUTBOX_SAMPLE_INTERVAL_MS = 5000;

export function createOutboxMetrics(registry: Registry): OutboxMetrics {
  const registers = [registry];
  return {
    pendingRows: new Gauge({
      name: 'inventario_outbox_pending_rows',
      help: 'Outbox rows committed and not yet published to JetStream.',
      registers,
    }),
    oldestPendingAge: new Gauge({
      name: 'inventario_outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest unpublished outbox row since its insert (created_at), 0 when none is pending.',
      registers,
    }),
    lag: new Histogram({
      name: 'inventario_outbox_publish_lag_seconds',
      help:
        "Time from an outbox row's insert (created_at, in the write's transaction) to " +
        "JetStream's ack of its event.",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    }),
    published: new Counter({
      name: 'inventario_outbox_published_total',
      help: 'Outbox events JetStream acknowledged.',
      registers,
    }),
    failures: new Counter({
      name: 'inventario_outbox_publish_failures_total',
      help: 'Relay rounds that failed: a publish JetStream did not acknowledge, or the database unreachable.',
      registers,
    }),
  };
}

/** Sampled, not on scrape, so a scrape never waits on the database; alert on max across replicas, not sum. */
export function startOutboxSampler(options: {
  db: Knex;
  metrics: OutboxMetrics;
  logger: Logger;
  intervalMs?: number;
}): () => Promise<void> {
  const { db, metrics } = options;
  return startSampler(
    'outbox',
    options.intervalMs ?? OUTBOX_SAMPLE_INTERVAL_MS,
    async () => {
      const { pending, oldestAgeSeconds } = await pendingOutboxSummary(db);
      metrics.pendingRows.set(pending);
      metrics.oldestPendingAge.set(oldestAgeSeconds);
    },
    options.logger,
  );
}
