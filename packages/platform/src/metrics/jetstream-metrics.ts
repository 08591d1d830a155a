import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../logger';
import { startSampler } from './sampler';

export interface JetStreamConsumerMetrics {
  pending: Gauge<'consumer'>;
  ackPending: Gauge<'consumer'>;
  redelivered: Gauge<'consumer'>;
  /** Counted by the consumer code, not sampled. */
  redeliveries: Counter<'consumer'>;
}

/** Cheap for the server, fresh enough for a 15 s scrape. */
const CONSUMER_SAMPLE_INTERVAL_MS = 5000;

export function createJetStreamConsumerMetrics(
  registry: Registry,
  consumers: readonly string[],
): JetStreamConsumerMetrics {
  const gauge = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['consumer'] as const, registers: [registry] });
  const metrics: JetStreamConsumerMetrics = {
    pending: gauge(
      'inventario_jetstream_consumer_pending_messages',
      'Stream messages the durable consumer has not delivered yet (num_pending).',
    ),
    ackPending: gauge(
      'inventario_jetstream_consumer_ack_pending_messages',
      'Messages delivered and not yet acknowledged (num_ack_pending).',
    ),
    redelivered: gauge(
      'inventario_jetstream_consumer_redelivered_messages',
      'Messages delivered more than once and not yet acknowledged (num_redelivered).',
    ),
    redeliveries: new Counter({
      name: 'inventario_jetstream_redeliveries_total',
      help: 'Deliveries this process received with a delivery count above 1.',
      labelNames: ['consumer'] as const,
      registers: [registry],
    }),
  };
  for (const consumer of consumers) {
    for (const g of [metrics.pending, metrics.ackPending, metrics.redelivered]) g.set({ consumer }, 0);
    metrics.redeliveries.labels({ consumer }).inc(0);
  }
  return metrics;
}

export interface ConsumerSamplerOptions {
  nc: NatsConnection;
  stream: string;
  consumers: readonly string[];
  metrics: JetStreamConsumerMetrics;
  logger: Logger;
  intervalMs?: number;
}

/** Server-side numbers: every replica reports the same values, so alert on max, not sum. */
export function startConsumerSampler(options: ConsumerSamplerOptions): () => Promise<void> {
  const { nc, stream, consumers, metrics } = options;
  // Created once: each creation asks the server for $JS.API.INFO.
  let manager: Promise<JetStreamManager> | undefined;
  return startSampler(
    'jetstream consumer',
    options.intervalMs ?? CONSUMER_SAMPLE_INTERVAL_MS,
    async () => {
      manager ??= jetstreamManager(nc).catch((err: unknown) => {
        manager = undefined;
        throw err;
      });
      const jsm = await manager;
      for (const consumer of consumers) {
        const info = await jsm.consumers.info(stream, consumer);
        metrics.pending.set({ consumer }, info.num_pending);
        metrics.ackPending.set({ consumer }, info.num_ack_pending);
        metrics.redelivered.set({ consumer }, info.num_redelivered);
      }
    },
    options.logger,
  );
}

/** How full each stream is: a full one refuses new messages (discard new), so its fullness is alerted on. */
export interface JetStreamStreamMetrics {
  bytes: Gauge<'stream'>;
  /** Only for a stream with a byte cap: no series means none. */
  maxBytes: Gauge<'stream'>;
  messages: Gauge<'stream'>;
}

export function createJetStreamStreamMetrics(registry: Registry): JetStreamStreamMetrics {
  const gauge = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ['stream'] as const, registers: [registry] });
  return {
    bytes: gauge('inventario_jetstream_stream_bytes', 'Bytes the stream holds (state.bytes).'),
    maxBytes: gauge(
      'inventario_jetstream_stream_max_bytes',
      "The stream's byte cap (max_bytes); absent when it has none. Full, it refuses new messages.",
    ),
    messages: gauge('inventario_jetstream_stream_messages', 'Messages the stream holds (state.messages).'),
  };
}

export interface StreamSamplerOptions {
  nc: NatsConnection;
  streams: readonly string[];
  metrics: JetStreamStreamMetrics;
  logger: Logger;
  intervalMs?: number;
}

/** Server-side numbers, like the consumers': every replica reports the same, so alert on max. */
export function startStreamSampler(options: StreamSamplerOptions): () => Promise<void> {
  const { nc, streams, metrics } = options;
  let manager: Promise<JetStreamManager> | undefined;
  return startSampler(
    'jetstream stream',
    options.intervalMs ?? CONSUMER_SAMPLE_INTERVAL_MS,
    async () => {
      manager ??= jetstreamManager(nc).catch((err: unknown) => {
        manager = undefined;
        throw err;
      });
      const jsm = await manager;
      for (const stream of streams) {
        const { config, state } = await jsm.streams.info(stream);
        metrics.bytes.set({ stream }, state.bytes);
        metrics.messages.set({ stream }, state.messages);
        if (config.max_bytes > 0) metrics.maxBytes.set({ stream }, config.max_bytes);
        else metrics.maxBytes.remove({ stream });
      }
    },
    options.logger,
  );
}
