import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  type ConsumerConfig,
  type ConsumerMessages,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { eventSubject, type Logger } from '@inventario/platform';
import type { EventHandler } from '../handlers';
import type { ConcurrencyLimit } from './concurrency-limit';
import type { Deliver } from './delivery';

/**
 * The six durable consumers on the INVENTARIO stream, one per handler, named
 * after it and filtered on its event subject. Every replica binds the same
 * durable, so each event is handled once per deployment, not per replica.
 */

export interface ConsumerSettings {
  stream: string;
  prefix: string;
  ackWaitMs: number;
  maxDeliver: number;
}

/** The durable consumer of `handler`, as created or updated at start. */
export function consumerConfig(handler: EventHandler, settings: ConsumerSettings): Partial<ConsumerConfig> {
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

/**
 * Creates the consumer, or brings an existing one's ack_wait, max_deliver and
 * filter in line with ours (a deployment keeps its consumer, with its
 * position, across releases). Its start point is never changed. Safe from
 * every replica at once.
 */
export async function ensureConsumer(jsm: JetStreamManager, stream: string, config: Partial<ConsumerConfig>): Promise<'created' | 'updated'> {
  const name = config.durable_name ?? '';
  const exists = await jsm.consumers.info(stream, name).then(
    () => true,
    (err: unknown) => {
      // Anything but "not found" (NATS unreachable, no JetStream) is retried by the caller.
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.ConsumerNotFound) return false;
      throw err;
    },
  );
  if (!exists) {
    try {
      await jsm.consumers.add(stream, config);
      return 'created';
    } catch (err) {
      // Another replica may have created it between our info and add: then
      // update it below; otherwise the server refused our config.
      const createdMeanwhile = await jsm.consumers.info(stream, name).then(
        () => true,
        () => false,
      );
      if (!createdMeanwhile) throw err;
    }
  }
  await jsm.consumers.update(stream, name, {
    description: config.description,
    ack_wait: config.ack_wait,
    max_deliver: config.max_deliver,
    filter_subject: config.filter_subject,
  });
  return 'updated';
}

export interface StartConsumersOptions {
  nc: NatsConnection;
  handlers: readonly EventHandler[];
  settings: ConsumerSettings;
  deliver: Deliver;
  /** Shared by all consumers: bounds the emails in flight overall. */
  limit: ConcurrencyLimit;
  logger: Logger;
}

export interface RunningConsumers {
  /**
   * Stops pulling, lets the emails in flight finish (ack or nak), and naks
   * what was pulled but not started, so another replica gets it at once.
   */
  stop(): Promise<void>;
}

export async function startConsumers(options: StartConsumersOptions): Promise<RunningConsumers> {
  const { nc, handlers, settings, deliver, limit, logger } = options;
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  for (const handler of handlers) {
    const outcome = await ensureConsumer(jsm, settings.stream, consumerConfig(handler, settings));
    logger.debug({ consumer: handler.name, outcome }, 'durable consumer ready');
  }

  let stopping = false;
  const inFlight = new Set<Promise<unknown>>();
  const running: Array<{ messages: ConsumerMessages; loop: Promise<void> }> = [];

  async function run(handler: EventHandler, messages: ConsumerMessages): Promise<void> {
    for await (const msg of messages) {
      if (stopping) {
        msg.nak();
        continue;
      }
      const release = await limit.acquire();
      if (stopping) {
        release();
        msg.nak();
        continue;
      }
      const work = deliver(handler, msg).finally(() => {
        release();
        inFlight.delete(work);
      });
      inFlight.add(work);
    }
  }

  const stopAll = async () => {
    stopping = true;
    await Promise.all(running.map(({ messages }) => messages.close()));
    await Promise.all(running.map(({ loop }) => loop));
    await Promise.all([...inFlight]);
  };

  try {
    for (const handler of handlers) {
      const consumer = await js.consumers.get(settings.stream, handler.name);
      // One message pulled ahead per consumer, so a pulled message waits for
      // a free slot a few sends at most, well within ack_wait (and handling
      // restarts its ack_wait).
      const messages = await consumer.consume({ max_messages: 1 });
      const loop = run(handler, messages).catch((err: unknown) => {
        logger.error({ consumer: handler.name, err }, 'consumer stopped unexpectedly');
      });
      running.push({ messages, loop });
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  logger.info(
    { stream: settings.stream, consumers: handlers.map((h) => h.name), ackWaitMs: settings.ackWaitMs, maxDeliver: settings.maxDeliver },
    'consumers started',
  );
  return { stop: stopAll };
}
