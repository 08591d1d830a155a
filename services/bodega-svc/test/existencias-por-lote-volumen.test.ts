/**
 * ListExistenciasPorLote at its cap (docs/contract.md: "at most 1,000 ids"), against the real service over gRPC
 * on real MariaDB. 1,001 warehouses, 1,001 products and their levels are written by SQL in a few multi-row
 * inserts, not through the API, so the volume costs seconds. 1,000 parent ids, of either kind, are answered
 * whole: every level of those parents exactly once, in (warehouse, product) order, each with its own fields and
 * each parent with as many levels as SQL counts; 1,001 are INVALID_ARGUMENT naming the list, writing nothing.
 */
import { status } from '@grpc/grpc-js';
import { fieldViolationsOf, ID_MENSAJES } from '@inventario/platform';
import type { Existencia, ListExistenciasPorLoteRequest } from '@inventario/proto';
import { asUser, grpcError, startTestService, type TestService } from './support/test-service';

const ANA = asUser('ana');
/** The contract's cap on a batch's parent ids. */
const CAP = 1_000;
const PRIMER_PRODUCTO = 80_001;

interface Nivel {
  bodegaId: number;
  productoId: number;
  umbralMinimo: number | null;
}

let svc: TestService;
/** CAP + 1 of each, in id order: the last is the one too many. */
let bodegas: number[];
let productos: number[];
/** Every level written, in (warehouse, product) order. */
let niveles: Nivel[];

beforeAll(async () => {
  svc = await startTestService('bodega_lote_volumen');
  const ahora = new Date();
  await svc.db('bodegas').insert(
    Array.from({ length: CAP + 1 }, (_, i) => ({
      nombre: `Volumen ${i}`,
      capacidad: 1000,
      fecha_creacion: ahora,
      fecha_actualizacion: ahora,
    })),
  );
  bodegas = (await svc.db('bodegas').where('nombre', 'like', 'Volumen %').orderBy('id').pluck('id')) as number[];
  productos = Array.from({ length: CAP + 1 }, (_, i) => PRIMER_PRODUCTO + i);
  // An uneven spread: product i in i % 5 warehouses (none for every fifth), 7 apart, so warehouses' counts differ
  // too. The one warehouse and the one product too many hold levels with the first three of the other kind: a
  // batch of the first 1,000 must leave out the extra parent's levels, and answer those of its own parents there.
  const pares: [number, number][] = [];
  for (let i = 0; i < CAP; i++) {
    for (let k = 0; k < i % 5; k++) pares.push([(i + 7 * k) % CAP, i]);
  }
  for (let j = 0; j < 3; j++) pares.push([CAP, j], [j, CAP]);
  niveles = pares
    .map(([b, p]) => ({
      bodegaId: bodegas[b]!,
      productoId: productos[p]!,
      umbralMinimo: (b + p) % 4 === 0 ? null : (b * 13 + p) % 50,
    }))
    .sort((x, y) => x.bodegaId - y.bodegaId || x.productoId - y.productoId);
  // No units, so no ledger line is owed and no occupancy changes: the store stays consistent without the API.
  const rows = niveles.map((n) => ({
    bodega_id: n.bodegaId,
    producto_id: n.productoId,
    cantidad: 0,
    umbral_minimo: n.umbralMinimo,
    version: 1,
    fecha_creacion: ahora,
    fecha_actualizacion: ahora,
  }));
  for (let i = 0; i < rows.length; i += 1000) await svc.db('existencias').insert(rows.slice(i, i + 1000));
}, 60_000);

afterAll(async () => {
  await svc?.close();
});

/** Every page of the request, followed by its token; each page at most `pageSize` long. */
async function todas(request: Partial<ListExistenciasPorLoteRequest>): Promise<Existencia[]> {
  const out: Existencia[] = [];
  let pageToken = '';
  do {
    const page = await svc.stock.listExistenciasPorLote(
      { bodegaIds: [], productoIds: [], perParent: 0, pageSize: 0, ...request, pageToken },
      ANA,
    );
    expect(page.existencias.length).toBeLessThanOrEqual(request.pageSize || 100);
    out.push(...page.existencias);
    pageToken = page.nextPageToken;
  } while (pageToken !== '');
  return out;
}

/** SQL's count of each parent's levels, the unlocated one aside. */
async function contarEnSql(parent: 'bodega_id' | 'producto_id', ids: number[]): Promise<Map<number, number>> {
  const rows: { id: number; n: number | string }[] = await svc
    .db('existencias')
    .whereIn(parent, ids)
    .where('bodega_id', '<>', 0)
    .groupBy(parent)
    .select({ id: parent })
    .count({ n: '*' });
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}

function contarRespuesta(existencias: Existencia[], parentOf: (e: Existencia) => number): Map<number, number> {
  const counts = new Map<number, number>();
  for (const e of existencias) counts.set(parentOf(e), (counts.get(parentOf(e)) ?? 0) + 1);
  return counts;
}

/** The answer, level by level, with the fields that were written; each level once. */
function expectLevels(existencias: Existencia[], expected: Nivel[]): void {
  expect(existencias.map((e) => ({ ...e, umbralMinimo: e.umbralMinimo ?? null }))).toEqual(
    expected.map((n) => expect.objectContaining({ ...n, cantidad: 0 }) as unknown),
  );
}

/** Each kind of parent: its list in the request, its id in a level, its column. */
const PADRES = {
  productoIds: { ids: () => productos, de: (n: Nivel | Existencia) => n.productoId, columna: 'producto_id' },
  bodegaIds: { ids: () => bodegas, de: (n: Nivel | Existencia) => n.bodegaId, columna: 'bodega_id' },
} as const;

test.each([
  ['productoIds', 0],
  ['productoIds', 1000],
  ['bodegaIds', 0],
  ['bodegaIds', 1000],
] as const)('1,000 %s, page_size %i: every level once, as many per parent as SQL counts', async (lista, pageSize) => {
  const { de, columna } = PADRES[lista];
  const ids = PADRES[lista].ids().slice(0, CAP);
  const existencias = await todas({ [lista]: ids, pageSize });
  expectLevels(
    existencias,
    niveles.filter((n) => ids.includes(de(n))),
  );
  // The volume is real: two thousand levels and more, over many pages at the default size.
  expect(existencias.length).toBeGreaterThan(2 * CAP);
  expect(contarRespuesta(existencias, de)).toEqual(await contarEnSql(columna, ids));
});

test('1,000 product ids with per_parent and after_id: of each product, its first levels past after_id', async () => {
  const ids = productos.slice(0, CAP);
  const afterId = bodegas[3]!;
  const existencias = await todas({ productoIds: ids, perParent: 2, afterId, pageSize: 250 });
  // In (warehouse, product) order, a product's levels come by warehouse: its first two past afterId are kept.
  const held = new Map<number, number>();
  const expected = niveles.filter((n) => {
    if (!ids.includes(n.productoId) || n.bodegaId <= afterId) return false;
    held.set(n.productoId, (held.get(n.productoId) ?? 0) + 1);
    return held.get(n.productoId)! <= 2;
  });
  expectLevels(existencias, expected);
});

/** Every table's content checksum: equal before and after, nothing was written. */
async function checksums(): Promise<unknown> {
  const [tables] = (await svc.db.raw('SHOW TABLES')) as [Record<string, string>[]];
  const names = tables.map((row) => `\`${Object.values(row)[0]!}\``);
  return ((await svc.db.raw(`CHECKSUM TABLE ${names.join(', ')}`)) as [unknown])[0];
}

test.each(['bodegaIds', 'productoIds'] as const)(
  '1,001 %s are INVALID_ARGUMENT naming the list, writing nothing',
  async (campo) => {
    const ids = PADRES[campo].ids();
    expect(new Set(ids).size).toBe(CAP + 1);
    const before = { checksums: await checksums(), outbox: await svc.outboxCount() };
    const err = await grpcError(
      svc.stock.listExistenciasPorLote(
        { bodegaIds: [], productoIds: [], perParent: 0, pageSize: 0, pageToken: '', [campo]: ids },
        ANA,
      ),
    );
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(fieldViolationsOf(err)).toEqual([{ campo, mensaje: ID_MENSAJES.demasiados }]);
    expect({ checksums: await checksums(), outbox: await svc.outboxCount() }).toEqual(before);
  },
);
