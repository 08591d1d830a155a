/**
 * A database that holds a write up, as producto-svc sees it (in-process,
 * real MariaDB): a statement stuck on a row lock ends at the service's
 * statement time limit (DB_STATEMENT_TIMEOUT_MS) with RESOURCE_EXHAUSTED
 * and reason STATEMENT_TIMEOUT (about this request, never UNAVAILABLE: issue
 * 21, item 2), rather than after InnoDB's 50 s lock wait; and a write whose caller gave up
 * (its deadline passed) rolls back once the lock is released instead of
 * committing behind the caller's back.
 */
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { countPendingEvents, errorReasonOf, type Knex } from '@inventario/platform';
import { UpdateProductoRequest, type UpdateProductoResponse } from '@inventario/proto';
import { waitFor } from '@inventario/testkit';
import { rejectionOf } from '@inventario/testkit/grpc';
import { startTestService, type TestService } from './support/test-service';

/** The row lock of product `id`, held by a transaction on a connection of its own until released. */
async function holdRow(db: Knex, id: number): Promise<{ connectionId: number; release(): Promise<void> }> {
  const trx = await db.transaction();
  await trx('productos').where({ id }).forUpdate().first('id');
  const [[row]] = (await trx.raw('SELECT CONNECTION_ID() AS id')) as [[{ id: number }]];
  return {
    connectionId: Number(row.id),
    release: async () => {
      await trx.rollback();
    },
  };
}

/**
 * Transactions open on the service's database, other than the test's own
 * (this query's and the lock holder's); with `waiting`, only those waiting
 * for a lock (the outbox relay's short polls come and go beside them).
 * MariaDB refreshes INNODB_TRX only after 100 ms without a read of it: poll
 * it less often than that.
 */
async function serviceTransactions(db: Knex, holder: number, waiting = false): Promise<number> {
  const [rows] = (await db.raw(
    `SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX t
     JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
     WHERE p.DB = DATABASE() AND p.ID NOT IN (CONNECTION_ID(), ?)${waiting ? " AND t.trx_state = 'LOCK WAIT'" : ''}`,
    [holder],
  )) as [{ n: number }[]];
  return Number(rows[0]?.n ?? 0);
}

describe('with a statement time limit', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService('p_limits', { DB_STATEMENT_TIMEOUT_MS: '300' });
  });

  afterAll(async () => {
    await svc?.close();
  });

  it('a write stuck on a row lock answers RESOURCE_EXHAUSTED (STATEMENT_TIMEOUT) while the lock is still held, and changes nothing', async () => {
    const { producto } = await svc.api.create({ nombre: 'Bloqueado', precio: '1.00', cantidadEnStock: 1 });
    const hold = await holdRow(svc.db, producto!.id);
    try {
      // Without the limit it would wait InnoDB's 50 s and outlive the call's 10 s deadline.
      const refused = await rejectionOf(
        svc.api.update({ producto: { id: producto!.id, cantidadEnStock: 9 }, updateMask: ['cantidadEnStock'] }),
      );
      expect({ code: refused.code, reason: errorReasonOf(refused) }).toEqual({
        code: status.RESOURCE_EXHAUSTED,
        reason: 'STATEMENT_TIMEOUT',
      });
    } finally {
      await hold.release();
    }
    expect((await svc.api.get(producto!.id)).producto).toMatchObject({ cantidadEnStock: 1, version: 1 });
    // The pool's connections work on: the same write now succeeds.
    const { producto: updated } = await svc.api.update({
      producto: { id: producto!.id, cantidadEnStock: 9 },
      updateMask: ['cantidadEnStock'],
    });
    expect(updated).toMatchObject({ cantidadEnStock: 9, version: 2 });
  });
});

describe('a write whose caller gave up', () => {
  let svc: TestService;

  beforeAll(async () => {
    // No statement limit here: the write must outlive its caller's deadline.
    svc = await startTestService('p_cancel', { DB_STATEMENT_TIMEOUT_MS: '0' });
  });

  afterAll(async () => {
    await svc?.close();
  });

  it('rolls back once the row lock it waited on is released, instead of committing after DEADLINE_EXCEEDED', async () => {
    const { producto } = await svc.api.create({ nombre: 'Abandonado', precio: '1.00', cantidadEnStock: 1 });
    await waitFor(async () => (await countPendingEvents(svc.db)) === 0, 'the creation event to be published');
    const hold = await holdRow(svc.db, producto!.id);
    try {
      const request = UpdateProductoRequest.fromPartial({
        producto: { id: producto!.id, cantidadEnStock: 5 },
        updateMask: ['cantidadEnStock'],
      });
      const expired = await rejectionOf(
        new Promise<UpdateProductoResponse>((resolve, reject) => {
          svc.client.updateProducto(
            request,
            new Metadata(),
            { deadline: Date.now() + 500 },
            (err: ServiceError | null, res) => (err ? reject(err) : resolve(res)),
          );
        }),
      );
      expect(expired.code).toBe(status.DEADLINE_EXCEEDED);
      // The service's transaction is still there, waiting on the lock.
      expect(await serviceTransactions(svc.db, hold.connectionId, true)).toBe(1);
    } finally {
      await hold.release();
    }
    await waitFor(
      async () => (await serviceTransactions(svc.db, hold.connectionId)) === 0,
      'the abandoned write to end',
      10_000,
      250,
    );
    expect((await svc.api.get(producto!.id)).producto).toMatchObject({ cantidadEnStock: 1, version: 1 });
    expect(await countPendingEvents(svc.db)).toBe(0);
    const updates = (await svc.settledEvents()).filter((e) => e.body.eventType.endsWith('ProductoActualizado'));
    expect(updates).toEqual([]);
  });
});
