import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '../src/config';

// The shared variables are tested once, in packages/platform/test/service-config.unit.test.ts.
describe('loadConfig', () => {
  it('listens on gRPC port 50051 by default', () => {
    expect(loadConfig({ DATABASE_URL: 'mysql://root@127.0.0.1:3306/inventario_producto' }).grpcPort).toBe(50051);
  });

  it('asks bodega-svc at 127.0.0.1:50052 by default, or at BODEGA_SVC_ADDR, listing its problems with the shared ones', () => {
    const DATABASE_URL = 'mysql://root@127.0.0.1:3306/inventario_producto';
    expect(loadConfig({ DATABASE_URL }).bodegaSvcAddr).toBe('127.0.0.1:50052');
    expect(loadConfig({ DATABASE_URL, BODEGA_SVC_ADDR: 'dns:///bodega-svc-headless:50052' }).bodegaSvcAddr).toBe(
      'dns:///bodega-svc-headless:50052',
    );
    expect(() => loadConfig({ GRPC_PORT: 'x', BODEGA_SVC_ADDR: 'http://bodega' })).toThrow(
      /DATABASE_URL: .*GRPC_PORT: .*BODEGA_SVC_ADDR: must be host:port/,
    );
  });

  it('serves metrics on port 9101 by default, on every interface', () => {
    expect(loadConfig({ DATABASE_URL: 'mysql://root@127.0.0.1:3306/inventario_producto' })).toMatchObject({
      metricsPort: 9101,
      metricsHost: '0.0.0.0',
    });
  });
});

describe('main with an invalid environment', () => {
  it('prints one line naming every bad variable and exits 1', () => {
    // The built entry point (npm test builds before jest).
    const main = join(__dirname, '..', 'dist', 'main.js');
    const result = spawnSync(process.execPath, [main], {
      env: { PATH: process.env.PATH, GRPC_PORT: '70000' },
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^producto-svc: invalid configuration: DATABASE_URL: .+; GRPC_PORT: .+$/);
    expect(result.stdout).toBe('');
  });
});
