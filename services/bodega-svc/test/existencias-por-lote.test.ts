/**
 * ListExistenciasPorLote (issue 23: the BFF paged ListExistencias per parent itself) on real MariaDB:
 * each parent of a batch gets exactly its own page, as if read alone, counted in SQL with
 * ROW_NUMBER, whatever the batch, `after_id`, the page size and where the pages end; a scoped caller
 * sees only its warehouses' levels, counted among themselves; bad requests are INVALID_ARGUMENT.
 */
import { status } from '@grpc/grpc-js';
import fc from 'fast-check';
import { fieldViolationsOf } from '@inventario/platform';
import type { ListExistenciasPorLoteRequest } from '@inventario/proto';
import { createExistenciaEvents } from '../src/events/existencia-events';
import { createExistenciaStore, type ExistenciaStore } from '../src/store/existencia-store';
import { asUser, grpcError, startTestService, type TestService } from './support/test-service';

const ANA = asUser('ana');
let svc: TestService;
let store: ExistenciaStore;
let bodegas: number[];
/** Every level of the warehouses made here, as `${bodegaId}.${productoId}`, in (warehouse, product) order. */
let niveles: { bodegaId: number; productoId: number }[];

const PRODUCTOS = Array.from({ length: 10 }, (_, i) => 9001 + i);

beforeAll(async () => {
  svc = await startTestService('bodega_por_lote');
  store = createExistenciaStore(svc.db, {
    events: createExistenciaEvents({ namespace: 'Service', subjectPrefix: svc.ns.prefix }),
    idempotencyTtlSeconds: 3600,
    productos: { isLive: () => Promise.resolve(true) },
  });
  bodegas = [];
  for (let i = 0; i < 6; i++) {
    bodegas.push((await svc.rpc.createBodega({ nombre: `Lote ${i}`, capacidad: 1000 })).bodega!.id);
  }
  // A fixed, uneven spread: warehouse i holds the products whose index is not a multiple of i + 2, plus its own.
  niveles = [];
  for (const [i, bodegaId] of bodegas.entries()) {
    for (const [j, productoId] of PRODUCTOS.entries()) {
      if (j % (i + 2) === 0 && j !== i) continue;
      await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 1 + j }, ANA);
      niveles.push({ bodegaId, productoId });
    }
  }
  niveles.sort((x, y) => x.bodegaId - y.bodegaId || x.productoId - y.productoId);
});

afterAll(async () => {
  await svc?.close();
});

const key = (l: { bodegaId: number; productoId: number }) => `${l.bodegaId}.${l.productoId}`;

/** Every page of the request, followed by its token; each page at most `pageSize`. */
async function todas(request: Partial<ListExistenciasPorLoteRequest>): Promise<string[]> {
  const out: string[] = [];
  let pageToken = '';
  for (;;) {
    const page = await svc.stock.listExistenciasPorLote(
      {
        bodegaIds: [],
        productoIds: [],
        perParent: 0,
        pageSize: 0,
        ...request,
        pageToken,
      },
      ANA,
    );
    expect(page.existencias.length).toBeLessThanOrEqual(request.pageSize || 100);
    out.push(...page.existencias.map(key));
    if (page.nextPageToken === '') return out;
    pageToken = page.nextPageToken;
  }
}

/** What the answer must be: each parent's levels past afterId, at most perParent, all in (warehouse, product) order. */
function esperado(
  parentOf: (l: { bodegaId: number; productoId: number }) => number,
  otherOf: (l: { bodegaId: number; productoId: number }) => number,
  parents: number[],
  perParent: number,
  afterId: number | undefined,
): string[] {
  const held = new Map<number, number>();
  const out: string[] = [];
  const ordered = [...niveles].sort((x, y) => otherOf(x) - otherOf(y));
  for (const l of ordered) {
    const parent = parentOf(l);
    if (!parents.includes(parent) || (afterId !== undefined && otherOf(l) <= afterId)) continue;
    const n = held.get(parent) ?? 0;
    if (perParent > 0 && n >= perParent) continue;
    held.set(parent, n + 1);
    out.push(key(l));
  }
  return niveles.map(key).filter((k) => out.includes(k));
}

test('warehouses: each gets its own page of products after after_id, at most per_parent, over any page size', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.subarray([0, 1, 2, 3, 4, 5], { minLength: 1 }),
      fc.integer({ min: 0, max: 6 }),
      fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
      fc.integer({ min: 1, max: 7 }),
      async (indices, perParent, afterIndex, pageSize) => {
        const bodegaIds = indices.map((i) => bodegas[i]!);
        const afterId = afterIndex === undefined ? undefined : 9000 + afterIndex;
        expect(await todas({ bodegaIds, perParent, afterId, pageSize })).toEqual(
          esperado(
            (l) => l.bodegaId,
            (l) => l.productoId,
            bodegaIds,
            perParent,
            afterId,
          ),
        );
      },
    ),
    { numRuns: 60 },
  );
});

test('products: each gets its own page of warehouses after after_id, at most per_parent, over any page size', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.subarray(PRODUCTOS, { minLength: 1 }),
      fc.integer({ min: 0, max: 6 }),
      fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
      fc.integer({ min: 1, max: 7 }),
      async (productoIds, perParent, afterIndex, pageSize) => {
        const afterId = afterIndex === undefined ? undefined : bodegas[0]! - 1 + afterIndex;
        expect(await todas({ productoIds, perParent, afterId, pageSize })).toEqual(
          esperado(
            (l) => l.productoId,
            (l) => l.bodegaId,
            productoIds,
            perParent,
            afterId,
          ),
        );
      },
    ),
    { numRuns: 60 },
  );
});

test("a scoped caller's levels are only its warehouses', and a product's page counts only those", async () => {
  const visibles = [bodegas[1]!, bodegas[4]!];
  const page = await store.listPorLote({
    pageSize: 100,
    after: null,
    parents: { productoIds: PRODUCTOS },
    perParent: 1,
    afterId: null,
    visibles,
  });
  const expected = esperado(
    (l) => l.productoId,
    (l) => l.bodegaId,
    PRODUCTOS,
    0,
    undefined,
  )
    .map((k) => k.split('.').map(Number) as [number, number])
    .filter(([b]) => visibles.includes(b));
  // Of each product, its first level among the visible warehouses only.
  const firsts = new Map<number, string>();
  for (const [b, p] of expected) if (!firsts.has(p)) firsts.set(p, `${b}.${p}`);
  expect(page.existencias.map(key).sort()).toEqual([...firsts.values()].sort());
  expect(page.hasMore).toBe(false);
});

test('the unlocated level is no warehouse: a product batch never answers it', async () => {
  // A product counted with no warehouse to hold it: its units go to the unlocated level (bodega_id 0).
  await svc.stock.contarProducto({ productoId: 9999, cantidad: 3 }, ANA);
  expect(await svc.db('existencias').where({ bodega_id: 0, producto_id: 9999 }).first('cantidad')).toEqual({
    cantidad: 3,
  });
  expect(await todas({ productoIds: [9999], perParent: 5 })).toEqual([]);
});

test('refuses a batch of neither kind or of both, and a token it did not issue', async () => {
  for (const request of [
    { bodegaIds: [], productoIds: [] },
    { bodegaIds: [1], productoIds: [1] },
  ]) {
    const err = await grpcError(
      svc.stock.listExistenciasPorLote({ ...request, perParent: 0, pageSize: 0, pageToken: '' }, ANA),
    );
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(fieldViolationsOf(err).map((v) => v.campo)).toEqual(['bodegaIds']);
  }
  const err = await grpcError(
    svc.stock.listExistenciasPorLote(
      { bodegaIds: [1], productoIds: [], perParent: 0, pageSize: 0, pageToken: 'basura' },
      ANA,
    ),
  );
  expect(err.code).toBe(status.INVALID_ARGUMENT);
  expect(fieldViolationsOf(err).map((v) => v.campo)).toEqual(['pageToken']);
});
