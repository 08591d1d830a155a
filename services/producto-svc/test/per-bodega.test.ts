/**
 * ListProductos' per_bodega (issue 23: the BFF paged ListProductos per warehouse itself) on real
 * MariaDB: of each warehouse of bodega_ids its first per_bodega products by id after
 * per_bodega_after_id, counted in SQL (ROW_NUMBER), whatever the page size and where the pages end;
 * total_size counts the same products; per_bodega without bodega_ids is INVALID_ARGUMENT.
 */
import { status } from '@grpc/grpc-js';
import fc from 'fast-check';
import { fieldViolationsOf } from '@inventario/platform';
import type { ListProductosRequest } from '@inventario/proto';
import { rejectionOf } from '@inventario/testkit/grpc';
import { startTestService, type TestService } from './support/test-service';

let svc: TestService;
/** Every product made here: [id, bodegaId], by id. */
let productos: [number, number][];
const BODEGAS = [701, 702, 703, 704];

beforeAll(async () => {
  svc = await startTestService('producto_per_bodega');
  const at = new Date(Math.floor(Date.now() / 1000) * 1000);
  // 40 products spread unevenly: warehouse 701 every other one, the rest in turn.
  const rows = Array.from({ length: 40 }, (_, i) => ({
    nombre: `Por bodega ${i}`,
    descripcion: 'algo',
    precio: '1.50',
    cantidad_en_stock: 1,
    bodega_id: i % 2 === 0 ? 701 : BODEGAS[1 + (i % 3)]!,
    fecha_creacion: at,
    fecha_actualizacion: at,
    version: 1,
  }));
  await svc.db('productos').insert(rows);
  productos = (
    (await svc.db('productos').select('id', 'bodega_id').orderBy('id')) as { id: number; bodega_id: number }[]
  ).map((r) => [r.id, r.bodega_id]);
});

afterAll(async () => {
  await svc?.close();
});

/** Every page of the request, followed by its token. */
async function todas(request: Partial<ListProductosRequest>): Promise<number[]> {
  const out: number[] = [];
  let pageToken = '';
  for (;;) {
    const page = await svc.api.list({ ...request, pageToken });
    out.push(...page.productos.map((p) => p.id));
    if (page.nextPageToken === '') return out;
    pageToken = page.nextPageToken;
  }
}

test('each warehouse gets its first per_bodega products after per_bodega_after_id, over any page size', async () => {
  const first = productos[0]![0];
  await fc.assert(
    fc.asyncProperty(
      fc.subarray(BODEGAS, { minLength: 1 }),
      fc.integer({ min: 1, max: 12 }),
      fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
      fc.integer({ min: 1, max: 9 }),
      async (bodegaIds, perBodega, afterIndex, pageSize) => {
        const perBodegaAfterId = afterIndex === undefined ? undefined : first - 1 + afterIndex;
        const held = new Map<number, number>();
        const expected = productos
          .filter(([id, b]) => bodegaIds.includes(b) && (perBodegaAfterId === undefined || id > perBodegaAfterId))
          .filter(([, b]) => {
            held.set(b, (held.get(b) ?? 0) + 1);
            return held.get(b)! <= perBodega;
          })
          .map(([id]) => id);
        expect(await todas({ bodegaIds, perBodega, perBodegaAfterId, pageSize })).toEqual(expected);
        const { totalSize } = await svc.api.list({ bodegaIds, perBodega, perBodegaAfterId, includeTotalSize: true });
        expect(totalSize).toBe(expected.length);
      },
    ),
    { numRuns: 50 },
  );
});

test('with read_mask leaving descripcion out, the per-warehouse page comes without it', async () => {
  const page = await svc.api.list({ bodegaIds: [701], perBodega: 2, readMask: ['id', 'nombre'] });
  expect(page.productos.map((p) => [p.id, p.descripcion])).toEqual([
    [productos[0]![0], undefined],
    [productos[2]![0], undefined],
  ]);
  const full = await svc.api.list({ bodegaIds: [701], perBodega: 1 });
  expect(full.productos.map((p) => p.descripcion)).toEqual(['algo']);
});

test('per_bodega without bodega_ids is refused, naming perBodega', async () => {
  const err = await rejectionOf(svc.api.list({ perBodega: 2 }));
  expect(err.code).toBe(status.INVALID_ARGUMENT);
  expect(fieldViolationsOf(err).map((v) => v.campo)).toEqual(['perBodega']);
});
