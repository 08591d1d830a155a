import { z } from 'zod';
import {
  bffCredentialOf,
  envSchemas,
  natsCredentialsEnv,
  natsCredentialsOf,
  natsCredentialsTogether,
  parseEnv,
  tracingEnv,
} from '@inventario/platform';
import { DEFAULT_WRITE_TIMEOUT_MS } from './http/json-array-stream';

/**
 * The BFF's environment (docs/contract.md §8.4). BFF_USER and BFF_PASSWORD have
 * no default: the BFF refuses to start without them (the dev launcher
 * supplies development values explicitly).
 */
const schema = z
  .object({
    PORT: envSchemas.port(8080),
    HOST: z.string().min(1).default('0.0.0.0'),
    // GET /metrics is served on this admin port only, never on PORT (the public one).
    METRICS_PORT: envSchemas.port(9100),
    METRICS_HOST: z.string().min(1).default('0.0.0.0'),
    // The one shared Basic credential when IDENTIDAD_SVC_ADDR is unset; with it, identidad-svc's first ADMIN and unused
    // here.
    BFF_USER: z
      .string()
      .regex(/^[^:]+$/, 'must not contain ":"')
      .optional(),
    BFF_PASSWORD: z.string().optional(),
    PRODUCTO_SVC_ADDR: envSchemas.grpcAddress('127.0.0.1:50051'),
    BODEGA_SVC_ADDR: envSchemas.grpcAddress('127.0.0.1:50052'),
    // identidad-svc (issue 26): set, every request is authenticated as one of its users (Basic or Bearer).
    IDENTIDAD_SVC_ADDR: envSchemas.grpcAddress('127.0.0.1:50053').unwrap().optional(),
    // The verified-credential cache: how long a verified credential is trusted (at most 60 s; 0: verify every
    // request) and how many are kept. Revocations empty it at once through the identity events.
    AUTH_CACHE_TTL_MS: envSchemas.count(60_000, 0, 60_000),
    AUTH_CACHE_MAX_ENTRIES: envSchemas.count(10_000, 1, 10_000_000),
    // Failed logins for one user name, from any address, in 15 minutes before its attempts are throttled to
    // one per AUTH_USUARIO_THROTTLE_MS (0 turns the throttle off).
    AUTH_FAILURES_PER_USUARIO_15_MIN: envSchemas.count(50, 0, 1_000_000),
    AUTH_USUARIO_THROTTLE_MS: envSchemas.milliseconds(1000, 1),
    // Requests per minute and client IP; 0 turns the limit off.
    RATE_LIMIT_PER_MINUTE: envSchemas.count(600, 0, 1_000_000),
    // Failed authentications (wrong or malformed credentials) per client IP in 15 minutes before it gets 429; 0 turns
    // it off.
    AUTH_FAILURES_PER_15_MIN: envSchemas.count(20, 0, 1_000_000),
    // Slow clients: time to send the request headers (slowloris bound), the whole request, and idle keep-alive time.
    HTTP_HEADERS_TIMEOUT_MS: envSchemas.milliseconds(20_000, 100),
    HTTP_REQUEST_TIMEOUT_MS: envSchemas.milliseconds(60_000, 100),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: envSchemas.milliseconds(65_000, 100),
    // Slow readers: how long a streamed list waits for the client to take what was sent before cutting it off.
    HTTP_WRITE_TIMEOUT_MS: envSchemas.milliseconds(DEFAULT_WRITE_TIMEOUT_MS, 100),
    // Proxy hops in front of the BFF (Envoy: 1) whose X-Forwarded-For is trusted to name the client.
    TRUST_PROXY_HOPS: envSchemas.count(0, 0, 10),
    // Deadline of every downstream gRPC call.
    GRPC_DEADLINE_MS: envSchemas.milliseconds(5000, 1),
    // Keepalive ping period on each downstream connection (0: none), and how long a ping may go
    // unanswered before the connection counts as dead and its replica leaves the rotation. Their sum
    // stays below BREAKER_WINDOW_MS: a dead replica must be dropped before its failures outweigh the
    // window's successes and open the breaker for every replica.
    GRPC_KEEPALIVE_TIME_MS: envSchemas.milliseconds(3000),
    GRPC_KEEPALIVE_TIMEOUT_MS: envSchemas.milliseconds(5000, 1),
    // Deadline of one grpc.health.v1 Check behind /actuator/health.
    HEALTH_CHECK_TIMEOUT_MS: envSchemas.milliseconds(1000, 1),
    // How long an open breaker refuses calls before it lets one through to test the service.
    BREAKER_RESET_MS: envSchemas.milliseconds(10_000, 1),
    // Percentage of failed calls in the rolling window that opens the breaker.
    BREAKER_ERROR_THRESHOLD_PERCENT: envSchemas.count(50, 1, 100),
    // Calls the rolling window must hold before the percentage counts.
    BREAKER_VOLUME_THRESHOLD: envSchemas.count(5, 0, 1_000_000),
    // Length of the rolling window the breaker counts failures in.
    BREAKER_WINDOW_MS: envSchemas.milliseconds(10_000, 100),
    // Lets the inicializarBaseDatos mutation load the sample data.
    ENABLE_INIT: envSchemas.flag(false),
    // Result nodes (objects and list items) one GraphQL request may resolve before it is stopped.
    GRAPHQL_MAX_NODES: envSchemas.count(100_000, 1, 10_000_000),
    // Time one GraphQL request may execute before it is stopped.
    GRAPHQL_DEADLINE_MS: envSchemas.milliseconds(10_000, 1),
    // The read cache (docs/contract.md §11): entries held (0, the default, turns it off and the BFF then
    // needs no NATS), the safety bound on an entry's life, and the event stream that keeps it coherent:
    // off unless asked, since a BFF told the wrong stream would hear none of the writes it must forget.
    READ_CACHE_MAX_ENTRIES: envSchemas.count(0, 0, 10_000_000),
    READ_CACHE_TTL_MS: envSchemas.milliseconds(60_000, 1),
    NATS_URL: envSchemas.natsUrl(),
    ...natsCredentialsEnv,
    NATS_STREAM: envSchemas.streamName(),
    NATS_SUBJECT_PREFIX: envSchemas.subjectPrefix(),
    LOG_LEVEL: envSchemas.logLevel(),
    // Time between reporting readiness DOWN and closing the HTTP server.
    SHUTDOWN_DRAIN_MS: envSchemas.milliseconds(2000),
    // Hard deadline of the whole shutdown sequence.
    SHUTDOWN_TIMEOUT_MS: envSchemas.milliseconds(25_000),
    ...tracingEnv,
  })
  // Node refuses a headers timeout longer than the request timeout.
  .refine((env) => env.HTTP_HEADERS_TIMEOUT_MS <= env.HTTP_REQUEST_TIMEOUT_MS, {
    path: ['HTTP_HEADERS_TIMEOUT_MS'],
    message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS',
  })
  .refine((env) => env.METRICS_PORT === 0 || env.METRICS_PORT !== env.PORT, {
    path: ['METRICS_PORT'],
    message: 'must differ from PORT (metrics are never served on the public port)',
  })
  .refine((env) => env.IDENTIDAD_SVC_ADDR !== undefined || env.BFF_USER !== undefined, {
    path: ['BFF_USER'],
    message: 'is required (the Basic-auth user name) unless IDENTIDAD_SVC_ADDR is set',
  })
  .refine((env) => env.IDENTIDAD_SVC_ADDR !== undefined || env.BFF_PASSWORD !== undefined, {
    path: ['BFF_PASSWORD'],
    message: 'is required (the Basic-auth password) unless IDENTIDAD_SVC_ADDR is set',
  })
  .refine(...natsCredentialsTogether)
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    metricsPort: env.METRICS_PORT,
    metricsHost: env.METRICS_HOST,
    /** The shared Basic credential (without identidad-svc); never logged. */
    credentials: bffCredentialOf(env),
    productoSvcAddr: env.PRODUCTO_SVC_ADDR,
    bodegaSvcAddr: env.BODEGA_SVC_ADDR,
    identidadSvcAddr: env.IDENTIDAD_SVC_ADDR,
    auth: {
      cacheTtlMs: env.AUTH_CACHE_TTL_MS,
      cacheMaxEntries: env.AUTH_CACHE_MAX_ENTRIES,
      failuresPerUsuario: env.AUTH_FAILURES_PER_USUARIO_15_MIN,
      usuarioThrottleMs: env.AUTH_USUARIO_THROTTLE_MS,
    },
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    authFailuresPer15Min: env.AUTH_FAILURES_PER_15_MIN,
    httpTimeouts: {
      headersMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestMs: env.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      writeMs: env.HTTP_WRITE_TIMEOUT_MS,
    },
    trustProxyHops: env.TRUST_PROXY_HOPS,
    grpcDeadlineMs: env.GRPC_DEADLINE_MS,
    keepalive: { timeMs: env.GRPC_KEEPALIVE_TIME_MS, timeoutMs: env.GRPC_KEEPALIVE_TIMEOUT_MS },
    healthCheckTimeoutMs: env.HEALTH_CHECK_TIMEOUT_MS,
    breaker: {
      resetMs: env.BREAKER_RESET_MS,
      errorThresholdPercent: env.BREAKER_ERROR_THRESHOLD_PERCENT,
      volumeThreshold: env.BREAKER_VOLUME_THRESHOLD,
      windowMs: env.BREAKER_WINDOW_MS,
    },
    enableInit: env.ENABLE_INIT,
    graphqlLimits: { maxNodes: env.GRAPHQL_MAX_NODES, deadlineMs: env.GRAPHQL_DEADLINE_MS },
    readCache: {
      maxEntries: env.READ_CACHE_MAX_ENTRIES,
      ttlMs: env.READ_CACHE_TTL_MS,
      natsUrl: env.NATS_URL,
      natsCredentials: natsCredentialsOf(env),
      natsStream: env.NATS_STREAM,
      natsSubjectPrefix: env.NATS_SUBJECT_PREFIX,
    },
    logLevel: env.LOG_LEVEL,
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
    otelServiceName: env.OTEL_SERVICE_NAME,
  }));

/** Validated settings of one BFF process. */
export type Config = z.infer<typeof schema>;

/** Parses `env` once; throws ConfigError listing every invalid variable (never their values). */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  return parseEnv(schema, env);
}
