import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import type { NatsCredentials } from './config';
import type { Logger } from './logger';

export type { NatsConnection };

/** JetStream API error code for "stream name already in use" (not in JetStreamApiCodes). */
const STREAM_NAME_IN_USE = 10058;

/**
 * Connects to NATS and keeps reconnecting forever: a broker outage delays
 * events (the outbox holds them) but never stops a service. With
 * `credentials`, as that user: the server's authorization decides what the
 * service may publish and subscribe to (the chart's nats-auth.conf).
 */
export async function connectNats(url: string, name: string, logger: Logger, credentials?: NatsCredentials): Promise<NatsConnection> {
  const nc = await connect({
    servers: url.split(','),
    name,
    ...(credentials ? { user: credentials.user, pass: credentials.pass } : {}),
    waitOnFirstConnect: true,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect') logger.warn({ nats: s.type }, 'nats connection status');
    }
  })();
  return nc;
}

export interface StreamSpec {
  name: string;
  /** Subjects the stream captures, e.g. `inventario.>`. */
  subjects: string[];
  /** JetStream drops a message whose Nats-Msg-Id was seen within this window. */
  duplicateWindowMs?: number;
}

/**
 * Creates the stream, or adds our subjects to an existing one and widens its
 * de-duplication window to at least ours. Safe to call from every replica at
 * every start. Retention is left to operators (no max_age here): the stream
 * is the system's event history and durable consumers read from it.
 */
export async function ensureStream(nc: NatsConnection, spec: StreamSpec): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const duplicate_window = nanos(spec.duplicateWindowMs ?? 5 * 60_000);
  try {
    const info = await jsm.streams.info(spec.name);
    const subjects = [...new Set([...(info.config.subjects ?? []), ...spec.subjects])];
    // Never shrink a window an operator widened: it bounds exactly-once.
    await jsm.streams.update(spec.name, { subjects, duplicate_window: Math.max(duplicate_window, info.config.duplicate_window ?? 0) });
  } catch (err) {
    if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
    try {
      await jsm.streams.add({
        name: spec.name,
        subjects: spec.subjects,
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        discard: DiscardPolicy.Old,
        duplicate_window,
      });
    } catch (addErr) {
      // Another replica created it between our info and add: that is fine.
      if (!(addErr instanceof JetStreamApiError && addErr.code === STREAM_NAME_IN_USE)) throw addErr;
    }
  }
}
