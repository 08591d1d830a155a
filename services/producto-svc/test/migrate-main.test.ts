/**
 * The built migration entry point, as the chart's hook Job runs it:
 * applies every migration to DATABASE_URL and exits 0, idempotently, and
 * refuses a missing DATABASE_URL with one line naming it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createDb } from '@inventario/platform';
import { createTestDatabase, type TestDatabase } from '@inventario/testkit';
import { migrations } from '../src/store/migrations';

const MIGRATE_MAIN = join(__dirname, '..', 'dist', 'migrate-main.js');

function run(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MIGRATE_MAIN], { env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr })));
}

describe('producto-svc migrate-main', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('p_migr');
  });

  afterAll(async () => {
    await database.drop();
  });

  async function appliedMigrations(): Promise<string[]> {
    const db = createDb(database.url);
    try {
      const hasTable = await db.schema.hasTable('productos');
      const rows = (await db('knex_migrations').select('name').orderBy('name')) as { name: string }[];
      return hasTable ? rows.map((r) => r.name) : [];
    } finally {
      await db.destroy();
    }
  }

  it('applies every migration to DATABASE_URL and exits 0, and again when there is nothing to do', async () => {
    const first = await run({ DATABASE_URL: database.url });
    expect(first).toEqual({ code: 0, stderr: '' });
    expect(await appliedMigrations()).toEqual(Object.keys(migrations).sort());

    const second = await run({ DATABASE_URL: database.url });
    expect(second).toEqual({ code: 0, stderr: '' });
    expect(await appliedMigrations()).toEqual(Object.keys(migrations).sort());
  });

  it('exits 1 with one line naming DATABASE_URL when it is missing', async () => {
    const result = await run({});
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^producto-svc migrations: invalid configuration: DATABASE_URL: .+\n$/);
  });
});
