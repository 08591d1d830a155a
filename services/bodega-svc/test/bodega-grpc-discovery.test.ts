/**
 * Component tests of what operators and tools discover over gRPC:
 * grpc.health.v1 (SERVING once migrations ran, for the whole server and for
 * inventario.v1.BodegaService) and server reflection (what grpcurl and
 * `buf curl` use to call the service without the .proto files).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { status, type ServiceError } from '@grpc/grpc-js';
import { startTestService, type TestService } from './support/test-service';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService('bodega_health');
});

afterAll(async () => {
  await svc?.close();
});

describe('grpc health', () => {
  it.each(['', 'inventario.v1.BodegaService'])('answers SERVING for %p', async (service) => {
    await expect(svc.healthCheck(service)).resolves.toBe('SERVING');
  });

  it('answers NOT_FOUND for a service it does not serve', async () => {
    const err = await svc.healthCheck('inventario.v1.ProductoService').catch((e: ServiceError) => e);
    expect((err as ServiceError).code).toBe(status.NOT_FOUND);
  });

  it('answers NOT_SERVING once told to stop taking traffic, and SERVING again after', async () => {
    svc.app.setServing(false);
    await expect(svc.healthCheck('inventario.v1.BodegaService')).resolves.toBe('NOT_SERVING');
    svc.app.setServing(true);
    await expect(svc.healthCheck('')).resolves.toBe('SERVING');
  });
});

/** The buf CLI installed with the workspace (devDependency of @inventario/proto). */
const BUF = resolve(__dirname, '../../../node_modules/.bin/buf');

describe('grpc reflection', () => {
  it('lets buf curl list the served services and call them, health included, from reflection alone', async () => {
    const run = (...args: string[]) =>
      promisify(execFile)(BUF, ['curl', '--protocol', 'grpc', '--http2-prior-knowledge', ...args]).then(
        (r) => r.stdout,
      );
    const base = `http://${svc.address}`;

    const services = await run('--list-services', base);
    const created = await run(
      '--data',
      JSON.stringify({ nombre: 'Por reflexión', capacidad: 3 }),
      `${base}/inventario.v1.BodegaService/CreateBodega`,
    );

    const health = await run('--data', '{"service":""}', `${base}/grpc.health.v1.Health/Check`);

    expect(services.trim().split('\n').sort()).toEqual([
      'grpc.health.v1.Health',
      'inventario.v1.BodegaService',
      'inventario.v1.ExistenciaService',
      // Added with reservations (docs/contract.md §13).
      'inventario.v1.ReservaService',
    ]);
    expect(JSON.parse(created)).toMatchObject({ bodega: { nombre: 'Por reflexión', capacidad: 3 } });
    expect(JSON.parse(health)).toEqual({ status: 'SERVING' });
  });
});
