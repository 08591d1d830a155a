/**
 * What a test's stack has written so far: the row count of every table of
 * both services' databases (outbox included, so a write's pending event
 * counts at once) and the number of messages in the test's stream. Two
 * equal snapshots around a rejected request prove it wrote nothing and
 * published nothing.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { countPendingEvents, createDb, type Knex } from '@inventario/platform';
import { waitFor } from '@inventario/testkit';
import type { TestStack } from './stack';

export interface WriteSnapshot {
  /** `<service>.<table>` -> rows. */
  rows: Record<string, number>;
  /** Messages in the test's stream. */
  events: number;
}

export interface WriteProbe {
  snapshot(): Promise<WriteSnapshot>;
  /** Waits until both outboxes are published, then snapshots (after an accepted write). */
  settledSnapshot(): Promise<WriteSnapshot>;
  close(): Promise<void>;
}

export async function createWriteProbe(stack: TestStack): Promise<WriteProbe> {
  const pools: [string, Knex][] = [
    ['producto', createDb(stack.databaseUrls.producto)],
    ['bodega', createDb(stack.databaseUrls.bodega)],
  ];
  const jsm = await jetstreamManager(stack.nc);
  // One query per database: every table's COUNT(*) in one statement.
  const countQueries = new Map<Knex, string>();
  for (const [, db] of pools) {
    const tables = ((await db.raw('SHOW TABLES')) as [Record<string, string>[]])[0].map((row) => Object.values(row)[0]!);
    countQueries.set(db, tables.map((t) => `SELECT '${t}' AS t, COUNT(*) AS n FROM \`${t}\``).join(' UNION ALL '));
  }

  async function snapshot(): Promise<WriteSnapshot> {
    const rows: Record<string, number> = {};
    for (const [service, db] of pools) {
      const [result] = (await db.raw(countQueries.get(db)!)) as [{ t: string; n: number | string }[]];
      for (const { t, n } of result) rows[`${service}.${t}`] = Number(n);
    }
    const info = await jsm.streams.info(stack.namespace.stream);
    return { rows, events: info.state.messages };
  }

  return {
    snapshot,
    async settledSnapshot() {
      await waitFor(
        async () => {
          for (const [, db] of pools) if ((await countPendingEvents(db)) > 0) return false;
          return true;
        },
        'both outbox relays to publish every event',
        30_000,
        // Polled after every accepted write: a short interval keeps the fuzz suites quick.
        5,
      );
      return snapshot();
    },
    async close() {
      for (const [, db] of pools) await db.destroy();
    },
  };
}
