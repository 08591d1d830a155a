/**
 * writeTransaction against real MariaDB: the after-commit callback runs once
 * the write is visible to other connections, and never for a rolled-back or
 * failed write.
 */
import { createDb, createLogger, ResourceExhaustedError, UnavailableError, writeTransaction, type Knex } from '@inventario/platform';
import { createTestDatabase, freePort, type TestDatabase } from '@inventario/testkit';

let testDb: TestDatabase;
let db: Knex;

beforeAll(async () => {
  testDb = await createTestDatabase('write_trx');
  db = createDb(testDb.url);
  await db.schema.createTable('filas', (t) => {
    t.integer('n').notNullable();
  });
});

afterAll(async () => {
  await db.destroy();
  await testDb.drop();
});

async function count(n: number): Promise<number> {
  const [row] = await db('filas').where({ n }).count({ total: '*' });
  return Number(row?.total);
}

describe('writeTransaction', () => {
  it('returns what the work returned and notifies once, after the commit is visible', async () => {
    let seenAtNotify: Promise<number> | undefined;
    const onCommitted = jest.fn(() => {
      seenAtNotify = count(1);
    });
    const result = await writeTransaction(db, (trx) => trx('filas').insert({ n: 1 }).then(() => 'hecho'), { onCommitted });
    expect(result).toBe('hecho');
    expect(onCommitted).toHaveBeenCalledTimes(1);
    expect(await seenAtNotify).toBe(1);
  });

  it('rolls back and notifies nobody when the work throws, passing the error through', async () => {
    const onCommitted = jest.fn();
    const failure = new Error('regla rota');
    await expect(
      writeTransaction(
        db,
        async (trx) => {
          await trx('filas').insert({ n: 2 });
          throw failure;
        },
        { onCommitted },
      ),
    ).rejects.toBe(failure);
    expect(onCommitted).not.toHaveBeenCalled();
    expect(await count(2)).toBe(0);
  });

  it('works without a callback', async () => {
    await writeTransaction(db, (trx) => trx('filas').insert({ n: 3 }));
    expect(await count(3)).toBe(1);
  });

  it('answers UnavailableError and notifies nobody when the database cannot be reached', async () => {
    const port = await freePort();
    const unreachable = createDb(`mysql://root@127.0.0.1:${port}/nada`, {
      connectTimeoutMs: 500,
      acquireTimeoutMs: 1000,
      logger: createLogger('write-transaction-test', 'silent'),
    });
    const onCommitted = jest.fn();
    try {
      await expect(writeTransaction(unreachable, (trx) => trx('filas').insert({ n: 4 }), { onCommitted })).rejects.toBeInstanceOf(
        UnavailableError,
      );
      expect(onCommitted).not.toHaveBeenCalled();
    } finally {
      await unreachable.destroy();
    }
  });
});

describe('a statement larger than max_allowed_packet', () => {
  it('is ResourceExhaustedError (about the request, not the database), and the pool keeps serving', async () => {
    const [[{ max }]] = (await db.raw('SELECT @@max_allowed_packet AS max')) as [[{ max: number | string }]];
    const tooBig = 'x'.repeat(Number(max) + 1024);
    const err = await writeTransaction(db, (trx) => trx('filas').insert({ n: trx.raw('LENGTH(?)', [tooBig]) })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourceExhaustedError);
    expect((err as Error).message).not.toContain('ER_');
    await writeTransaction(db, (trx) => trx('filas').insert({ n: 9 }));
    expect(await count(9)).toBe(1);
  });
});
