import {
  DiscardPolicy,
  jetstream,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type MsgRequest,
  type StreamConfig,
} from '@nats-io/jetstream';
import { headers as natsHeaders, nanos, type NatsConnection } from '@nats-io/transport-node';
import {
  ensureStream,
  isPermissionViolation,
  StreamNotProvisionedError,
  type EnsureStreamOutcome,
  type Logger,
  type StreamLimits,
} from '@inventario/platform';
import { HANDLERS } from '../handlers';
import { deadLetterStreamName, deadLetterSubjectPrefix, legacyDeadLetterSubjects } from './dead-letter';
import { maxDeliveriesSubjects } from './max-deliveries';
import { openSentBucket, sentBucketStreamName } from './sent-registry';

/**
 * Everything JetStream the notifier needs (docs/contract.md §5.1, §6.4): the
 * events' stream, capturing also the max-deliveries advisories of its
 * consumers; the dead letters' stream; the sent registry's KV bucket. Run by
 * the provisioning Job as user `provisioner` (provision-main.ts), which may
 * create and update them, and by the notifier at every start, which under
 * the chart's authorization may not and only checks they exist (a stream that
 * differs is used as it is, with a warning), then copies the dead letters
 * older releases left in the events' stream.
 */

export interface JetStreamSettings {
  stream: string;
  prefix: string;
  limits: StreamLimits;
  /** NATS_DLQ_MAX_BYTES: the dead letters' stream's cap; 0 = none. */
  deadLetterMaxBytes: number;
  sentBucket: string;
  /** NATS_STREAM_REPLICAS: copies of both streams and of the bucket (the consumers follow the stream's). */
  replicas: number;
}

export interface JetStreamSetup {
  events: EnsureStreamOutcome;
  deadLetters: EnsureStreamOutcome;
}

/**
 * How long the dead letters' stream remembers a letter's Nats-Msg-Id when the events' stream keeps messages for ever.
 */
const DEFAULT_LETTER_MEMORY_MS = 30 * 24 * 3600_000;

/**
 * The dead letters' stream: it captures `<prefix>_dlq.>` (a root the events'
 * stream does not capture), with limits of its own: no age limit (a letter
 * stays until it is replayed), `max_bytes`, and discard `new`: when full it
 * refuses a letter, and the notifier keeps the event and tries again
 * (contract §6.3), never dropping one. Its de-duplication window covers the
 * events' stream's whole history: a letter written again for an advisory
 * still there (a re-created MaxDeliveriesHandler reads them all) is dropped
 * as a repeat, also after it was replayed and deleted.
 */
export function deadLetterStreamConfig(
  settings: Pick<JetStreamSettings, 'stream' | 'prefix' | 'limits' | 'deadLetterMaxBytes'> & { replicas?: number },
): Partial<StreamConfig> & {
  name: string;
} {
  return {
    name: deadLetterStreamName(settings.stream),
    description: `Inventario: dead letters of ${settings.stream}, kept until replayed`,
    subjects: [`${deadLetterSubjectPrefix(settings.prefix)}.>`],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.New,
    max_age: 0,
    max_bytes: settings.deadLetterMaxBytes > 0 ? settings.deadLetterMaxBytes : -1,
    duplicate_window: nanos(settings.limits.maxAgeMs > 0 ? settings.limits.maxAgeMs : DEFAULT_LETTER_MEMORY_MS),
    num_replicas: settings.replicas ?? 1,
  };
}

/** Creates or updates the dead letters' stream like ensureStream does the events' one (same permission rule). */
export async function ensureDeadLetterStream(
  nc: NatsConnection,
  settings: Parameters<typeof deadLetterStreamConfig>[0],
): Promise<EnsureStreamOutcome> {
  const jsm = await jetstreamManager(nc);
  const wanted = deadLetterStreamConfig(settings);
  let current: StreamConfig;
  try {
    current = (await jsm.streams.info(wanted.name)).config;
  } catch (err) {
    if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
    try {
      await jsm.streams.add(wanted);
    } catch (addErr) {
      if (isPermissionViolation(addErr)) throw new StreamNotProvisionedError(wanted.name, { cause: addErr });
      throw addErr;
    }
    return { outcome: 'created' };
  }
  const differences = [
    ...((current.subjects ?? []).join(',') !== (wanted.subjects ?? []).join(',') ? ['subjects'] : []),
    ...(['discard', 'max_age', 'max_bytes', 'duplicate_window', 'num_replicas'] as const).filter(
      (key) => current[key] !== wanted[key],
    ),
  ];
  if (differences.length === 0) return { outcome: 'unchanged' };
  try {
    await jsm.streams.update(wanted.name, wanted);
  } catch (err) {
    if (isPermissionViolation(err)) return { outcome: 'not-permitted', differences };
    throw err;
  }
  return { outcome: 'updated' };
}

/**
 * Letters of releases before the dead letters' stream sit in the events'
 * stream on `<prefix>.dlq.<type>`, where its limits would remove them: each
 * is copied to the dead letters' stream on `<prefix>_dlq.<type>`, headers and
 * body as they are, under its own Nats-Msg-Id, so a copy made again (every
 * start does this) is dropped as a repeat. The originals age out. Returns
 * how many were copied (repeats not counted).
 */
export async function copyLegacyDeadLetters(
  nc: NatsConnection,
  settings: Pick<JetStreamSettings, 'stream' | 'prefix'>,
): Promise<number> {
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const legacy = legacyDeadLetterSubjects(settings.prefix);
  let copied = 0;
  for (let seq = 1; ;) {
    // nats.js types `next_by_subj` only for direct gets.
    const letter = await jsm.streams.getMessage(settings.stream, {
      next_by_subj: legacy,
      seq,
    } as unknown as MsgRequest);
    if (!letter) return copied;
    seq = letter.seq + 1;
    const h = natsHeaders();
    if (letter.header)
      for (const key of letter.header.keys()) if (key !== 'Nats-Msg-Id') h.set(key, letter.header.get(key));
    const subject = `${deadLetterSubjectPrefix(settings.prefix)}${letter.subject.slice(legacy.length - 2)}`;
    const ack = await js.publish(subject, letter.data, {
      headers: h,
      msgID: letter.header?.get('Nats-Msg-Id') || `dlq-legacy:${settings.stream}:${letter.seq}`,
    });
    if (!ack.duplicate) copied++;
  }
}

/**
 * A bucket made before NATS_STREAM_REPLICAS (or with another value) keeps its
 * replicas when opened: bring them in line where this user may (the
 * provisioning Job); the notifier's own user uses the bucket as it is.
 */
async function ensureSentBucketReplicas(nc: NatsConnection, bucket: string, replicas: number): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const { config } = await jsm.streams.info(sentBucketStreamName(bucket));
  if (config.num_replicas === replicas) return;
  try {
    await jsm.streams.update(config.name, { ...config, num_replicas: replicas });
  } catch (err) {
    if (!isPermissionViolation(err)) throw err;
  }
}

/**
 * The events' stream (with the advisory subjects), the dead letters' stream
 * and the sent bucket. Rejects with StreamNotProvisionedError while one is
 * missing and this user may not create it.
 */
export async function setUpJetStream(nc: NatsConnection, settings: JetStreamSettings): Promise<JetStreamSetup> {
  const events = await ensureStream(nc, {
    name: settings.stream,
    subjects: [`${settings.prefix}.>`, ...maxDeliveriesSubjects(settings.stream, HANDLERS)],
    limits: settings.limits,
    replicas: settings.replicas,
  });
  const deadLetters = await ensureDeadLetterStream(nc, settings);
  await openSentBucket(nc, settings.sentBucket, settings.replicas);
  await ensureSentBucketReplicas(nc, settings.sentBucket, settings.replicas);
  return { events, deadLetters };
}

/**
 * What the notifier does at start: setUpJetStream, a warning for a stream it may not bring in line, then the older
 * releases' letters copied.
 */
export async function setUpNotifierJetStream(
  nc: NatsConnection,
  settings: JetStreamSettings,
  logger: Logger,
): Promise<JetStreamSetup> {
  const setup = await setUpJetStream(nc, settings);
  const { events, deadLetters } = setup;
  for (const [stream, outcome] of [
    [settings.stream, events],
    [deadLetterStreamName(settings.stream), deadLetters],
  ] as const) {
    if (outcome.outcome === 'not-permitted') {
      logger.warn(
        { stream, differences: outcome.differences },
        'the stream differs from this configuration and this NATS user may not update it; used as it is',
      );
    }
  }
  const copied = await copyLegacyDeadLetters(nc, settings);
  if (copied > 0)
    logger.info(
      { copied, stream: deadLetterStreamName(settings.stream) },
      "dead letters of an earlier release copied to the dead letters' stream",
    );
  return setup;
}
