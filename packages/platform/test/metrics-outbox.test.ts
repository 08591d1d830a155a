/**
 * The outbox sampler's query (pendingOutboxSummary) on real MariaDB, with a
 * large backlog beside many retained published rows, as during a long NATS
 * outage: the right numbers, and every statement it runs reads the pending
 * index, never the whole table (one MIN(created_at) over the pending rows
 * is planned as a full scan here).
 */
import { createDb, createOutboxTables, type Knex } from '@inventario/platform';
import { pendingOutboxSummary } from '../src/outbox';
import { createTestDatabase, type TestDatabase } from '@inventario/testkit';

const PUBLISHED = 40_000;
const PENDING = 40_000;
const CHUNK = 5000;

let testDb: TestDatabase;
let db: Knex;

beforeAll(async () => {
  testDb = await createTestDatabase('outbox_summary');
  db = createDb(testDb.url);
  await createOutboxTables(db);
  const row = (n: number, published: boolean) => ({
    event_id: `${published ? 'p' : 'q'}-${n}`,
    subject: 'inventario.producto.creado',
    payload: '{}',
    // The first pending row (lowest id) is the oldest: an hour old.
    created_at: published
      ? db.raw('CURRENT_TIMESTAMP(3) - INTERVAL 2 DAY')
      : db.raw(`CURRENT_TIMESTAMP(3) - INTERVAL ${n === 0 ? 3600 : 60} SECOND`),
    published_at: published ? db.raw('CURRENT_TIMESTAMP(3) - INTERVAL 1 DAY') : null,
  });
  for (const [count, published] of [
    [PUBLISHED, true],
    [PENDING, false],
  ] as const) {
    for (let start = 0; start < count; start += CHUNK) {
      await db('outbox').insert(
        Array.from({ length: Math.min(CHUNK, count - start) }, (_, i) => row(start + i, published)),
      );
    }
  }
  await db.raw('ANALYZE TABLE outbox');
}, 120_000);

afterAll(async () => {
  await db?.destroy();
  await testDb?.drop();
});

test('counts the pending rows and the age of the oldest, reading only the pending index', async () => {
  const statements: { sql: string; bindings: unknown[] }[] = [];
  const record = (query: { sql: string; bindings?: unknown[] }) =>
    statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
  db.on('query', record);
  let summary: Awaited<ReturnType<typeof pendingOutboxSummary>>;
  try {
    summary = await pendingOutboxSummary(db);
  } finally {
    db.off('query', record);
  }
  expect(summary.pending).toBe(PENDING);
  expect(summary.oldestAgeSeconds).toBeGreaterThanOrEqual(3600);
  expect(summary.oldestAgeSeconds).toBeLessThan(3700);

  expect(statements.length).toBeGreaterThan(0);
  for (const { sql, bindings } of statements) {
    const [plan] = (await db.raw(`EXPLAIN ${sql}`, bindings as Knex.RawBinding[])) as [
      Array<{ table: string; type: string; key: string | null }>,
    ];
    expect(plan.map(({ table, type, key }) => ({ sql, table, full: type === 'ALL', key }))).toEqual([
      { sql, table: 'outbox', full: false, key: 'outbox_pending_idx' },
    ]);
  }
});

test('answers 0 and 0 when nothing is pending', async () => {
  await db('outbox')
    .whereNull('published_at')
    .update({ published_at: db.raw('CURRENT_TIMESTAMP(3)') });
  expect(await pendingOutboxSummary(db)).toEqual({ pending: 0, oldestAgeSeconds: 0 });
});
