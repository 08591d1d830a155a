import { z } from 'zod';
import {
  ConfigError,
  envSchemas,
  natsCredentialsEnv,
  natsCredentialsOf,
  natsCredentialsTogether,
  parseEnv,
} from './config';
import { tracingEnv } from './tracing';

/**
 * The events' stream as its publishers and consumers all read it (docs/contract.md §8.3, §8.5): name, subjects,
 * event type namespace, limits and copies in a NATS cluster. Spread into a schema; eventStreamOf gives the settings.
 */
export const eventStreamEnv = {
  NATS_STREAM: envSchemas.streamName(),
  NATS_SUBJECT_PREFIX: envSchemas.subjectPrefix(),
  EVENT_TYPE_NAMESPACE: envSchemas.eventTypeNamespace(),
  NATS_STREAM_MAX_AGE_HOURS: envSchemas.streamMaxAgeHours(),
  NATS_STREAM_MAX_BYTES: envSchemas.streamMaxBytes(),
  NATS_STREAM_REPLICAS: envSchemas.streamReplicas(),
};

/** The stream's settings of a parsed environment (see eventStreamEnv). */
export function eventStreamOf(env: { [K in keyof typeof eventStreamEnv]: z.output<(typeof eventStreamEnv)[K]> }) {
  return {
    natsStream: env.NATS_STREAM,
    natsSubjectPrefix: env.NATS_SUBJECT_PREFIX,
    eventTypeNamespace: env.EVENT_TYPE_NAMESPACE,
    streamLimits: { maxAgeMs: env.NATS_STREAM_MAX_AGE_HOURS * 3600_000, maxBytes: env.NATS_STREAM_MAX_BYTES },
    streamReplicas: env.NATS_STREAM_REPLICAS,
  };
}

/**
 * The environment contract of a gRPC service (docs/contract.md §8.1–§8.3).
 * DATABASE_URL and the NATS credentials have no default: they are secrets.
 * Metrics are served on a port of their own (METRICS_PORT), never on the gRPC
 * port.
 */
export function serviceConfigSchema(defaultGrpcPort: number, defaultMetricsPort: number) {
  return z
    .object({
      DATABASE_URL: envSchemas.mysqlUrl(),
      GRPC_PORT: envSchemas.port(defaultGrpcPort),
      GRPC_HOST: z.string().min(1).default('0.0.0.0'),
      METRICS_PORT: envSchemas.port(defaultMetricsPort),
      METRICS_HOST: z.string().min(1).default('0.0.0.0'),
      NATS_URL: envSchemas.natsUrl(),
      ...natsCredentialsEnv,
      LOG_LEVEL: envSchemas.logLevel(),
      ...eventStreamEnv,
      // How often the database is pinged to drive the gRPC health status.
      DB_CHECK_INTERVAL_MS: envSchemas.milliseconds(2000, 50),
      // The server's limit on each statement (0: none); below the BFF's GRPC_DEADLINE_MS (5 s).
      DB_STATEMENT_TIMEOUT_MS: envSchemas.milliseconds(4000),
      // How long a query waits for a pooled connection; below the BFF's GRPC_DEADLINE_MS.
      DB_ACQUIRE_TIMEOUT_MS: envSchemas.milliseconds(3000, 1),
      // false: never run DDL; refuse to start unless every known migration is applied (the chart's Job applies them).
      MIGRATE_ON_START: envSchemas.flag(true),
      // Time between reporting NOT_SERVING and closing the server.
      SHUTDOWN_DRAIN_MS: envSchemas.milliseconds(2000),
      // Hard deadline of the whole shutdown sequence.
      SHUTDOWN_TIMEOUT_MS: envSchemas.milliseconds(25_000),
      // How long the result of a write with an idempotency key is replayed (24 h).
      IDEMPOTENCY_TTL_SECONDS: envSchemas.seconds(24 * 3600, 1),
      ...tracingEnv,
    })
    .refine((env) => env.METRICS_PORT === 0 || env.METRICS_PORT !== env.GRPC_PORT, {
      path: ['METRICS_PORT'],
      message: 'must differ from GRPC_PORT (metrics are never served on the gRPC port)',
    })
    .refine(...natsCredentialsTogether)
    .transform((env) => ({
      databaseUrl: env.DATABASE_URL,
      grpcPort: env.GRPC_PORT,
      grpcHost: env.GRPC_HOST,
      metricsPort: env.METRICS_PORT,
      metricsHost: env.METRICS_HOST,
      natsUrl: env.NATS_URL,
      natsCredentials: natsCredentialsOf(env),
      logLevel: env.LOG_LEVEL,
      ...eventStreamOf(env),
      dbCheckIntervalMs: env.DB_CHECK_INTERVAL_MS,
      dbStatementTimeoutMs: env.DB_STATEMENT_TIMEOUT_MS,
      dbAcquireTimeoutMs: env.DB_ACQUIRE_TIMEOUT_MS,
      migrateOnStart: env.MIGRATE_ON_START,
      shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
      shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
      idempotencyTtlSeconds: env.IDEMPOTENCY_TTL_SECONDS,
      otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
      otelServiceName: env.OTEL_SERVICE_NAME,
    }));
}

/** Validated settings of one service process. */
export type ServiceConfig = z.infer<ReturnType<typeof serviceConfigSchema>>;

/** Parses a service's environment with the shared schema. */
export function loadServiceConfig(
  env: NodeJS.ProcessEnv,
  defaultGrpcPort: number,
  defaultMetricsPort: number,
): ServiceConfig {
  return parseEnv(serviceConfigSchema(defaultGrpcPort, defaultMetricsPort), env);
}

/**
 * Parses a service's environment with the shared schema and `own`, the
 * service's own variables (e.g. another service's address), throwing one
 * ConfigError that lists the problems of both.
 */
export function loadServiceConfigWith<S extends z.ZodType>(
  env: NodeJS.ProcessEnv,
  defaultGrpcPort: number,
  defaultMetricsPort: number,
  own: S,
): ServiceConfig & z.infer<S> {
  const problems: string[] = [];
  function parsed<T>(parse: () => T): T | undefined {
    try {
      return parse();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems);
      return undefined;
    }
  }
  const shared = parsed(() => loadServiceConfig(env, defaultGrpcPort, defaultMetricsPort));
  const ownConfig = parsed(() => parseEnv(own, env));
  if (!shared || !ownConfig) throw new ConfigError(problems);
  return { ...shared, ...ownConfig };
}
