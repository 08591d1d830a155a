import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { ensureConsumer, eventSubject, type DurableConfig, type Logger } from '@inventario/platform';
import type { EventHandler } from '../handlers';
import type { ConcurrencyLimit } from './concurrency-limit';
import { startConsumerRunner, type ConsumerRunner } from './consumer-runner';
import type { Deliver } from './delivery';
import { heartbeatIntervalMs, type MessageHeartbeat } from './message-heartbeat';

/**
 * The notifier's durable consumers on the INVENTARIO stream: one per
 * handler, named after it and filtered on its event subject (an event type
 * without a handler is never delivered to the notifier), and one for
 * max-deliveries advisories (max-deliveries.ts). Every replica
 * binds the same durables, so each message is handled once per deployment,
 * not per replica. Each is consumed by a runner (consumer-runner.ts) that
 * re-creates it when it disappears; a message is held, with a heartbeat,
 * from its pull to its ack (message-heartbeat.ts).
 */

export interface ConsumerSettings {
  stream: string;
  prefix: string;
  ackWaitMs: number;
  maxDeliver: number;
}

/** The durable consumer of `handler`, as created or updated at start. */
export function consumerConfig(handler: EventHandler, settings: ConsumerSettings): DurableConfig {
  return {
    durable_name: handler.name,
    description: `Inventario notifier: "${handler.emailSubject}" emails`,
    filter_subject: eventSubject(settings.prefix, handler.eventType),
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(settings.ackWaitMs),
    max_deliver: settings.maxDeliver,
    // A consumer created for the first time reads the whole stream, so events
    // published before the notifier first ran are still emailed; those older
    // than the sent registry remembers are acked without one (delivery.ts).
    deliver_policy: DeliverPolicy.All,
  };
}

/** One durable consumer this process runs. */
export interface ConsumerSpec {
  /** Its config as created or updated at start (`durable_name` names it). */
  config: DurableConfig;
  /**
   * Handles one message and settles it (ack, nak or term), unless another
   * process holds it; never rejects. `heartbeat` runs until it resolves.
   */
  handle: (msg: JsMsg, heartbeat: MessageHeartbeat) => Promise<unknown>;
  /** Runs before the consumer is re-created after it was lost (e.g. restoring what the stream captures). */
  beforeRecreate?: () => Promise<void>;
}

/** The event consumers, one per handler: each delivers its messages with it. */
export function eventConsumerSpecs(
  handlers: readonly EventHandler[],
  settings: ConsumerSettings,
  deliver: Deliver,
): ConsumerSpec[] {
  return handlers.map((handler) => ({
    config: consumerConfig(handler, settings),
    handle: (msg, heartbeat) => deliver(handler, msg, heartbeat),
  }));
}

export interface StartConsumersOptions {
  nc: NatsConnection;
  stream: string;
  consumers: readonly ConsumerSpec[];
  /** Shared by all consumers: bounds the messages handled at once (emails in flight). */
  limit: ConcurrencyLimit;
  /** The consumers' ack_wait: a held message heartbeats every third of it. */
  ackWaitMs: number;
  logger: Logger;
  /**
   * Milliseconds between heartbeats of a held message; ack_wait / 3 unless a
   * test needs to see what happens when ack_wait runs out anyway.
   */
  heartbeatMs?: number;
}

export interface RunningConsumers {
  /**
   * Stops pulling, lets the messages in hand finish (ack or nak), and naks
   * what was pulled but not started, so another replica gets it at once.
   */
  stop(): Promise<void>;
}

/**
 * Creates or updates every consumer, then runs each (consumer-runner.ts).
 * Rejects if one cannot be set up, having stopped those already running.
 */
export async function startConsumers(options: StartConsumersOptions): Promise<RunningConsumers> {
  const { nc, stream, consumers, limit, logger } = options;
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  for (const { config } of consumers) {
    const outcome = await ensureConsumer(jsm, stream, config);
    logger.debug({ consumer: config.durable_name, outcome }, 'durable consumer ready');
  }

  const held = new Set<string>();
  const inFlight = new Set<Promise<unknown>>();
  const runners: ConsumerRunner[] = [];
  const stopAll = async () => {
    await Promise.all(runners.map((runner) => runner.stop()));
    await Promise.all([...inFlight]);
  };

  try {
    for (const { config, handle, beforeRecreate } of consumers) {
      runners.push(
        await startConsumerRunner({
          nc,
          js,
          stream,
          consumer: config.durable_name,
          recreate: async () => {
            await beforeRecreate?.();
            await ensureConsumer(jsm, stream, config);
          },
          handle,
          limit,
          heartbeatMs: options.heartbeatMs ?? heartbeatIntervalMs(options.ackWaitMs),
          held,
          inFlight,
          logger,
        }),
      );
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  logger.info(
    { stream, consumers: consumers.map((c) => c.config.durable_name), ackWaitMs: options.ackWaitMs },
    'consumers started',
  );
  return { stop: stopAll };
}
