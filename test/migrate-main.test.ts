/**
 * The built migration entry point of each gRPC service, as the chart's hook
 * Job runs it: applies every migration to DATABASE_URL and exits 0,
 * idempotently, and refuses a missing DATABASE_URL with one line naming it.
 */
import { createDb, type Migration } from '@inventario/platform';
import { createTestDatabase, runCommand, serviceMain, type ServiceName, type TestDatabase } from '@inventario/testkit';
import { migrations as productoMigrations } from '../services/producto-svc/src/store/migrations';
import { migrations as bodegaMigrations } from '../services/bodega-svc/src/store/migrations';

interface MigratedService {
  service: ServiceName;
  /** createTestDatabase label. */
  label: string;
  /** A table the migrations create: knex_migrations alone does not prove they ran. */
  table: string;
  migrations: Record<string, Migration>;
}

const SERVICES: MigratedService[] = [
  { service: 'producto-svc', label: 'p_migr', table: 'productos', migrations: productoMigrations },
  { service: 'bodega-svc', label: 'b_migr', table: 'bodegas', migrations: bodegaMigrations },
];

async function run(service: ServiceName, env: Record<string, string>) {
  const { code, stderr } = await runCommand(service, [serviceMain(service, 'migrate-main.js')], env);
  return { code, stderr };
}

describe.each(SERVICES)('$service migrate-main', ({ service, label, table, migrations }) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(label);
  });

  afterAll(async () => {
    await database.drop();
  });

  async function appliedMigrations(): Promise<string[]> {
    const db = createDb(database.url);
    try {
      const hasTable = await db.schema.hasTable(table);
      const rows = (await db('knex_migrations').select('name').orderBy('name')) as { name: string }[];
      return hasTable ? rows.map((r) => r.name) : [];
    } finally {
      await db.destroy();
    }
  }

  it('applies every migration to DATABASE_URL and exits 0, and again when there is nothing to do', async () => {
    const first = await run(service, { DATABASE_URL: database.url });
    expect(first).toEqual({ code: 0, stderr: '' });
    expect(await appliedMigrations()).toEqual(Object.keys(migrations).sort());

    const second = await run(service, { DATABASE_URL: database.url });
    expect(second).toEqual({ code: 0, stderr: '' });
    expect(await appliedMigrations()).toEqual(Object.keys(migrations).sort());
  });

  it('exits 1 with one line naming DATABASE_URL when it is missing', async () => {
    const result = await run(service, {});
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^${service} migrations: invalid configuration: DATABASE_URL: .+\\n$`));
  });
});
