import { z } from 'zod';
import {
  envSchemas,
  eventStreamEnv,
  eventStreamOf,
  natsCredentialsEnv,
  natsCredentialsOf,
  natsCredentialsTogether,
  parseEnv,
  tracingEnv,
  principalEnv,
} from '@inventario/platform';

/**
 * The notifier's environment (docs/contract.md §8.5), parsed once at start.
 * SMTP_URL has no default: it may carry the mail server's credentials, and
 * it is never logged whole (see describeSmtpUrl).
 */

/** JetStream KV bucket names: letters, digits, `_` and `-`. */
const BUCKET_NAME = /^[A-Za-z0-9_-]+$/;

/** `1000,5000,30000`: the nak delay after the 1st, 2nd, 3rd... failed delivery; the last repeats. */
const backoffSchedule = z
  .string()
  .regex(/^\d{1,9}(,\d{1,9})*$/, 'must be comma-separated whole milliseconds, e.g. 1000,5000,30000')
  .transform((value) => value.split(',').map(Number))
  .refine(
    (delays) => delays.every((ms) => ms >= 100 && ms <= 24 * 3600_000),
    'each delay must be between 100 ms and 24 h',
  );

const schema = z
  .object({
    SMTP_URL: envSchemas.smtpUrl(),
    SENDER_EMAIL: z.email('must be an email address'),
    RECIPIENT_EMAIL: envSchemas.emailList(),
    NATS_URL: envSchemas.natsUrl(),
    // The notifier's NATS user (a Secret's): it may only read the events, ack, use its KV bucket and publish dead
    // letters.
    ...natsCredentialsEnv,
    // The admin port of GET /metrics (the notifier has no other port).
    METRICS_PORT: envSchemas.port(9103),
    METRICS_HOST: z.string().min(1).default('0.0.0.0'),
    LOG_LEVEL: envSchemas.logLevel(),
    // NATS_STREAM_REPLICAS also sets the copies of the dead letters' stream, the sent bucket and the consumers.
    ...eventStreamEnv,
    // The dead letters' stream (<NATS_STREAM>_DLQ): letters stay until replayed, so only bytes bound it.
    NATS_DLQ_MAX_BYTES: envSchemas.streamMaxBytes(128 * 1024 * 1024),
    // Emails being sent at once, over all the event consumers; also the SMTP pool size.
    NOTIFIER_CONCURRENCY: envSchemas.count(4, 1, 64),
    // Deliveries of one event before it is dead-lettered (JetStream max_deliver).
    NOTIFIER_MAX_DELIVER: envSchemas.count(10, 1, 1000),
    NOTIFIER_BACKOFF_MS: backoffSchedule.default([1000, 5000, 30_000, 120_000, 600_000]),
    // How long JetStream waits for an ack before redelivering. A held message
    // heartbeats every ack_wait / 3 while it waits for a slot and while it is
    // sent, so a slow SMTP server never causes a redelivery and any value is
    // safe there; it bounds how soon a crashed process's message (and claim)
    // is taken over, and a process stalled longer than this counts as crashed.
    NOTIFIER_ACK_WAIT_MS: envSchemas.milliseconds(60_000, 1000),
    NOTIFIER_SENT_BUCKET: z.string().regex(BUCKET_NAME, 'must be letters, digits, _ or -').default('notifier-sent'),
    SHUTDOWN_TIMEOUT_MS: envSchemas.milliseconds(25_000),
    // Where the emails' names are looked up (GetProducto, GetBodega): a name the event does not carry, such as a stock
    // alert's product and warehouse. Unreachable, the email names the record by its id and is sent all the same.
    PRODUCTO_SVC_ADDR: envSchemas.grpcAddress('127.0.0.1:50051'),
    BODEGA_SVC_ADDR: envSchemas.grpcAddress('127.0.0.1:50052'),
    // Its own API token for those lookups (docs/contract.md §12.9), which services with REQUIRE_PRINCIPAL=true
    // need; a secret, never defaulted.
    SERVICE_TOKEN: principalEnv.SERVICE_TOKEN,
    ...tracingEnv,
  })
  .refine(...natsCredentialsTogether)
  .transform((env) => ({
    smtpUrl: env.SMTP_URL,
    senderEmail: env.SENDER_EMAIL,
    recipientEmails: env.RECIPIENT_EMAIL,
    natsUrl: env.NATS_URL,
    natsCredentials: natsCredentialsOf(env),
    metricsPort: env.METRICS_PORT,
    metricsHost: env.METRICS_HOST,
    logLevel: env.LOG_LEVEL,
    ...eventStreamOf(env),
    deadLetterMaxBytes: env.NATS_DLQ_MAX_BYTES,
    concurrency: env.NOTIFIER_CONCURRENCY,
    maxDeliver: env.NOTIFIER_MAX_DELIVER,
    backoffMs: env.NOTIFIER_BACKOFF_MS,
    ackWaitMs: env.NOTIFIER_ACK_WAIT_MS,
    sentBucket: env.NOTIFIER_SENT_BUCKET,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    productoSvcAddr: env.PRODUCTO_SVC_ADDR,
    bodegaSvcAddr: env.BODEGA_SVC_ADDR,
    serviceToken: env.SERVICE_TOKEN,
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
    otelServiceName: env.OTEL_SERVICE_NAME,
  }));

/** Validated settings of one notifier process. */
export type Config = z.infer<typeof schema>;

/** Parses `env`; throws ConfigError listing every invalid variable (never its value). */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  return parseEnv(schema, env);
}

/** `smtp://host:port` without user or password, for logs and start-up summaries. */
export function describeSmtpUrl(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  const port = url.port || (url.protocol === 'smtps:' ? '465' : '587');
  return `${url.protocol}//${url.hostname}:${port}`;
}

/**
 * The environment of `npm run dlq:replay` (dlq-replay-main.ts): where the
 * stream is, and the NATS user it runs as (under the chart's authorization
 * `dlq-replay`, docs/contract.md §5.7), nothing else. Logs go to stderr, at
 * `warn` unless LOG_LEVEL says otherwise.
 */
const replaySchema = z
  .object({
    NATS_URL: envSchemas.natsUrl(),
    ...natsCredentialsEnv,
    NATS_STREAM: envSchemas.streamName(),
    NATS_SUBJECT_PREFIX: envSchemas.subjectPrefix(),
    LOG_LEVEL: envSchemas.logLevel().default('warn'),
  })
  .refine(...natsCredentialsTogether)
  .transform((env) => ({
    natsUrl: env.NATS_URL,
    natsCredentials: natsCredentialsOf(env),
    natsStream: env.NATS_STREAM,
    natsSubjectPrefix: env.NATS_SUBJECT_PREFIX,
    logLevel: env.LOG_LEVEL,
  }));

export type ReplayConfig = z.infer<typeof replaySchema>;

export function loadReplayConfig(env: NodeJS.ProcessEnv): ReplayConfig {
  return parseEnv(replaySchema, env);
}

/**
 * The environment of the provisioning command (provision-main.ts, the
 * chart's provisioning Job): the NATS user allowed to create and update the
 * streams (`provisioner`) and the settings the notifier applies at start,
 * read from the same variables so both agree.
 */
const provisionSchema = z
  .object({
    NATS_URL: envSchemas.natsUrl(),
    ...natsCredentialsEnv,
    NATS_STREAM: envSchemas.streamName(),
    NATS_SUBJECT_PREFIX: envSchemas.subjectPrefix(),
    NATS_STREAM_MAX_AGE_HOURS: envSchemas.streamMaxAgeHours(),
    NATS_STREAM_MAX_BYTES: envSchemas.streamMaxBytes(),
    NATS_DLQ_MAX_BYTES: envSchemas.streamMaxBytes(128 * 1024 * 1024),
    NATS_STREAM_REPLICAS: envSchemas.streamReplicas(),
    NOTIFIER_SENT_BUCKET: z.string().regex(BUCKET_NAME, 'must be letters, digits, _ or -').default('notifier-sent'),
  })
  .refine(...natsCredentialsTogether)
  .transform((env) => ({
    natsUrl: env.NATS_URL,
    natsCredentials: natsCredentialsOf(env),
    jetStream: {
      stream: env.NATS_STREAM,
      prefix: env.NATS_SUBJECT_PREFIX,
      limits: { maxAgeMs: env.NATS_STREAM_MAX_AGE_HOURS * 3600_000, maxBytes: env.NATS_STREAM_MAX_BYTES },
      deadLetterMaxBytes: env.NATS_DLQ_MAX_BYTES,
      sentBucket: env.NOTIFIER_SENT_BUCKET,
      replicas: env.NATS_STREAM_REPLICAS,
    },
  }));

export type ProvisionConfig = z.infer<typeof provisionSchema>;

export function loadProvisionConfig(env: NodeJS.ProcessEnv): ProvisionConfig {
  return parseEnv(provisionSchema, env);
}
