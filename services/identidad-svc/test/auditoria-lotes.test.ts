/**
 * A batch of audit appends on real MariaDB: with a pool that takes several statements in one query
 * (`sentenciasJuntas`, as app.ts builds it) the same four statements go in two round trips instead of four, the same
 * rows are written and refused, and the chain continues across batches written either way.
 */
import { createDb, runMigrationJob, type Knex } from '@inventario/platform';
import { createTestDatabase, type TestDatabase } from '@inventario/testkit';
import type { Hecho } from '../src/domain/auditoria';
import { createAuditoriaStore, type AuditoriaStore } from '../src/store/auditoria-store';
import { migrations } from '../src/store/migrations';

let testDb: TestDatabase;
let juntas: Knex;
let sueltas: Knex;

beforeAll(async () => {
  testDb = await createTestDatabase('aud_lotes');
  expect(await runMigrationJob('identidad-svc', migrations, { DATABASE_URL: testDb.url, LOG_LEVEL: 'silent' })).toBe(0);
  juntas = createDb(testDb.url, { multipleStatements: true });
  sueltas = createDb(testDb.url);
});

afterAll(async () => {
  await juntas.destroy();
  await sueltas.destroy();
  await testDb.drop();
});

const hecho = (eventoId: string, n: number): Hecho => ({
  eventoId,
  accion: 'MovimientoRegistrado',
  recurso: `/operaciones/${n}`,
  principalId: 1,
  usuario: 'ana',
  metodoAuth: 'basic',
  tokenId: null,
  requestId: `req-${n}`,
  direccion: '',
  datos: JSON.stringify({ operacionId: n, comentario: 'a ; b ? c' }),
  ocurridoEn: new Date(Date.UTC(2026, 10, 30, 10, 0, 0, n)),
});

/** Round trips (knex `query` events, BEGIN and COMMIT included) and answers of one batch. */
async function lote(db: Knex, store: AuditoriaStore, hechos: Hecho[]): Promise<{ idas: number; escritos: boolean[] }> {
  let idas = 0;
  const contar = () => {
    idas += 1;
  };
  db.on('query', contar);
  try {
    return { escritos: await store.anexarVarios(hechos), idas };
  } finally {
    db.off('query', contar);
  }
}

it('sends a batch in two round trips with several statements per query, writing and refusing as one by one', async () => {
  const enLote = createAuditoriaStore(juntas, { sentenciasJuntas: true });
  const porSentencia = createAuditoriaStore(sueltas, {});
  await porSentencia.anexar(hecho('ya-escrito', 1));

  const a = await lote(juntas, enLote, [
    hecho('l1-a', 2),
    hecho('ya-escrito', 1),
    hecho('l1-b', 3),
    hecho('l1-a', 2),
    hecho('l1-c', 4),
  ]);
  expect(a).toEqual({ idas: 4, escritos: [true, false, true, false, true] });

  const b = await lote(sueltas, porSentencia, [hecho('l2-a', 5), hecho('l1-b', 3), hecho('l2-b', 6)]);
  expect(b).toEqual({ idas: 6, escritos: [true, false, true] });

  const c = await lote(juntas, enLote, [hecho('l1-c', 4)]);
  expect(c).toEqual({ idas: 3, escritos: [false] });

  const filas = await sueltas<{ seq: number; evento_id: string; datos: string }>('auditoria')
    .orderBy('seq')
    .select('seq', 'evento_id', 'datos');
  expect(filas.map((f) => [f.seq, f.evento_id])).toEqual([
    [1, 'ya-escrito'],
    [2, 'l1-a'],
    [3, 'l1-b'],
    [4, 'l1-c'],
    [5, 'l2-a'],
    [6, 'l2-b'],
  ]);
  expect(JSON.parse(filas[1]!.datos)).toEqual({ operacionId: 2, comentario: 'a ; b ? c' });
  expect(await enLote.verificar(undefined)).toEqual({ consistente: true, filas: 6, rotura: undefined });
});
