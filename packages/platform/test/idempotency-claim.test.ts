/**
 * Idempotency keys claimed inside writeTransaction, against real MariaDB,
 * with many transactions at once: unrelated keys never wait on or refuse
 * each other, one key executes once, and a repeat while the first is still
 * in its transaction is refused (then replays once it committed).
 */
import {
  createDb,
  createIdempotencyTable,
  IdempotencyKeyInUseError,
  jsonResultCodec,
  writeTransaction,
  type Knex,
} from '@inventario/platform';
import { idempotencyKeyOf } from '../src/idempotency';
import { createTestDatabase, type TestDatabase } from '@inventario/testkit';

let testDb: TestDatabase;
let db: Knex;
const codec = jsonResultCodec();

beforeAll(async () => {
  testDb = await createTestDatabase('idem_claim');
  db = createDb(testDb.url, { poolMax: 40 });
  await createIdempotencyTable(db);
  await db.schema.createTable('filas', (t) => {
    t.increments('id');
    t.string('clave', 64).notNullable();
  });
});

afterAll(async () => {
  await db.destroy();
  await testDb.drop();
});

/** One keyed write: inserts a row tagged with its key and returns its id, or the recorded id on a replay. */
function keyedInsert(clave: string, request = clave): Promise<{ id: number; replayed: boolean }> {
  const key = idempotencyKeyOf('ana', 'CreateFila', clave, Buffer.from(request))!;
  return writeTransaction(
    db,
    async (trx) => {
      const [id] = await trx('filas').insert({ clave });
      return Number(id);
    },
    { idempotency: { key, codec, ttlSeconds: 60 } },
  ).then((id) => ({ id: id, replayed: key.replayed }));
}

describe('claiming idempotency keys', () => {
  it('40 transactions at once with 40 new keys, on an empty table, 10 rounds: every one executes, none is refused as in use', async () => {
    for (let round = 0; round < 10; round += 1) {
      await db('idempotency_keys').del();
      const claves = Array.from({ length: 40 }, (_, i) => `r${round}-k${i}`);
      const outcomes = await Promise.allSettled(claves.map((clave) => keyedInsert(clave)));
      const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => String(o.reason));
      expect(refused).toEqual([]);
    }
    expect(Number((await db('filas').count({ n: '*' }))[0]?.n)).toBe(400);
  });

  it('20 transactions at once with one key: one row; the others replay it or are refused as in use', async () => {
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => keyedInsert('misma')));
    const executed = outcomes.filter((o) => o.status === 'fulfilled' && !o.value.replayed);
    const replays = outcomes.filter((o) => o.status === 'fulfilled' && o.value.replayed);
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(executed).toHaveLength(1);
    expect(replays.length + refused.length).toBe(19);
    for (const o of refused) expect(o.reason).toBeInstanceOf(IdempotencyKeyInUseError);
    const id = (executed[0] as PromiseFulfilledResult<{ id: number }>).value.id;
    for (const o of replays) expect((o as PromiseFulfilledResult<{ id: number }>).value.id).toBe(id);
    expect(await db('filas').where({ clave: 'misma' }).count({ n: '*' })).toEqual([{ n: 1 }]);
  });

  it('a repeat while the first is held in its transaction is refused at once, then replays once the first committed', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let claimed!: () => void;
    const inWork = new Promise<void>((resolve) => (claimed = resolve));
    const key = idempotencyKeyOf('ana', 'CreateFila', 'retenida', Buffer.from('retenida'))!;
    const first = writeTransaction(
      db,
      async (trx) => {
        const [id] = await trx('filas').insert({ clave: 'retenida' });
        claimed();
        await held;
        return Number(id);
      },
      { idempotency: { key, codec, ttlSeconds: 60 } },
    );
    // The work runs after the claim: the key's row exists, uncommitted.
    await inWork;
    await expect(keyedInsert('retenida')).rejects.toBeInstanceOf(IdempotencyKeyInUseError);
    release();
    const id = await first;
    await expect(keyedInsert('retenida')).resolves.toEqual({ id, replayed: true });
  });
});
