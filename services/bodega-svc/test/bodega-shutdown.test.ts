/**
 * Component test of graceful shutdown: stopping the service (what SIGTERM
 * triggers, minus the drain delay) lets a call already in flight finish and
 * commit before the database pool is closed.
 */
import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { BodegaServiceClient } from '@inventario/proto';
import { waitFor } from '@inventario/testkit';
import { startTestService, type TestService } from './support/test-service';

let svc: TestService;

beforeAll(async () => {
  // The update below waits on a row lock while the test stops the service; under the default
  // statement limit (4 s) a slow machine could see it killed first, which is not what is tested.
  svc = await startTestService('bodega_shutdown', { env: { DB_STATEMENT_TIMEOUT_MS: '120000' } });
});

afterAll(async () => {
  await svc?.close();
});

/** True once a fresh connection gets UNAVAILABLE: the server has stopped accepting calls. */
async function refusesNewCalls(address: string): Promise<boolean> {
  const client = new BodegaServiceClient(address, credentials.createInsecure());
  try {
    await new Promise((resolve, reject) => client.getBodega({ id: 1 }, (e, r) => (e ? reject(e) : resolve(r))));
    return false;
  } catch (err) {
    // NOT_FOUND and the like mean the call was served; only a transport failure means refused.
    return (err as ServiceError).code === status.UNAVAILABLE;
  } finally {
    client.close();
  }
}

describe('graceful shutdown', () => {
  it('completes a call that is in flight when the service is stopped', async () => {
    const { bodega } = await svc.rpc.createBodega({ nombre: 'En vuelo', capacidad: 1 });
    if (!bodega) throw new Error('CreateBodega answered without a bodega');

    // Hold the row lock so the update below stays in flight inside the service.
    const trx = await svc.db.transaction();
    await trx('bodegas').where({ id: bodega.id }).forUpdate().first();
    const inFlight = svc.rpc.updateBodega({
      bodega: { version: 0, id: bodega.id, nombre: '', capacidad: 77 },
      updateMask: ['capacidad'],
    });
    // Polled every 150 ms: MariaDB refreshes INNODB_TRX only after 100 ms without a read of it,
    // so faster polls keep reading the first (empty) answer.
    await waitFor(
      async () => {
        const [rows] = await svc.db.raw(
          `SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX t
         JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
         WHERE t.trx_state = 'LOCK WAIT' AND p.DB = ?`,
          [svc.database],
        );
        return Number((rows as [{ n: number }])[0].n) === 1;
      },
      'the update to wait for the row lock',
      10_000,
      150,
    );

    let stopped = false;
    const stopping = svc.app.stop().then(() => {
      stopped = true;
    });
    await waitFor(() => refusesNewCalls(svc.address), 'the server to refuse new calls');
    expect(stopped).toBe(false);

    await trx.commit();

    await expect(inFlight).resolves.toMatchObject({ bodega: { id: bodega.id, capacidad: 77 } });
    await stopping;
    expect(stopped).toBe(true);
    expect((await svc.db('bodegas').where({ id: bodega.id }).first()).capacidad).toBe(77);
  });
});
