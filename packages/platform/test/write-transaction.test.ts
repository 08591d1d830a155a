/**
 * writeTransaction against real MariaDB: the after-commit callback runs once
 * the write is visible to other connections, and never for a rolled-back or
 * failed write; a write whose caller is gone (its signal aborted) rolls
 * back instead of committing; a pool's statement time limit ends a
 * statement stuck on a lock, and the write with it.
 */
import {
  createDb,
  createIdempotencyTable,
  createLogger,
  jsonResultCodec,
  ResourceExhaustedError,
  UnavailableError,
  writeTransaction,
  type Knex,
} from '@inventario/platform';
import { statementLimit } from '../src/db';
import { CallCancelledError } from '../src/grpc/handlers';
import { idempotencyKeyOf } from '../src/idempotency';
import { createTestDatabase, freePort, type TestDatabase } from '@inventario/testkit';

let testDb: TestDatabase;
let db: Knex;

beforeAll(async () => {
  testDb = await createTestDatabase('write_trx');
  db = createDb(testDb.url);
  await db.schema.createTable('filas', (t) => {
    t.integer('n').notNullable();
  });
  await createIdempotencyTable(db);
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
    const result = await writeTransaction(
      db,
      (trx) =>
        trx('filas')
          .insert({ n: 1 })
          .then(() => 'hecho'),
      { onCommitted },
    );
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
      await expect(
        writeTransaction(unreachable, (trx) => trx('filas').insert({ n: 4 }), { onCommitted }),
      ).rejects.toBeInstanceOf(UnavailableError);
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
    const err = await writeTransaction(db, (trx) => trx('filas').insert({ n: trx.raw('LENGTH(?)', [tooBig]) })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ResourceExhaustedError);
    expect((err as Error).message).not.toContain('ER_');
    await writeTransaction(db, (trx) => trx('filas').insert({ n: 9 }));
    expect(await count(9)).toBe(1);
  });
});

describe('writeTransaction with a signal (the caller gone)', () => {
  const idempotency = (requestId: string) => ({
    key: idempotencyKeyOf('ana', 'CrearFila', requestId, Buffer.from('fila')),
    codec: jsonResultCodec(),
    ttlSeconds: 60,
  });
  const keyRows = async () => Number((await db('idempotency_keys').count({ n: '*' }))[0]?.n);

  it('rolls back instead of committing when the signal aborts while the work runs, rejecting with its reason', async () => {
    const gone = new AbortController();
    const onCommitted = jest.fn();
    const reason = new CallCancelledError();
    const keysBefore = await keyRows();
    await expect(
      writeTransaction(
        db,
        async (trx) => {
          await trx('filas').insert({ n: 10 });
          gone.abort(reason);
          await trx('filas').insert({ n: 10 });
          return 'hecho';
        },
        { onCommitted, signal: gone.signal, idempotency: idempotency('abandonada') },
      ),
    ).rejects.toBe(reason);
    expect(onCommitted).not.toHaveBeenCalled();
    expect(await count(10)).toBe(0);
    // No record: a retry with the same key executes.
    expect(await keyRows()).toBe(keysBefore);
    const retried = await writeTransaction(
      db,
      (trx) =>
        trx('filas')
          .insert({ n: 10 })
          .then(() => 'reintento'),
      { idempotency: idempotency('abandonada') },
    );
    expect(retried).toBe('reintento');
    expect(await count(10)).toBe(1);
  });

  it('rolls back a write without a key too', async () => {
    const gone = new AbortController();
    await expect(
      writeTransaction(
        db,
        async (trx) => {
          await trx('filas').insert({ n: 11 });
          gone.abort(new CallCancelledError());
        },
        { signal: gone.signal },
      ),
    ).rejects.toBeInstanceOf(CallCancelledError);
    expect(await count(11)).toBe(0);
  });

  it('does no work at all when the signal aborted before the transaction began', async () => {
    const gone = new AbortController();
    gone.abort(new CallCancelledError());
    const work = jest.fn((trx: Knex.Transaction) => trx('filas').insert({ n: 12 }));
    await expect(writeTransaction(db, work, { signal: gone.signal })).rejects.toBeInstanceOf(CallCancelledError);
    expect(work).not.toHaveBeenCalled();
    expect(await count(12)).toBe(0);
  });

  it('commits as before while the signal stays quiet', async () => {
    const quiet = new AbortController();
    await writeTransaction(db, (trx) => trx('filas').insert({ n: 13 }), { signal: quiet.signal });
    expect(await count(13)).toBe(1);
  });
});

describe('a pool with a statement time limit', () => {
  it('ends a write stuck on a row lock with ResourceExhaustedError (STATEMENT_TIMEOUT: about this request, never UnavailableError), rolled back, and the pool stays usable', async () => {
    const limited = createDb(testDb.url, {
      statementTimeoutMs: 300,
      logger: createLogger('write-transaction-test', 'silent'),
    });
    const holder = await db.transaction();
    try {
      await db('filas').insert({ n: 20 });
      await holder('filas').where({ n: 20 }).forUpdate();
      const stuck = writeTransaction(limited, async (trx) => {
        await trx('filas').insert({ n: 21 });
        await trx('filas').where({ n: 20 }).update({ n: 22 });
      });
      // Without the limit this would wait for innodb_lock_wait_timeout (50 s) and fail as a lock timeout.
      const failure = await stuck.then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(ResourceExhaustedError);
      expect((failure as ResourceExhaustedError).reason).toBe('STATEMENT_TIMEOUT');
      expect((failure as Error & { cause?: { errno?: number } }).cause?.errno).toBe(1969);
    } finally {
      await holder.rollback();
    }
    try {
      expect(await count(21)).toBe(0);
      expect(await count(22)).toBe(0);
      await writeTransaction(limited, (trx) => trx('filas').insert({ n: 23 }));
      expect(await count(23)).toBe(1);
      // A read that runs too long ends too.
      await expect(limited.raw('SELECT SLEEP(2)')).rejects.toMatchObject({ errno: 1969 });
    } finally {
      await limited.destroy();
    }
  });

  it('is set per engine: MariaDB bounds every statement, MySQL bounds reads and lock waits', () => {
    expect(statementLimit('10.11.19-MariaDB-0+deb12u1', 4000)).toEqual(['SET SESSION max_statement_time = 4.000']);
    expect(statementLimit('8.0.36', 4000)).toEqual([
      'SET SESSION max_execution_time = 4000',
      'SET SESSION innodb_lock_wait_timeout = 4',
    ]);
    expect(statementLimit('8.4.0', 300)).toEqual([
      'SET SESSION max_execution_time = 300',
      'SET SESSION innodb_lock_wait_timeout = 1',
    ]);
  });
});
