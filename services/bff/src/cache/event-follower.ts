import type { JsMsg } from '@nats-io/jetstream';
import type { Logger } from '@inventario/platform';
import type { ReadCache } from './read-cache';
import type { WriteAcks } from './write-acks';
import { SIN_UBICAR } from '../inventario/totales-del-libro';
import { followStream } from './stream-follower';

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
 * "Read cache"): every product, warehouse and stock event touches what it
 * names; an event it cannot read is a doubt, like a gap. The subscription
 * and every doubt are stream-follower.ts's.
 */
export function startEventFollower(options: EventFollowerOptions): EventFollower {
  const { cache, acks, prefix } = options;

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

  return followStream({
    natsUrl: options.natsUrl,
    credentials: options.credentials,
    stream: options.stream,
    filterSubject: `${prefix}.>`,
    connectionName: 'bff',
    consumerPrefix: 'bff-cache',
    cache,
    logger: options.logger,
    idleHeartbeatMs: options.idleHeartbeatMs,
    says: {
      bypassed: 'read cache bypassed: the event stream cannot vouch for it',
      following: 'read cache following the event stream',
      stopped: 'read cache event follower stopped; the cache stays bypassed',
    },
    handle: apply,
  });
}
