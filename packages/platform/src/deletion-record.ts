import type { Knex } from './db';

/**
 * What a service deleted of its own records (docs/contract.md §7.6): the
 * owner's answer to "was record N deleted?", which tells a deletion apart
 * from an id never created. The other service's reconciliation acts on a
 * deletion event only with that answer, so a forged BodegaEliminada or
 * ProductoEliminado for the next id cannot mark a record that does not
 * exist yet as deleted (issue 21 item 8).
 *
 * A trigger writes the record in the deleting statement itself, whatever
 * code runs it (an older replica during a rolling upgrade, a chunked forced
 * delete, a maintenance DELETE). Deletions before the table existed left no
 * record: an id up to the largest one stored at that moment that is no
 * longer there counts as deleted (a few of those ids were never committed,
 * a rolled-back insert's; they are never assigned again, so calling them
 * deleted harms nothing). Ids are AUTO_INCREMENT and never reused.
 */

/** This service's deletions of its own records: one row per deleted id. */
export const DELETIONS_TABLE = 'eliminaciones';
/** One row: the largest id when DELETIONS_TABLE was created. */
const BEFORE_TABLE = 'eliminaciones_previas';

/** The migration: the table, the trigger on `recordsTable` that fills it, and the mark for earlier deletions. */
export async function createDeletionRecord(db: Knex, recordsTable: string): Promise<void> {
  await db.schema.createTable(DELETIONS_TABLE, (t) => {
    t.engine('InnoDB');
    t.integer('id').unsigned().primary();
    t.dateTime('eliminado_en', { precision: 3 }).notNullable().defaultTo(db.raw('CURRENT_TIMESTAMP(3)'));
  });
  await db.schema.createTable(BEFORE_TABLE, (t) => {
    t.engine('InnoDB');
    t.integer('hasta_id').unsigned().notNullable();
  });
  await db.raw(`INSERT INTO ${BEFORE_TABLE} (hasta_id) SELECT COALESCE(MAX(id), 0) FROM ??`, [recordsTable]);
  await db.raw(
    `CREATE TRIGGER ${recordsTable}_eliminacion AFTER DELETE ON ${recordsTable} FOR EACH ROW INSERT IGNORE ` +
      `INTO ${DELETIONS_TABLE} (id) VALUES (OLD.id)`,
  );
}

export async function dropDeletionRecord(db: Knex, recordsTable: string): Promise<void> {
  await db.raw(`DROP TRIGGER IF EXISTS ${recordsTable}_eliminacion`);
  await db.schema.dropTableIfExists(BEFORE_TABLE);
  await db.schema.dropTableIfExists(DELETIONS_TABLE);
}

/** Whether this service deleted record `id` of `recordsTable`: false for a live record and for one never created. */
export async function wasDeleted(db: Knex, recordsTable: string, id: number): Promise<boolean> {
  const [rows] = (await db.raw(
    `SELECT EXISTS (SELECT 1 FROM ${DELETIONS_TABLE} WHERE id = ?)
        OR (? <= (SELECT hasta_id FROM ${BEFORE_TABLE}) AND NOT EXISTS (SELECT 1 FROM ?? WHERE id = ?)) AS deleted`,
    [id, id, recordsTable, id],
  )) as [{ deleted: number | string }[]];
  return Number(rows[0]?.deleted) === 1;
}
