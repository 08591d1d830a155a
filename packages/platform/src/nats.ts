import { connect, nanos, PermissionViolationError, type NatsConnection } from '@nats-io/transport-node';
import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type JetStreamManager,
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
export async function connectNats(
  url: string,
  name: string,
  logger: Logger,
  credentials?: NatsCredentials,
): Promise<NatsConnection> {
  const nc = await connect({
    servers: url.split(','),
    name,
    ...(credentials ? { user: credentials.user, pass: credentials.pass } : {}),
    waitOnFirstConnect: true,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // No stack captured ahead of every request (a JetStream publish builds a RequestError and a TimeoutError
    // it throws away when the ack comes: issue 23, CPU per write). A failure still carries its message and cause.
    noAsyncTraces: true,
  });
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect') logger.warn({ nats: s.type }, 'nats connection status');
    }
  })();
  return nc;
}

/**
 * How much history the stream keeps (limits retention). 0 means unlimited.
 * Every process that ensures the stream applies them, so all must be
 * configured alike (the chart passes the same values).
 */
export interface StreamLimits {
  /** Messages older than this are removed (JetStream `max_age`). */
  maxAgeMs: number;
  /**
   * At most this many bytes (`max_bytes`). A full stream refuses new
   * messages (discard `new`) rather than dropping the oldest, which a
   * consumer may not have read yet (docs/decisions.md, "No silent drops").
   */
  maxBytes: number;
}

export interface StreamSpec {
  name: string;
  /** Subjects the stream captures, e.g. `inventario.>`. */
  subjects: string[];
  /** JetStream drops a message whose Nats-Msg-Id was seen within this window. */
  duplicateWindowMs?: number;
  /** Set on the stream, created or existing; absent: an existing stream keeps its own, a new one has none. */
  limits?: StreamLimits;
  /**
   * NATS_STREAM_REPLICAS: copies of the stream in a NATS cluster (1..5, at
   * most the cluster's size), set on a new stream and brought in line on an
   * existing one; absent: an existing stream keeps its own, a new one has 1.
   * Durable consumers created without `num_replicas` follow the stream's.
   */
  replicas?: number;
}

/**
 * What ensureStream did. `not-permitted`: the stream exists but differs from
 * the spec (`differences` names the settings), and this NATS user may not
 * update it: under the chart's authorization only the provisioning Job may,
 * so the stream is used as it is.
 */
export type EnsureStreamOutcome =
  { outcome: 'created' | 'updated' | 'unchanged' } | { outcome: 'not-permitted'; differences: string[] };

/**
 * The server refused a request for want of a permission (`Permissions Violation`), as the chart's NATS does for what a
 * user may not do.
 */
export function isPermissionViolation(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof PermissionViolationError || /permissions violation/i.test(e.message)) return true;
  }
  return false;
}

/**
 * Thrown while the stream does not exist and this NATS user may not create it: retried until the provisioning Job has.
 */
export class StreamNotProvisionedError extends Error {
  constructor(stream: string, options?: ErrorOptions) {
    super(
      `stream ${stream} does not exist and this NATS user may not create it: the provisioning Job (or an ` +
        `administrator) creates it`,
      options,
    );
    this.name = 'StreamNotProvisionedError';
  }
}

/** JetStream's spelling of the limits: 0 ns is "no age limit", -1 "no byte limit". */
function jetStreamLimits(limits: StreamLimits): { max_age: number; max_bytes: number; discard: DiscardPolicy } {
  return {
    max_age: nanos(limits.maxAgeMs),
    max_bytes: limits.maxBytes > 0 ? limits.maxBytes : -1,
    discard: DiscardPolicy.New,
  };
}

/**
 * Creates the stream, or adds our subjects to an existing one, widens its
 * de-duplication window to at least ours and sets the configured limits.
 * Safe to call from every replica at every start: when nothing differs it
 * does not update the stream at all. A NATS user that may not create or
 * update streams (the chart's services) only checks: an existing stream is
 * used as it is (`not-permitted`), a missing one is StreamNotProvisionedError.
 */
export async function ensureStream(nc: NatsConnection, spec: StreamSpec): Promise<EnsureStreamOutcome> {
  const jsm = await jetstreamManager(nc);
  const limits = spec.limits ? jetStreamLimits(spec.limits) : undefined;
  // JetStream refuses a window longer than max_age; messages are gone by then anyway.
  const window = (current: number) => {
    const wanted = Math.max(nanos(spec.duplicateWindowMs ?? 5 * 60_000), current);
    const maxAge = limits ? limits.max_age : 0;
    return maxAge > 0 ? Math.min(wanted, maxAge) : wanted;
  };
  try {
    const { config } = await jsm.streams.info(spec.name);
    const current = config.subjects ?? [];
    const subjects = [...new Set([...current, ...spec.subjects])];
    // Never shrink a window an operator widened: it bounds exactly-once.
    const duplicate_window = window(config.duplicate_window ?? 0);
    const differences = [
      ...(subjects.length !== current.length ? ['subjects'] : []),
      ...(duplicate_window !== config.duplicate_window ? ['duplicate_window'] : []),
      ...(limits ? (['max_age', 'max_bytes', 'discard'] as const).filter((key) => limits[key] !== config[key]) : []),
      ...(spec.replicas !== undefined && spec.replicas !== config.num_replicas ? ['num_replicas'] : []),
    ];
    if (differences.length === 0) return { outcome: 'unchanged' };
    try {
      await jsm.streams.update(spec.name, {
        subjects,
        duplicate_window,
        ...limits,
        ...(spec.replicas !== undefined ? { num_replicas: spec.replicas } : {}),
      });
    } catch (updateErr) {
      if (isPermissionViolation(updateErr)) return { outcome: 'not-permitted', differences };
      throw updateErr;
    }
    return { outcome: 'updated' };
  } catch (err) {
    if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
    try {
      await jsm.streams.add({
        name: spec.name,
        subjects: spec.subjects,
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        discard: DiscardPolicy.New,
        duplicate_window: window(0),
        num_replicas: spec.replicas ?? 1,
        ...limits,
      });
    } catch (addErr) {
      if (isPermissionViolation(addErr)) throw new StreamNotProvisionedError(spec.name, { cause: addErr });
      // Another replica created it between our info and add: that is fine.
      if (!(addErr instanceof JetStreamApiError && addErr.code === STREAM_NAME_IN_USE)) throw addErr;
    }
    return { outcome: 'created' };
  }
}

/** A durable consumer's config: what ensureConsumer creates or updates. */
export type DurableConfig = Partial<ConsumerConfig> & { durable_name: string };

/**
 * Creates the durable consumer, or brings an existing one's ack_wait, max_deliver and
 * filter in line with ours (a deployment keeps its consumer, with its
 * position, across releases). Its start point is never changed. Safe from
 * every replica at once.
 */
export async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  config: DurableConfig,
): Promise<'created' | 'updated'> {
  const name = config.durable_name;
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
