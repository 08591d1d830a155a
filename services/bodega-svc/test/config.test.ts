import { ConfigError } from '@inventario/platform';
import { loadConfig } from '../src/config';

const DATABASE_URL = 'mysql://root@127.0.0.1:3306/inventario_bodega';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('loadConfig', () => {
  it('applies the documented defaults when only DATABASE_URL is set', () => {
    expect(loadConfig({ DATABASE_URL })).toEqual({
      databaseUrl: DATABASE_URL,
      grpcPort: 50052,
      grpcHost: '0.0.0.0',
      natsUrl: 'nats://127.0.0.1:4222',
      logLevel: 'info',
      natsStream: 'INVENTARIO',
      natsSubjectPrefix: 'inventario',
      eventTypeNamespace: 'Service',
      dbCheckIntervalMs: 2000,
      shutdownDrainMs: 2000,
      shutdownTimeoutMs: 25_000,
    });
  });

  it('reads every variable it documents', () => {
    const config = loadConfig({
      DATABASE_URL,
      GRPC_PORT: '6000',
      GRPC_HOST: '127.0.0.1',
      NATS_URL: 'nats://a:4222,nats://b:4222',
      LOG_LEVEL: 'debug',
      NATS_STREAM: 'OTRO',
      NATS_SUBJECT_PREFIX: 'pruebas.inv',
      EVENT_TYPE_NAMESPACE: 'Acme',
      DB_CHECK_INTERVAL_MS: '500',
      SHUTDOWN_DRAIN_MS: '0',
      SHUTDOWN_TIMEOUT_MS: '10000',
    });
    expect(config).toMatchObject({
      grpcPort: 6000,
      grpcHost: '127.0.0.1',
      natsUrl: 'nats://a:4222,nats://b:4222',
      logLevel: 'debug',
      natsStream: 'OTRO',
      natsSubjectPrefix: 'pruebas.inv',
      eventTypeNamespace: 'Acme',
      dbCheckIntervalMs: 500,
      shutdownDrainMs: 0,
      shutdownTimeoutMs: 10_000,
    });
  });

  it('refuses to start without DATABASE_URL, naming it', () => {
    const problems = problemsOf({});
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^DATABASE_URL: /);
  });

  it('lists every invalid variable in one error', () => {
    const problems = problemsOf({ DATABASE_URL: 'postgres://x/y', GRPC_PORT: '70000', LOG_LEVEL: 'loud' });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['DATABASE_URL', 'GRPC_PORT', 'LOG_LEVEL']);
  });
});
