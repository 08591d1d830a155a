import { status } from '@grpc/grpc-js';
import { TEST_MYSQL_SERVER, waitFor } from '@inventario/testkit';
import { SERVICE_NAME } from '../src/app';
import { createHealthClient, type HealthClient, rejectionOf } from '@inventario/testkit/grpc';
import { startTcpProxy, type TcpProxy } from '@inventario/testkit';
import { startTestService, type TestService } from './support/test-service';

// grpc.health.v1 follows the database: the service reaches MariaDB through a
// TCP proxy the test can cut, a real outage as far as the driver can tell.

let proxy: TcpProxy;
let svc: TestService;
let health: HealthClient;

beforeAll(async () => {
  const mysql = new URL(TEST_MYSQL_SERVER);
  proxy = await startTcpProxy(mysql.hostname, Number(mysql.port || 3306));
  svc = await startTestService('producto_health', (database) => {
    const url = new URL(database.url);
    url.host = `127.0.0.1:${proxy.port}`;
    return { DATABASE_URL: url.toString() };
  });
  health = createHealthClient(svc.app.grpcPort);
  await svc.app.ready;
});

afterAll(async () => {
  health?.close();
  await proxy?.restore().catch(() => undefined);
  await svc?.close();
  await proxy?.close();
});

async function statusOfBoth(): Promise<string[]> {
  return Promise.all([health.check(''), health.check(SERVICE_NAME)]);
}

describe('grpc.health.v1', () => {
  it("answers SERVING for the whole server ('') and for inventario.v1.ProductoService", async () => {
    expect(await statusOfBoth()).toEqual(['SERVING', 'SERVING']);
  });

  it('answers NOT_FOUND for a service the server does not have', async () => {
    expect((await rejectionOf(health.check('inventario.v1.Desconocido'))).code).toBe(status.NOT_FOUND);
  });

  it('turns NOT_SERVING while the database is unreachable, fails calls with UNAVAILABLE, and recovers', async () => {
    const { producto } = await svc.api.create({ nombre: 'Antes del corte', precio: '1.00', cantidadEnStock: 1 });

    await proxy.cut();
    await waitFor(async () => (await statusOfBoth()).every((s) => s === 'NOT_SERVING'), 'health NOT_SERVING');
    expect((await rejectionOf(svc.api.get(producto?.id ?? 0))).code).toBe(status.UNAVAILABLE);
    expect((await rejectionOf(svc.api.create({ nombre: 'Durante', precio: '1.00', cantidadEnStock: 1 }))).code).toBe(
      status.UNAVAILABLE,
    );

    await proxy.restore();
    await waitFor(async () => (await statusOfBoth()).every((s) => s === 'SERVING'), 'health SERVING again');
    expect((await svc.api.get(producto?.id ?? 0)).producto?.nombre).toBe('Antes del corte');
  });
});

describe('shutdown', () => {
  it('answers NOT_SERVING but still serves calls during the drain delay, then closes the port', async () => {
    const draining = await startTestService('producto_drain', { SHUTDOWN_DRAIN_MS: '1500' });
    const probe = createHealthClient(draining.app.grpcPort);
    try {
      await draining.app.ready;
      const { producto } = await draining.api.create({ nombre: 'Último', precio: '1.00', cantidadEnStock: 1 });
      expect(await probe.check('')).toBe('SERVING');

      const stopped = draining.app.stop();
      await waitFor(async () => (await probe.check('')) === 'NOT_SERVING', 'health NOT_SERVING');
      expect((await draining.api.get(producto?.id ?? 0)).producto?.nombre).toBe('Último');

      await stopped;
      expect((await rejectionOf(draining.api.get(producto?.id ?? 0))).code).toBe(status.UNAVAILABLE);
    } finally {
      probe.close();
      await draining.close();
    }
  });
});
