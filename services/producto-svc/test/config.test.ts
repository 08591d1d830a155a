import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError } from '@inventario/platform';
import { loadConfig } from '../src/config';

const DATABASE_URL = 'mysql://root@127.0.0.1:3306/inventario_producto';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    expect(loadConfig({ DATABASE_URL })).toEqual({
      databaseUrl: DATABASE_URL,
      grpcPort: 50051,
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

  it('reads every variable', () => {
    const config = loadConfig({
      DATABASE_URL,
      GRPC_PORT: '6000',
      GRPC_HOST: '127.0.0.1',
      NATS_URL: 'nats://nats:4222',
      LOG_LEVEL: 'debug',
      NATS_STREAM: 'OTRO',
      NATS_SUBJECT_PREFIX: 'pruebas.inventario',
      EVENT_TYPE_NAMESPACE: 'Acme',
      DB_CHECK_INTERVAL_MS: '500',
      SHUTDOWN_DRAIN_MS: '0',
      SHUTDOWN_TIMEOUT_MS: '5000',
    });
    expect(config).toMatchObject({ grpcPort: 6000, natsSubjectPrefix: 'pruebas.inventario', eventTypeNamespace: 'Acme', shutdownDrainMs: 0 });
  });

  it('requires DATABASE_URL: credentials are never defaulted', () => {
    expect(() => loadConfig({})).toThrow(ConfigError);
  });

  it('lists every invalid variable in one error', () => {
    try {
      loadConfig({ DATABASE_URL: 'postgres://x/y', GRPC_PORT: 'abc', NATS_SUBJECT_PREFIX: 'a..b' });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems.map((p) => p.split(':')[0])).toEqual(['DATABASE_URL', 'GRPC_PORT', 'NATS_SUBJECT_PREFIX']);
    }
  });
});

describe('main with an invalid environment', () => {
  it('prints one line naming the variable and exits 1', () => {
    // The built entry point (npm test builds before jest).
    const main = join(__dirname, '..', 'dist', 'main.js');
    const result = spawnSync(process.execPath, [main], { env: { PATH: process.env.PATH, GRPC_PORT: '70000' }, encoding: 'utf8', timeout: 10_000 });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^producto-svc: invalid configuration: DATABASE_URL: .+; GRPC_PORT: .+$/);
    expect(result.stdout).toBe('');
  });
});
