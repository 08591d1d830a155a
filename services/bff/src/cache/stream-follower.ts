import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JsMsg,
} from '@nats-io/jetstream';
import { connectNatsUnlessAborted, type Logger, type NatsConnection } from '@inventario/platform';

/** What a follower needs of the cache it keeps: the read cache and the credential cache both are one. */
export interface FollowedCache {
  /** Moves on at every event or doubt; a subscription resumes the cache only for the epoch it was created at. */
  readonly epoch: number;
  readonly bypassed: boolean;
  /** Bypasses and empties it now. */
  bypass(): void;
  /** Serves again if nothing happened since `epoch`. */
  resume(epoch: number): boolean;
}

export interface StreamFollowerOptions {
  natsUrl: string;
  /** A NATS user and password (the chart's `bff` user), or none. */
  credentials?: { user: string; pass: string };
  stream: string;
  /** The subjects followed (`inventario.>`, `inventario.identidad.>`). */
  filterSubject: string;
  /** The NATS connection's name (`bff`). */
  connectionName: string;
  /** The consumers' name before a random id: the chart's `bff` NATS user may manage consumers named bff-… only. */
  consumerPrefix: string;
  cache: FollowedCache;
  logger: Logger;
  /** Server heartbeat period of the subscription; two missed in a row are a doubt. Default 1000. */
  idleHeartbeatMs?: number;
  /** The follower's log lines: when the cache is bypassed, when it follows, when the follower stopped for good. */
  says: { bypassed: string; following: string; stopped: string };
  /** Applies one event to the cache; a throw is a doubt (the subscription starts over). */
  handle(m: JsMsg): void;
}

export interface StreamFollower {
  /** Ends the subscription and the NATS connection. */
  stop(): Promise<void>;
}

/** Subscription statuses that may have cost an event. */
const DOUBTFUL_STATUSES = [
  'heartbeats_missed',
  'consumer_not_found',
  'consumer_deleted',
  'stream_not_found',
  'reset',
  'ordered_consumer_recreated',
  'no_responders',
];

/**
 * Keeps a cache coherent with an event stream (docs/decisions.md, "Read cache"; the credential cache of
 * "Identities at the gateway" follows the same rule). One ephemeral consumer from "new" (no durable state, no acks)
 * over `filterSubject`. Anything that may have cost an event (the connection dropping or coming back, missed
 * heartbeats, a gap in the consumer's delivery sequence, the consumer or stream vanishing, an event `handle` cannot
 * read, any error) bypasses and empties the cache at once; then, once NATS answers, a NEW consumer is created from
 * "new" and the cache resumes only after the server confirmed it, with nothing cached from before. nats.js' own
 * ordered-consumer recovery (resume after the last sequence seen) is not used: after a server restart or a stream
 * reset that sequence no longer vouches for anything. One closure: `doubt`, `followOnce` and `run` share the current
 * subscription, the connection and the abort signal, so a doubt's steps read in one place.
 */
export function followStream(options: StreamFollowerOptions): StreamFollower {
  const { cache, logger, stream, says } = options;
  const heartbeatMs = options.idleHeartbeatMs ?? 1000;
  const abort = new AbortController();
  let nc: NatsConnection | undefined;
  let current: ConsumerMessages | undefined;

  /** The one reaction to anything uncertain: bypass and empty now, then a fresh subscription. */
  function doubt(reason: string, err?: unknown): void {
    const wasServing = !cache.bypassed;
    cache.bypass();
    if (wasServing && !abort.signal.aborted) logger.warn({ reason, err }, says.bypassed);
    const messages = current;
    current = undefined;
    messages?.stop();
  }

  /** One subscription: created from "new", confirmed, followed until a doubt ends it. */
  async function followOnce(connection: NatsConnection): Promise<void> {
    // Bypassed and emptied before the consumer exists: whatever was committed before it
    // is read from the services once we resume, whatever comes after is delivered.
    cache.bypass();
    const epoch = cache.epoch;
    const jsm = await jetstreamManager(connection);
    const info = await jsm.consumers.add(stream, {
      // Named here, so the name is in the API subjects: the chart's `bff` user
      // may create and delete consumers of its choosing, never another user's
      // durable (docs/contract.md §5.7).
      name: `${options.consumerPrefix}-${randomUUID()}`,
      deliver_policy: DeliverPolicy.New,
      ack_policy: AckPolicy.None,
      filter_subject: options.filterSubject,
      mem_storage: true,
      // One copy even when the stream has three (NATS_STREAM_REPLICAS): it is re-created at every doubt, and
      // JetStream places a three-copy consumer only on three live nodes, so with a node lost a re-created one
      // failed until the node returned (bypassed 31 s of 50 s in test/faults/nats-cluster.test.ts; 11 s with one).
      num_replicas: 1,
      // The server removes it once nobody pulls (this replica gone, or a new consumer in its place).
      inactive_threshold: 30_000 * 1_000_000,
    });
    const consumer = await jetstream(connection).consumers.get(stream, info.name);
    let expected = 1;
    // A callback, not the async iterator: `handle` is synchronous, and the iterator cost a promise and a generator
    // step per event, on every replica for every event of the stream. A throw stops the subscription with it
    // (closed() answers it): a doubt. An event handled before the resume below only touches a bypassed cache.
    const messages = await consumer.consume({
      idle_heartbeat: heartbeatMs,
      max_messages: 256,
      callback: (m) => {
        if (m.info.deliverySequence !== expected)
          throw new Error(`delivery sequence ${m.info.deliverySequence}, expected ${expected}`);
        expected++;
        options.handle(m);
      },
    });
    current = messages;
    void (async () => {
      for await (const status of messages.status()) {
        if (DOUBTFUL_STATUSES.includes(status.type)) doubt(`subscription: ${status.type}`);
      }
    })().catch((err: unknown) => doubt('subscription status failed', err));
    if (!cache.resume(epoch)) {
      // A doubt arrived while the consumer was being created: start over.
      messages.stop();
      return;
    }
    logger.info({ consumer: info.name }, says.following);
    try {
      const stopped = await messages.closed();
      if (stopped instanceof Error) throw stopped;
    } finally {
      messages.stop();
      // Stopping: the server removes it after inactive_threshold (a request now would outlive the connection).
      if (!abort.signal.aborted) void jsm.consumers.delete(stream, info.name).catch(() => undefined);
    }
    if (current === messages) throw new Error('subscription ended');
  }

  async function run(): Promise<void> {
    const connection = await connectNatsUnlessAborted(
      options.natsUrl,
      options.connectionName,
      logger,
      abort.signal,
      options.credentials,
    );
    nc = connection;
    void (async () => {
      for await (const s of connection.status()) {
        if (
          s.type === 'disconnect' ||
          s.type === 'reconnect' ||
          s.type === 'staleConnection' ||
          s.type === 'ldm' ||
          s.type === 'error'
        )
          doubt(`nats ${s.type}`);
      }
    })();
    while (!abort.signal.aborted && !connection.isClosed()) {
      try {
        await followOnce(connection);
      } catch (err) {
        doubt('subscription failed', err);
        await sleep(500, undefined, { signal: abort.signal }).catch(() => undefined);
      }
    }
  }

  const running = run().catch((err: unknown) => {
    if (!abort.signal.aborted) logger.error({ err }, says.stopped);
  });

  return {
    async stop() {
      abort.abort();
      cache.bypass();
      current?.stop();
      if (nc && !nc.isClosed()) await nc.close().catch(() => undefined);
      await running;
    },
  };
}
