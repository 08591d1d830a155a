import { z } from 'zod';
import { envSchemas, parseEnv } from '@inventario/platform';

/**
 * The environment contract of bodega-svc (ARCHITECTURE §7). Parsed once, at
 * start; every problem is reported in one ConfigError naming its variable.
 * DATABASE_URL has no default: it may carry a password.
 */
const schema = z
  .object({
    DATABASE_URL: envSchemas.mysqlUrl(),
    GRPC_PORT: envSchemas.port(50052),
    GRPC_HOST: z.string().min(1).default('0.0.0.0'),
    NATS_URL: envSchemas.natsUrl(),
    LOG_LEVEL: envSchemas.logLevel(),
    NATS_STREAM: envSchemas.streamName(),
    NATS_SUBJECT_PREFIX: envSchemas.subjectPrefix(),
    // The part before `.Inventario.` in every eventType (spec: `Service`).
    EVENT_TYPE_NAMESPACE: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be dot-separated words')
      .default('Service'),
    // How often the database is pinged to drive the gRPC health status.
    DB_CHECK_INTERVAL_MS: envSchemas.milliseconds(2000, 50),
    SHUTDOWN_DRAIN_MS: envSchemas.milliseconds(2000),
    SHUTDOWN_TIMEOUT_MS: envSchemas.milliseconds(25_000),
  })
  .transform((env) => ({
    databaseUrl: env.DATABASE_URL,
    grpcPort: env.GRPC_PORT,
    grpcHost: env.GRPC_HOST,
    natsUrl: env.NATS_URL,
    logLevel: env.LOG_LEVEL,
    natsStream: env.NATS_STREAM,
    natsSubjectPrefix: env.NATS_SUBJECT_PREFIX,
    eventTypeNamespace: env.EVENT_TYPE_NAMESPACE,
    dbCheckIntervalMs: env.DB_CHECK_INTERVAL_MS,
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
  }));

/** Validated settings of one bodega-svc process. */
export type Config = z.infer<typeof schema>;

/** Parses `env`; throws ConfigError listing every invalid variable. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  return parseEnv(schema, env);
}
