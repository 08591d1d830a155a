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
import type { ReadCache } from './read-cache';
import type { WriteAcks } from './write-acks';
import { SIN_UBICAR } from '../inventario/totales-del-libro';

/** A NATS user and password (the chart's `bff` user), or none. */
type NatsCredentials = { user: string; pass: string } | undefined;

export interface EventFollowerOptions {
  natsUrl: string;
  credentials?: NatsCredentials;
  stream: string;
  /** The subject prefix the services publish under (`inventario`). */
  prefix: string;
  cache: ReadCache;
  /** Writes this replica acknowledged, to measure how long their events took. */
  acks: WriteAcks;
  logger: Logger;
  /** Seconds from a write's acknowledgement (or the stream's timestamp) to its event reaching this replica. */
  onEventDelay?: (seconds: number, measuredFrom: 'write_ack' | 'stream') => void;
  /** Server heartbeat period of the subscription; two missed in a row are a doubt. Default 1000. */
  idleHeartbeatMs?: number;
}

export interface EventFollower {
  /** Ends the subscription and the NATS connection. */
  stop(): Promise<void>;
}

/** The part of an event envelope the cache reads (docs/contract.md §5.2, §5.3, §10.4). */
interface Envelope {
  data?: {
    productoId?: unknown;
    bodegaId?: unknown;
    id?: unknown;
    version?: unknown;
    operacionId?: unknown;
    movimientos?: { bodegaId?: unknown; productoId?: unknown }[];
  };
}

/** Thrown for an event the cache cannot read: a doubt, like a gap. */
class UnreadableEvent extends Error {}

function positiveId(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)
    throw new UnreadableEvent(`${what} is not an id`);
  return value;
}

function versionOf(envelope: Envelope): number | undefined {
  const version = envelope.data?.version;
  return typeof version === 'number' ? version : undefined;
}

/**
 * Keeps the read cache coherent with the event stream (docs/decisions.md,
 * "Read cache"). One ephemeral consumer from "new" (no durable state, no
 * acks) over the services' subjects; every product, warehouse and stock
 * event touches what it names. Anything that may have cost an event (the
 * connection dropping or coming back, missed heartbeats, a gap in the
 * consumer's delivery sequence, the consumer or stream vanishing, an
 * unreadable event, any error) bypasses and empties the cache at once;
 * then, once NATS answers, a NEW consumer is created from "new" and the
 * cache resumes only after the server confirmed it, with nothing cached
 * from before. nats.js' own ordered-consumer recovery (resume after the
 * last sequence seen) is not used: after a server restart or a stream
 * reset that sequence no longer vouches for anything.
 */
export function startEventFollower(options: EventFollowerOptions): EventFollower {
  const { cache, logger, acks, stream, prefix } = options;
  const heartbeatMs = options.idleHeartbeatMs ?? 1000;
  const abort = new AbortController();
  let nc: NatsConnection | undefined;
  let current: ConsumerMessages | undefined;

  /** The one reaction to anything uncertain: bypass and empty now, then a fresh subscription. */
  function doubt(reason: string, err?: unknown): void {
    const wasServing = !cache.bypassed;
    cache.bypass();
    if (wasServing && !abort.signal.aborted)
      logger.warn({ reason, err }, 'read cache bypassed: the event stream cannot vouch for it');
    const messages = current;
    current = undefined;
    messages?.stop();
  }

  function apply(m: JsMsg): void {
    const kind = m.subject.slice(prefix.length + 1).split('.')[0];
    if (kind !== 'producto' && kind !== 'bodega' && kind !== 'movimiento') return;
    const envelope = m.json<Envelope>();
    if (
      typeof envelope !== 'object' ||
      envelope === null ||
      typeof envelope.data !== 'object' ||
      envelope.data === null
    ) {
      throw new UnreadableEvent('no data');
    }
    const data = envelope.data;
    const deleted = m.subject.endsWith('.eliminado') || m.subject.endsWith('.eliminada');
    const version = versionOf(envelope);
    let ackKey: string | undefined;
    if (kind === 'producto') {
      const id = positiveId(deleted ? data.id : data.productoId, 'productoId');
      cache.touch('producto', id, 'event', { version, deleted });
      ackKey = `producto:${id}:${deleted ? 'x' : version}`;
    } else if (kind === 'bodega') {
      const id = positiveId(deleted ? data.id : data.bodegaId, 'bodegaId');
      cache.touch('bodega', id, 'event', { version, deleted });
      if (deleted) cache.touchProductosOf(id, 'event');
      ackKey = `bodega:${id}:${deleted ? 'x' : version}`;
    } else {
      // A stock write moves its warehouses' `ocupacion` without a BodegaActualizada, and its products'
      // cantidadEnStock (their ledger total) without a ProductoActualizado. bodegaId 0 is the unlocated level, no
      // warehouse.
      if (!Array.isArray(data.movimientos)) throw new UnreadableEvent('no movimientos');
      for (const line of data.movimientos) {
        if (line.bodegaId !== SIN_UBICAR) cache.touch('bodega', positiveId(line.bodegaId, 'bodegaId'), 'event');
        cache.touch('producto', positiveId(line.productoId, 'productoId'), 'event');
      }
      ackKey = `operacion:${positiveId(data.operacionId, 'operacionId')}`;
    }
    const ackedAt = acks.take(ackKey);
    if (ackedAt !== undefined) options.onEventDelay?.((performance.now() - ackedAt) / 1000, 'write_ack');
    else options.onEventDelay?.(Math.max(0, Date.now() - m.info.timestampNanos / 1_000_000) / 1000, 'stream');
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
      name: `bff-cache-${randomUUID()}`,
      deliver_policy: DeliverPolicy.New,
      ack_policy: AckPolicy.None,
      filter_subject: `${prefix}.>`,
      mem_storage: true,
      // One copy even when the stream has three (NATS_STREAM_REPLICAS): it is re-created at every doubt, and
      // JetStream places a three-copy consumer only on three live nodes, so with a node lost a re-created one
      // failed until the node returned (bypassed 31 s of 50 s in test/faults/nats-cluster.test.ts; 11 s with one).
      num_replicas: 1,
      // The server removes it once nobody pulls (this replica gone, or a new consumer in its place).
      inactive_threshold: 30_000 * 1_000_000,
    });
    const consumer = await jetstream(connection).consumers.get(stream, info.name);
    const messages = await consumer.consume({ idle_heartbeat: heartbeatMs, max_messages: 256 });
    current = messages;
    void (async () => {
      for await (const status of messages.status()) {
        if (
          [
            'heartbeats_missed',
            'consumer_not_found',
            'consumer_deleted',
            'stream_not_found',
            'reset',
            'ordered_consumer_recreated',
            'no_responders',
          ].includes(status.type)
        ) {
          doubt(`subscription: ${status.type}`);
        }
      }
    })().catch((err: unknown) => doubt('subscription status failed', err));
    if (!cache.resume(epoch)) {
      // A doubt arrived while the consumer was being created: start over.
      messages.stop();
      return;
    }
    logger.info({ consumer: info.name }, 'read cache following the event stream');
    let expected = 1;
    try {
      for await (const m of messages) {
        if (m.info.deliverySequence !== expected)
          throw new UnreadableEvent(`delivery sequence ${m.info.deliverySequence}, expected ${expected}`);
        expected++;
        apply(m);
      }
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
      'bff',
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
    if (!abort.signal.aborted) logger.error({ err }, 'read cache event follower stopped; the cache stays bypassed');
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
