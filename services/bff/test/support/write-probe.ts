/**
 * What a test's stack has written so far: the row count and the content
 * checksum (CHECKSUM TABLE) of every table of both services' databases
 * (outbox included, so a write's pending event counts at once, and an
 * UPDATE that adds no row still changes a checksum) and the number of
 * messages in the test's stream. Two equal snapshots around a rejected
 * request prove it wrote nothing and published nothing.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { createDb, type Knex } from '@inventario/platform';
import { waitFor, waitForOutboxesDrained } from '@inventario/testkit';
import { PRODUCTO_ELIMINADO_CONSUMER } from '../../../bodega-svc/src/events/producto-eliminado-consumer';
import { BODEGA_ELIMINADA_CONSUMER } from '../../../producto-svc/src/events/bodega-eliminada-consumer';
import type { TestStack } from './stack';

export interface WriteSnapshot {
  /** `<service>.<table>` -> rows. */
  rows: Record<string, number>;
  /** `<service>.<table>` -> CHECKSUM TABLE of its content. */
  checksums: Record<string, string>;
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
  // Two statements per database: every table's COUNT(*), and every table's CHECKSUM.
  const queries = new Map<Knex, { count: string; checksum: string }>();
  for (const [, db] of pools) {
    const tables = ((await db.raw('SHOW TABLES')) as [Record<string, string>[]])[0].map(
      (row) => Object.values(row)[0]!,
    );
    queries.set(db, {
      count: tables.map((t) => `SELECT '${t}' AS t, COUNT(*) AS n FROM \`${t}\``).join(' UNION ALL '),
      checksum: `CHECKSUM TABLE ${tables.map((t) => `\`${t}\``).join(', ')}`,
    });
  }

  async function snapshot(): Promise<WriteSnapshot> {
    const rows: Record<string, number> = {};
    const checksums: Record<string, string> = {};
    for (const [service, db] of pools) {
      const { count, checksum } = queries.get(db)!;
      const [counted] = (await db.raw(count)) as [{ t: string; n: number | string }[]];
      for (const { t, n } of counted) rows[`${service}.${t}`] = Number(n);
      // `Table` is `<database>.<table>`.
      const [summed] = (await db.raw(checksum)) as [{ Table: string; Checksum: number | string | null }[]];
      for (const { Table, Checksum } of summed)
        checksums[`${service}.${Table.slice(Table.indexOf('.') + 1)}`] = String(Checksum);
    }
    const info = await jsm.streams.info(stack.namespace.stream);
    return { rows, checksums, events: info.state.messages };
  }

  return {
    snapshot,
    async settledSnapshot() {
      const drained = () =>
        waitForOutboxesDrained(
          pools.map(([, db]) => db),
          'both outbox relays to publish every event',
          30_000,
          // Polled after every accepted write: a short interval keeps the fuzz suites quick.
          5,
        );
      await drained();
      // Each service's reconciliation writes after a delete of the other's record (it records
      // the deleted id; bodega-svc also writes the product's stock out, with its events):
      // settled means both have handled every deletion published so far, and published what that wrote.
      for (const durable of [BODEGA_ELIMINADA_CONSUMER, PRODUCTO_ELIMINADO_CONSUMER]) {
        await waitFor(
          async () => {
            const consumer = await jsm.consumers.info(stack.namespace.stream, durable).catch(() => undefined);
            return consumer === undefined || (consumer.num_pending === 0 && consumer.num_ack_pending === 0)
              ? true
              : undefined;
          },
          `${durable} to reconcile every deletion`,
          30_000,
          5,
        );
      }
      await drained();
      return snapshot();
    },
    async close() {
      for (const [, db] of pools) await db.destroy();
    },
  };
}
