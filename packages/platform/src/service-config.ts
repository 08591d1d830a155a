import { z } from 'zod';
import { envSchemas, parseEnv } from './config';

/**
 * The environment contract of a gRPC service (ARCHITECTURE §7). DATABASE_URL
 * has no default: it may carry a password.
 */
export function serviceConfigSchema(defaultGrpcPort: number) {
  return z
    .object({
      DATABASE_URL: envSchemas.mysqlUrl(),
      GRPC_PORT: envSchemas.port(defaultGrpcPort),
      GRPC_HOST: z.string().min(1).default('0.0.0.0'),
      NATS_URL: envSchemas.natsUrl(),
      LOG_LEVEL: envSchemas.logLevel(),
      NATS_STREAM: envSchemas.streamName(),
      NATS_SUBJECT_PREFIX: envSchemas.subjectPrefix(),
      EVENT_TYPE_NAMESPACE: envSchemas.eventTypeNamespace(),
      // How often the database is pinged to drive the gRPC health status.
      DB_CHECK_INTERVAL_MS: envSchemas.milliseconds(2000, 50),
      // Time between reporting NOT_SERVING and closing the server.
      SHUTDOWN_DRAIN_MS: envSchemas.milliseconds(2000),
      // Hard deadline of the whole shutdown sequence.
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
}

/** Validated settings of one service process. */
export type ServiceConfig = z.infer<ReturnType<typeof serviceConfigSchema>>;

/** Parses a service's environment with the shared schema. */
export function loadServiceConfig(env: NodeJS.ProcessEnv, defaultGrpcPort: number): ServiceConfig {
  return parseEnv(serviceConfigSchema(defaultGrpcPort), env);
}
