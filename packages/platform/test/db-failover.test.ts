/**
 * Several database hosts and the write retries that make a failover
 * invisible but for a delay, against real MariaDB: a host that refuses
 * connections is left for the next one in DATABASE_URL's list; a write whose
 * connection dies before COMMIT runs again on a new one and lands once (with
 * its idempotency key too); a deadlock victim (how Galera reports a
 * certification failure) is run again. (A read-only host and a Galera node
 * outside the primary component are skipped too: test/faults/galera-cluster.)
 */
import {
  createDb,
  createIdempotencyTable,
  createLogger,
  jsonResultCodec,
  UnavailableError,
  writeTransaction,
  type Knex,
} from '@inventario/platform';
import { idempotencyKeyOf } from '../src/idempotency';
import { createTestDatabase, freePort, TEST_MYSQL_SERVER, type TestDatabase } from '@inventario/testkit';

let testDb: TestDatabase;
let db: Knex;
const quiet = createLogger('db-failover-test', 'silent');

beforeAll(async () => {
  testDb = await createTestDatabase('db_failover');
  db = createDb(testDb.url);
  await db.schema.createTable('filas', (t) => {
    t.increments('id');
    t.string('clave', 64).notNullable();
  });
  await db.schema.createTable('cuentas', (t) => {
    t.integer('id').primary();
    t.integer('saldo').notNullable();
  });
  await db('cuentas').insert([
    { id: 1, saldo: 0 },
    { id: 2, saldo: 0 },
  ]);
  await createIdempotencyTable(db);
});

afterAll(async () => {
  await db.destroy();
  await testDb.drop();
});

/** The test database's URL with `hosts` in place of its one host. */
function withHosts(hosts: string[]): string {
  const url = new URL(testDb.url);
  return `mysql://${url.username || 'root'}${url.password ? `:${url.password}` : ''}@${hosts.join(',')}${url.pathname}`;
}

const realHost = () => new URL(TEST_MYSQL_SERVER).host || '127.0.0.1:3306';

async function rows(clave: string): Promise<number> {
  const [row] = await db('filas').where({ clave }).count({ n: '*' });
  return Number(row?.n);
}

describe('a DATABASE_URL with several hosts', () => {
  it('goes to the next host when the first refuses connections: the write that met the refusal lands there, once', async () => {
    const dead = `127.0.0.1:${await freePort()}`;
    const pool = createDb(withHosts([dead, realHost()]), {
      connectTimeoutMs: 500,
      acquireTimeoutMs: 2000,
      logger: quiet,
    });
    try {
      const onCommitted = jest.fn();
      await writeTransaction(pool, (trx) => trx('filas').insert({ clave: 'tras-caida' }), { onCommitted });
      expect(onCommitted).toHaveBeenCalledTimes(1);
      expect(await rows('tras-caida')).toBe(1);
      // Later connections go straight to the host that works.
      await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          writeTransaction(pool, (trx) => trx('filas').insert({ clave: `despues-${i}` })),
        ),
      );
      for (let i = 0; i < 5; i++) expect(await rows(`despues-${i}`)).toBe(1);
    } finally {
      await pool.destroy();
    }
  });

  it('is UnavailableError when no host answers, having written nothing', async () => {
    const pool = createDb(withHosts([`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`]), {
      connectTimeoutMs: 500,
      acquireTimeoutMs: 1000,
      logger: quiet,
    });
    try {
      await expect(writeTransaction(pool, (trx) => trx('filas').insert({ clave: 'ninguno' }))).rejects.toBeInstanceOf(
        UnavailableError,
      );
      expect(await rows('ninguno')).toBe(0);
    } finally {
      await pool.destroy();
    }
  });

  it('passes over several hosts that refuse, in list order, to the one that answers', async () => {
    const pool = createDb(withHosts([`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`, realHost()]), {
      connectTimeoutMs: 500,
      acquireTimeoutMs: 3000,
      logger: quiet,
    });
    try {
      await writeTransaction(pool, (trx) => trx('filas').insert({ clave: 'tercero' }));
      expect(await rows('tercero')).toBe(1);
    } finally {
      await pool.destroy();
    }
  });
});

describe('writes retried after a failure that wrote nothing', () => {
  it('runs a write again on a new connection when its connection is killed before COMMIT: one row', async () => {
    let attempts = 0;
    await writeTransaction(db, async (trx) => {
      attempts++;
      await trx('filas').insert({ clave: 'conexion-muerta' });
      if (attempts === 1) {
        const [[{ id }]] = (await trx.raw('SELECT CONNECTION_ID() AS id')) as [[{ id: number }]];
        await db.raw('KILL CONNECTION ?', [id]);
        await trx.raw('SELECT 1');
      }
    });
    expect(attempts).toBe(2);
    expect(await rows('conexion-muerta')).toBe(1);
  });

  it('runs it again too when the loss is noticed only at the next statement (mysql2: "closed state", no code)', async () => {
    let attempts = 0;
    await writeTransaction(db, async (trx) => {
      attempts++;
      await trx('filas').insert({ clave: 'conexion-cerrada' });
      if (attempts === 1) {
        const [[{ id }]] = (await trx.raw('SELECT CONNECTION_ID() AS id')) as [[{ id: number }]];
        await db.raw('KILL CONNECTION ?', [id]);
        // Let the client see the connection end before the next statement is sent.
        await new Promise((resolve) => setTimeout(resolve, 500));
        await trx.raw('SELECT 1');
      }
    });
    expect(attempts).toBe(2);
    expect(await rows('conexion-cerrada')).toBe(1);
  });

  it('a keyed write whose connection dies is run again under its key and recorded once; a repeat replays it', async () => {
    const codec = jsonResultCodec();
    const keyOf = () => idempotencyKeyOf('ana', 'CreateFila', 'k-muerta', Buffer.from('k-muerta'))!;
    let attempts = 0;
    const work = async (trx: Knex.Transaction) => {
      attempts++;
      const [id] = await trx('filas').insert({ clave: 'clave-muerta' });
      if (attempts === 1) {
        const [[{ cid }]] = (await trx.raw('SELECT CONNECTION_ID() AS cid')) as [[{ cid: number }]];
        await db.raw('KILL CONNECTION ?', [cid]);
        await trx.raw('SELECT 1');
      }
      return Number(id);
    };
    const first = keyOf();
    const id = await writeTransaction(db, work, { idempotency: { key: first, codec, ttlSeconds: 60 } });
    expect(first.replayed).toBeFalsy();
    const repeat = keyOf();
    expect(await writeTransaction(db, work, { idempotency: { key: repeat, codec, ttlSeconds: 60 } })).toBe(id);
    expect(repeat.replayed).toBe(true);
    expect(attempts).toBe(2);
    expect(await rows('clave-muerta')).toBe(1);
  });

  it('runs a deadlock victim again (Galera reports a certification failure the same way): both writes land, nothing twice', async () => {
    let bothLocked!: () => void;
    let locked = 0;
    const gate = new Promise<void>((resolve) => (bothLocked = resolve));
    let runs = 0;
    const transfer = (from: number, to: number) =>
      writeTransaction(db, async (trx) => {
        runs++;
        await trx('cuentas').where({ id: from }).decrement('saldo', 1);
        if (++locked === 2) bothLocked();
        await Promise.race([gate, new Promise((resolve) => setTimeout(resolve, 2000))]);
        await trx('cuentas').where({ id: to }).increment('saldo', 1);
      });
    await Promise.all([transfer(1, 2), transfer(2, 1)]);
    expect(runs).toBe(3);
    expect(await db('cuentas').orderBy('id').select('id', 'saldo')).toEqual([
      { id: 1, saldo: 0 },
      { id: 2, saldo: 0 },
    ]);
  });
});
