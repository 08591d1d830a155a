/**
 * Migration 0009 (issue 23) on a database that already holds stock: every
 * existing warehouse gets its exit stripes, empty, so its occupancy is what
 * it was; a warehouse created afterwards (even by SQL) gets them too; the
 * stripes go with their warehouse. Against a real MariaDB, migrating first
 * to 0008 as a database of the previous release is.
 */
import { createDb, type Knex, type Migration } from '@inventario/platform';
import { createTestDatabase, type TestDatabase } from '@inventario/testkit';
import { migrations } from '../src/store/migrations';
import { ocupacionExactaSql, TRAMOS_SALIDAS } from '../src/store/ocupacion';

let testDb: TestDatabase;
let db: Knex;

beforeAll(async () => {
  testDb = await createTestDatabase('bodega_ocupacion_mig');
  db = createDb(testDb.url);
});

afterAll(async () => {
  await db?.destroy();
  await testDb?.drop();
});

/** Runs the `up` of each migration in name order (the runner is internal to platform; these are the migrations it runs). */
async function migrar(cuales: [string, Migration][]): Promise<void> {
  for (const [, migration] of cuales.sort(([a], [b]) => a.localeCompare(b))) await migration.up(db);
}
const todas = Object.entries(migrations);

async function ocupaciones(): Promise<Record<number, number>> {
  const [rows] = (await db.raw(
    `SELECT b.id, ${ocupacionExactaSql('b')} AS ocupacion FROM bodegas b ORDER BY b.id`,
  )) as [{ id: number; ocupacion: string | number }[]];
  return Object.fromEntries(rows.map((r) => [r.id, Number(r.ocupacion)]));
}

const tramosDe = async (bodegaId: number) =>
  (await db('bodega_salidas').where({ bodega_id: bodegaId }).orderBy('tramo').select('tramo', 'unidades')) as unknown[];
const vacios = Array.from({ length: TRAMOS_SALIDAS }, (_, tramo) => ({ tramo, unidades: 0 }));

it('keeps every existing occupancy, gives every warehouse (old, new, inserted by SQL) empty stripes, and drops them with the warehouse', async () => {
  await migrar(todas.filter(([name]) => name < '0009'));
  const at = new Date('2026-11-20T08:00:00Z');
  const fila = (nombre: string, capacidad: number, ocupacion: number) => ({
    nombre,
    capacidad,
    ocupacion,
    fecha_creacion: at,
    fecha_actualizacion: at,
  });
  const [llena] = await db('bodegas').insert(fila('Llena', 30, 30));
  const [vacia] = await db('bodegas').insert(fila('Vacía', 10, 0));

  await migrar(todas.filter(([name]) => name.startsWith('0009')));

  expect(await ocupaciones()).toEqual({ [llena!]: 30, [vacia!]: 0 });
  expect(await tramosDe(llena!)).toEqual(vacios);
  expect(await tramosDe(vacia!)).toEqual(vacios);
  const [nueva] = await db('bodegas').insert(fila('Nueva', 5, 0));
  expect(await tramosDe(nueva!)).toEqual(vacios);

  // Units an exit took out lower the exact occupancy, not the row; the row's CHECK still bounds it.
  await db('bodega_salidas').where({ bodega_id: llena, tramo: 3 }).increment('unidades', 4);
  expect((await ocupaciones())[llena!]).toBe(26);
  await expect(db('bodegas').where({ id: llena }).update({ capacidad: 29 })).rejects.toThrow(/bodegas_ocupacion_check/);

  await db('bodegas').where({ id: llena }).delete();
  expect(await tramosDe(llena!)).toEqual([]);
});
