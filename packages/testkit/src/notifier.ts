/**
 * `@inventario/testkit/notifier`: a notifier's side of a test on NATS (a private stream, subject prefix and sent
 * bucket per test file) and its environment against a real SMTP sink, for the notifier's own tests (in-process,
 * services/notifier/test/support/test-notifier.ts) and the fault tests (the built notifier as a process).
 */
import { jetstream, jetstreamManager, type ConsumerInfo } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { eventSubject, type EventEnvelope, type EventType } from '@inventario/platform';
import {
  connectTestNats,
  deleteStream,
  testEventNamespace,
  TEST_NATS_URL,
  uniqueName,
  waitFor,
  type EventNamespace,
} from './index';
import { RECIPIENT, SENDER, type SmtpSink } from './smtp-sink';

export { RECIPIENT, SENDER } from './smtp-sink';

/**
 * The notifier's own names for what it keeps, handed in by the test (testkit imports no service): its
 * deadLetterStreamName and sentKeyFor (services/notifier/src/events/).
 */
export interface NotifierNames {
  deadLetterStreamName(stream: string): string;
  sentKeyFor(eventId: string): string;
}

/** Everything one test file publishes to and cleans up. */
export interface TestEvents {
  namespace: EventNamespace;
  /** The NATS server the events live on. */
  natsUrl: string;
  bucket: string;
  /** The test's own connection. */
  nc: NatsConnection;
  /** Publishes an envelope (or raw text) on `type`'s subject; resolves to its stream sequence. */
  publish(type: EventType, body: EventEnvelope | string, options?: { msgID?: string }): Promise<number>;
  /** Dead letters kept in the dead letters' stream (`<stream>_DLQ`), in order; none while it does not exist. */
  deadLetters(): Promise<DeadLetterRecord[]>;
  consumerInfo(name: string): Promise<ConsumerInfo>;
  /** Waits until `name` acked or terminated every message up to stream sequence `seq`. */
  processedThrough(name: string, seq: number, timeoutMs?: number): Promise<void>;
  /** The sent registry's entry for an event id, if any. */
  sentEntry(eventId: string): Promise<Record<string, unknown> | undefined>;
  /** Deletes the stream and the bucket, closes the connection. */
  dispose(): Promise<void>;
}

export interface DeadLetterRecord {
  subject: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Events on the shared test NATS, or on `natsUrl` (a fault test's private server), under `namespace` (a fresh one by
 * default).
 */
export async function createTestEvents(
  names: NotifierNames,
  natsUrl: string = TEST_NATS_URL,
  namespace: EventNamespace = testEventNamespace(),
): Promise<TestEvents> {
  const bucket = uniqueName('notifier_sent');
  const nc = await connectTestNats(natsUrl);
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);

  const events: TestEvents = {
    namespace,
    natsUrl,
    bucket,
    nc,
    async publish(type, body, options = {}) {
      const payload = typeof body === 'string' ? body : JSON.stringify(body);
      const ack = await js.publish(eventSubject(namespace.prefix, type), payload, {
        headers: natsHeaders(),
        ...(options.msgID ? { msgID: options.msgID } : {}),
      });
      return ack.seq;
    },
    async deadLetters() {
      const letters = names.deadLetterStreamName(namespace.stream);
      const info = await jsm.streams.info(letters).catch(() => undefined);
      if (!info) return [];
      const out: DeadLetterRecord[] = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
        const m = await jsm.streams.getMessage(letters, { seq }).catch(() => null);
        if (!m || !m.subject.startsWith(`${namespace.prefix}_dlq.`)) continue;
        const headers: Record<string, string> = {};
        if (m.header) for (const k of m.header.keys()) headers[k] = m.header.get(k);
        out.push({ subject: m.subject, headers, body: m.string() });
      }
      return out;
    },
    consumerInfo(name) {
      return jsm.consumers.info(namespace.stream, name);
    },
    async processedThrough(name, seq, timeoutMs = 30_000) {
      await waitFor(
        async () => {
          const info = await jsm.consumers.info(namespace.stream, name);
          return info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0;
        },
        `${name} to finish with stream sequence ${seq}`,
        timeoutMs,
      );
    },
    async sentEntry(eventId) {
      const kv = await new Kvm(nc).open(bucket);
      const entry = await kv.get(names.sentKeyFor(eventId));
      return entry && entry.operation === 'PUT' ? entry.json<Record<string, unknown>>() : undefined;
    },
    async dispose() {
      await deleteStream(nc, names.deadLetterStreamName(namespace.stream));
      await deleteStream(nc, namespace.stream);
      await deleteStream(nc, `KV_${bucket}`);
      await nc.close();
    },
  };
  return events;
}

/** The notifier's environment for a test: its stream, bucket and sink, quick retries. */
export function testEnv(events: TestEvents, sink: SmtpSink, env: Record<string, string> = {}): Record<string, string> {
  return {
    SMTP_URL: sink.url,
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    SENDER_EMAIL: SENDER,
    RECIPIENT_EMAIL: RECIPIENT,
    NATS_URL: events.natsUrl,
    NATS_STREAM: events.namespace.stream,
    NATS_SUBJECT_PREFIX: events.namespace.prefix,
    NOTIFIER_SENT_BUCKET: events.bucket,
    NOTIFIER_BACKOFF_MS: '200,400',
    NOTIFIER_ACK_WAIT_MS: '5000',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_TIMEOUT_MS: '10000',
    // Port 1 refuses at once: names are not looked up in whatever runs on the default ports (emails then show ids).
    PRODUCTO_SVC_ADDR: '127.0.0.1:1',
    BODEGA_SVC_ADDR: '127.0.0.1:1',
    ...env,
  };
}
