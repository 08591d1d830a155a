/**
 * A service's record of what it deleted (deletion-record.ts, issue 21 item
 * 8): on the real MariaDB, "deleted" only for an id that existed and is
 * gone, whatever deleted it; never for a live id or one not created yet.
 */
import { createDb, createDeletionRecord, wasDeleted, type Knex } from '@inventario/platform';
import { createTestDatabase, type TestDatabase } from '@inventario/testkit';

let database: TestDatabase;
let db: Knex;

beforeAll(async () => {
  database = await createTestDatabase('deletion_record');
  db = createDb(database.url, { poolMax: 2 });
  await db.schema.createTable('cosas', (t) => {
    t.engine('InnoDB');
    t.increments('id');
    t.string('nombre', 50).notNullable();
  });
  // Three rows before the record exists; the second is deleted then, leaving no trace but its absence.
  await db('cosas').insert([{ nombre: 'a' }, { nombre: 'b' }, { nombre: 'c' }]);
  await db('cosas').where({ id: 2 }).del();
  await createDeletionRecord(db, 'cosas');
});

afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

it('says deleted for an id deleted before the record existed, up to the largest id then stored', async () => {
  expect(await wasDeleted(db, 'cosas', 2)).toBe(true);
  expect(await wasDeleted(db, 'cosas', 1)).toBe(false);
  expect(await wasDeleted(db, 'cosas', 3)).toBe(false);
});

it('says deleted for an id deleted since, by any statement (the trigger records it), and never for one not created yet', async () => {
  const id = Number((await db('cosas').insert({ nombre: 'd' }))[0]);
  const next = id + 1;
  expect(await wasDeleted(db, 'cosas', id)).toBe(false);
  expect(await wasDeleted(db, 'cosas', next)).toBe(false);

  await db.raw('DELETE FROM cosas WHERE id = ?', [id]);
  expect(await wasDeleted(db, 'cosas', id)).toBe(true);
  // Still not the next one, which no row ever had.
  expect(await wasDeleted(db, 'cosas', next)).toBe(false);
  // A rolled-back deletion leaves no record.
  const [kept] = await db('cosas').insert({ nombre: 'e' });
  await db
    .transaction(async (trx) => {
      await trx('cosas').where({ id: kept }).del();
      await trx.rollback();
    })
    .catch(() => undefined);
  expect(await wasDeleted(db, 'cosas', Number(kept))).toBe(false);
});
