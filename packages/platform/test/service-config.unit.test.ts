/**
 * The environment contract every gRPC service shares (serviceConfigSchema):
 * documented defaults, every variable read, DATABASE_URL never defaulted,
 * every problem listed in one error.
 */
import { ConfigError, loadServiceConfig } from '@inventario/platform';

const DATABASE_URL = 'mysql://root@127.0.0.1:3306/inventario_producto';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadServiceConfig(env, 50051, 9101);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadServiceConfig', () => {
  it('applies the documented defaults when only DATABASE_URL is set, with the service default ports', () => {
    expect(loadServiceConfig({ DATABASE_URL }, 50052, 9102)).toEqual({
      databaseUrl: DATABASE_URL,
      grpcPort: 50052,
      grpcHost: '0.0.0.0',
      metricsPort: 9102,
      metricsHost: '0.0.0.0',
      natsUrl: 'nats://127.0.0.1:4222',
      logLevel: 'info',
      natsStream: 'INVENTARIO',
      natsSubjectPrefix: 'inventario',
      eventTypeNamespace: 'Service',
      streamLimits: { maxAgeMs: 720 * 3600_000, maxBytes: 512 * 1024 * 1024 },
      streamReplicas: 1,
      dbCheckIntervalMs: 2000,
      dbStatementTimeoutMs: 4000,
      dbAcquireTimeoutMs: 3000,
      migrateOnStart: true,
      shutdownDrainMs: 2000,
      shutdownTimeoutMs: 25_000,
      idempotencyTtlSeconds: 86_400,
    });
  });

  it('connects without NATS credentials unless both NATS_USER and NATS_PASSWORD are set, and refuses one without the other', () => {
    expect(loadServiceConfig({ DATABASE_URL }, 1, 2).natsCredentials).toBeUndefined();
    expect(
      loadServiceConfig({ DATABASE_URL, NATS_USER: 'producto-svc', NATS_PASSWORD: 's3cret' }, 1, 2).natsCredentials,
    ).toEqual({
      user: 'producto-svc',
      pass: 's3cret',
    });
    expect(problemsOf({ DATABASE_URL, NATS_USER: 'producto-svc' })).toEqual([
      'NATS_PASSWORD: NATS_USER and NATS_PASSWORD go together: set both or neither',
    ]);
    expect(problemsOf({ DATABASE_URL, NATS_PASSWORD: 's3cret' }).join()).not.toContain('s3cret');
  });

  it('reads every variable it documents', () => {
    const config = loadServiceConfig(
      {
        DATABASE_URL,
        GRPC_PORT: '6000',
        GRPC_HOST: '127.0.0.1',
        METRICS_PORT: '9200',
        METRICS_HOST: '127.0.0.2',
        NATS_URL: 'nats://a:4222,nats://b:4222',
        LOG_LEVEL: 'debug',
        NATS_STREAM: 'OTRO',
        NATS_SUBJECT_PREFIX: 'pruebas.inv',
        EVENT_TYPE_NAMESPACE: 'Acme',
        NATS_STREAM_MAX_AGE_HOURS: '48',
        NATS_STREAM_MAX_BYTES: '1048576',
        NATS_STREAM_REPLICAS: '3',
        DB_CHECK_INTERVAL_MS: '500',
        DB_STATEMENT_TIMEOUT_MS: '0',
        DB_ACQUIRE_TIMEOUT_MS: '1500',
        MIGRATE_ON_START: 'false',
        SHUTDOWN_DRAIN_MS: '0',
        SHUTDOWN_TIMEOUT_MS: '10000',
        IDEMPOTENCY_TTL_SECONDS: '3600',
      },
      50051,
      9101,
    );
    expect(config).toEqual({
      databaseUrl: DATABASE_URL,
      grpcPort: 6000,
      grpcHost: '127.0.0.1',
      metricsPort: 9200,
      metricsHost: '127.0.0.2',
      natsUrl: 'nats://a:4222,nats://b:4222',
      logLevel: 'debug',
      natsStream: 'OTRO',
      natsSubjectPrefix: 'pruebas.inv',
      eventTypeNamespace: 'Acme',
      streamLimits: { maxAgeMs: 48 * 3600_000, maxBytes: 1024 * 1024 },
      streamReplicas: 3,
      dbCheckIntervalMs: 500,
      dbStatementTimeoutMs: 0,
      dbAcquireTimeoutMs: 1500,
      migrateOnStart: false,
      shutdownDrainMs: 0,
      shutdownTimeoutMs: 10_000,
      idempotencyTtlSeconds: 3600,
    });
  });

  it('takes MIGRATE_ON_START as true or false only: a typo must not silently skip migrations', () => {
    expect(problemsOf({ DATABASE_URL, MIGRATE_ON_START: 'no' })).toEqual(['MIGRATE_ON_START: must be true or false']);
  });

  it('refuses to start without DATABASE_URL, naming it: credentials are never defaulted', () => {
    expect(problemsOf({})).toEqual([expect.stringMatching(/^DATABASE_URL: /)]);
  });

  it('refuses METRICS_PORT equal to GRPC_PORT: metrics are never served on the gRPC port', () => {
    expect(problemsOf({ DATABASE_URL, GRPC_PORT: '7000', METRICS_PORT: '7000' })).toEqual([
      'METRICS_PORT: must differ from GRPC_PORT (metrics are never served on the gRPC port)',
    ]);
  });

  it('accepts METRICS_PORT=0 (an ephemeral port) beside GRPC_PORT=0, as tests run', () => {
    expect(loadServiceConfig({ DATABASE_URL, GRPC_PORT: '0', METRICS_PORT: '0' }, 50051, 9101)).toMatchObject({
      grpcPort: 0,
      metricsPort: 0,
    });
  });

  it('takes 0 as "no limit" for the stream limits and refuses a byte cap below 1 MiB', () => {
    expect(
      loadServiceConfig({ DATABASE_URL, NATS_STREAM_MAX_AGE_HOURS: '0', NATS_STREAM_MAX_BYTES: '0' }, 50051, 9101)
        .streamLimits,
    ).toEqual({
      maxAgeMs: 0,
      maxBytes: 0,
    });
    expect(problemsOf({ DATABASE_URL, NATS_STREAM_MAX_AGE_HOURS: '1.5', NATS_STREAM_MAX_BYTES: '1000' })).toEqual([
      'NATS_STREAM_MAX_AGE_HOURS: must be whole hours (0 = no limit)',
      'NATS_STREAM_MAX_BYTES: must be 0 (no limit) or at least 1048576 (1 MiB)',
    ]);
  });

  it('takes NATS_STREAM_REPLICAS from 1 to 5 (a NATS cluster keeps that many copies) and refuses anything else', () => {
    expect(loadServiceConfig({ DATABASE_URL, NATS_STREAM_REPLICAS: '3' }, 50051, 9101).streamReplicas).toBe(3);
    expect(loadServiceConfig({ DATABASE_URL, NATS_STREAM_REPLICAS: '5' }, 50051, 9101).streamReplicas).toBe(5);
    for (const bad of ['0', '6', '2.5', 'three', '-1']) {
      expect(problemsOf({ DATABASE_URL, NATS_STREAM_REPLICAS: bad })).toEqual([
        expect.stringMatching(/^NATS_STREAM_REPLICAS: must be/),
      ]);
    }
  });

  it('takes several NATS servers and several database hosts (failover), refusing a host list with a bad entry without echoing it', () => {
    const config = loadServiceConfig(
      {
        DATABASE_URL: 'mysql://app:s3cret@db-0:3306,db-1:3307,db-2/inv',
        NATS_URL: 'nats://nats-0:4222,nats://nats-1:4222,nats://nats-2:4222',
      },
      50051,
      9101,
    );
    expect(config.databaseUrl).toBe('mysql://app:s3cret@db-0:3306,db-1:3307,db-2/inv');
    expect(config.natsUrl).toBe('nats://nats-0:4222,nats://nats-1:4222,nats://nats-2:4222');
    for (const bad of [
      'mysql://app:s3cret@db-0,db-1:99999/inv',
      'mysql://app:s3cret@db-0,,db-1/inv',
      'mysql://app:s3cret@db-0,[db/inv',
    ]) {
      const problems = problemsOf({ DATABASE_URL: bad });
      expect(problems).toEqual([
        expect.stringMatching(
          /^DATABASE_URL: must be mysql:\/\/user\[:password\]@host\[:port\]\[,host\[:port\]\.\.\.\]\/database/,
        ),
      ]);
      expect(problems.join()).not.toContain('s3cret');
    }
  });

  it('lists every invalid variable in one error', () => {
    const problems = problemsOf({
      DATABASE_URL: 'postgres://x/y',
      GRPC_PORT: '70000',
      METRICS_PORT: '-1',
      LOG_LEVEL: 'loud',
      NATS_SUBJECT_PREFIX: 'a..b',
      DB_CHECK_INTERVAL_MS: '10',
    });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'DATABASE_URL',
      'DB_CHECK_INTERVAL_MS',
      'GRPC_PORT',
      'LOG_LEVEL',
      'METRICS_PORT',
      'NATS_SUBJECT_PREFIX',
    ]);
  });
});
