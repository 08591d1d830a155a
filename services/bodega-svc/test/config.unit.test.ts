import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '../src/config';

// The shared variables are tested once, in packages/platform/test/service-config.unit.test.ts.
describe('loadConfig', () => {
  it('listens on gRPC port 50052 by default', () => {
    expect(loadConfig({ DATABASE_URL: 'mysql://root@127.0.0.1:3306/inventario_bodega' }).grpcPort).toBe(50052);
  });

  it('asks producto-svc at 127.0.0.1:50051 by default, or at PRODUCTO_SVC_ADDR, listing its problems with the shared ones', () => {
    const DATABASE_URL = 'mysql://root@127.0.0.1:3306/inventario_bodega';
    expect(loadConfig({ DATABASE_URL }).productoSvcAddr).toBe('127.0.0.1:50051');
    expect(loadConfig({ DATABASE_URL, PRODUCTO_SVC_ADDR: 'dns:///producto-svc-headless:50051' }).productoSvcAddr).toBe(
      'dns:///producto-svc-headless:50051',
    );
    expect(() => loadConfig({ GRPC_PORT: 'x', PRODUCTO_SVC_ADDR: 'http://producto' })).toThrow(
      /DATABASE_URL: .*GRPC_PORT: .*PRODUCTO_SVC_ADDR: must be host:port/,
    );
  });

  it('holds reservations 15 min by default and at most 7 days, sweeping every 5 s; a default above the maximum is refused', () => {
    const DATABASE_URL = 'mysql://root@127.0.0.1:3306/inventario_bodega';
    expect(loadConfig({ DATABASE_URL })).toMatchObject({
      reservas: { ttlPorDefectoSegundos: 900, ttlMaximoSegundos: 604_800 },
      reservaBarridoIntervalMs: 5000,
    });
    expect(() => loadConfig({ DATABASE_URL, RESERVA_TTL_SECONDS: '7200', RESERVA_TTL_MAX_SECONDS: '3600' })).toThrow(
      /RESERVA_TTL_SECONDS: must not exceed RESERVA_TTL_MAX_SECONDS/,
    );
  });

  it('checks callers only when told: REQUIRE_PRINCIPAL needs IDENTIDAD_SVC_ADDR; SERVICE_TOKEN must be an API token', () => {
    const DATABASE_URL = 'mysql://root@127.0.0.1:3306/inventario_bodega';
    expect(loadConfig({ DATABASE_URL })).toMatchObject({
      requirePrincipal: false,
      identidadSvcAddr: undefined,
      principalTokenCacheMs: 5000,
      serviceToken: undefined,
    });
    expect(() => loadConfig({ DATABASE_URL, REQUIRE_PRINCIPAL: 'true' })).toThrow(
      /IDENTIDAD_SVC_ADDR: is required when REQUIRE_PRINCIPAL=true/,
    );
    expect(() => loadConfig({ DATABASE_URL, REQUIRE_PRINCIPAL: 'yes' })).toThrow(
      /REQUIRE_PRINCIPAL: must be true or false/,
    );
    expect(() => loadConfig({ DATABASE_URL, SERVICE_TOKEN: 'secreto' })).toThrow(/SERVICE_TOKEN: must be an API token/);
    expect(() => loadConfig({ DATABASE_URL, PRINCIPAL_TOKEN_CACHE_MS: '60001' })).toThrow(/PRINCIPAL_TOKEN_CACHE_MS/);
    expect(
      loadConfig({
        DATABASE_URL,
        REQUIRE_PRINCIPAL: 'true',
        IDENTIDAD_SVC_ADDR: 'dns:///identidad-svc-headless:50053',
        SERVICE_TOKEN: 'inv_7_abcDEF-_012',
      }),
    ).toMatchObject({
      requirePrincipal: true,
      identidadSvcAddr: 'dns:///identidad-svc-headless:50053',
      serviceToken: 'inv_7_abcDEF-_012',
    });
  });

  it('serves metrics on port 9102 by default, on every interface', () => {
    expect(loadConfig({ DATABASE_URL: 'mysql://root@127.0.0.1:3306/inventario_bodega' })).toMatchObject({
      metricsPort: 9102,
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
    expect(lines[0]).toMatch(/^bodega-svc: invalid configuration: DATABASE_URL: .+; GRPC_PORT: .+$/);
    expect(result.stdout).toBe('');
  });
});
