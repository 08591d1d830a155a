/**
 * UnassignBodega on big warehouses (issue 16 item 3): it works in chunks,
 * each one transaction with its events, so no statement grows with the
 * warehouse (one INSERT of every event used to pass max_allowed_packet: 300
 * products with 60 KB descriptions failed every time); its answer carries a
 * bounded sample and a count; with an idempotency key its record covers
 * the whole operation, so a keyed retry after a failure half-way resumes
 * and reports every product, and calls limited by max_chunks continue one
 * another under one key.
 */
import { status } from '@grpc/grpc-js';
import { PRODUCTO_SAMPLE_LIMITS } from '@inventario/platform';
import { rejectionOf } from '@inventario/testkit/grpc';
import { seedProductos } from '@inventario/testkit';
import { startTestService, type TestService } from './support/test-service';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService('producto_unassign');
});

afterAll(async () => {
  await svc?.close();
});

/** Outbox rows per product id among ProductoActualizado events (committed, published or not). */
async function updateEventsPerProducto(ids: readonly number[]): Promise<Map<number, number>> {
  const rows = (await svc.db('outbox').select('payload').where('subject', 'like', '%.producto.actualizado')) as {
    payload: string;
  }[];
  const wanted = new Set(ids);
  const counts = new Map<number, number>();
  for (const row of rows) {
    const id = (JSON.parse(row.payload) as { data: { productoId: number } }).data.productoId;
    if (wanted.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

async function stillAssigned(bodegaId: number): Promise<number> {
  const row = await svc
    .db('productos')
    .where({ bodega_id: bodegaId })
    .count<{ n: number | string }[]>({ n: '*' })
    .first();
  return Number(row?.n);
}

test('300 products with 60 KB descriptions are all unassigned, one event each; the answer is a bounded sample and a count', async () => {
  const descripcion = 'd'.repeat(60 * 1024);
  const ids = await seedProductos(svc.db, { count: 300, bodegaId: 601, descripcion });

  const { productos, totalUnassigned, complete } = await svc.api.unassignBodega(601);
  expect(totalUnassigned).toBe(300);
  expect(complete).toBe(true);
  // The first ones by id, as far as 256 KiB of their JSON allows (each is over 60 KB).
  expect(productos.length).toBeGreaterThan(0);
  expect(productos.length).toBeLessThan(5);
  expect(productos.map((p) => p.id)).toEqual(ids.slice(0, productos.length));
  expect(productos.every((p) => p.bodegaId === undefined && p.version === 2 && p.descripcion === descripcion)).toBe(
    true,
  );

  expect(await stillAssigned(601)).toBe(0);
  const counts = await updateEventsPerProducto(ids);
  expect(counts.size).toBe(300);
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
  // A repeat finds nothing to do.
  expect(await svc.api.unassignBodega(601)).toEqual({ productos: [], totalUnassigned: 0, complete: true });
}, 60_000);

test('a keyed call that failed half-way is resumed by its retry, which reports every product; a repeat then replays it', async () => {
  const ids = await seedProductos(svc.db, { count: 1200, bodegaId: 602 });
  // The second chunk (ids 501..1000 of the warehouse) fails: the first has committed by then.
  const failing = ids[700]!;
  await svc.db.raw(
    `CREATE TRIGGER unassign_fails BEFORE UPDATE ON productos FOR EACH ROW
     BEGIN IF NEW.id = ${failing} THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'; END IF; END`,
  );
  let dropped = false;
  try {
    const failed = await rejectionOf(svc.api.unassignBodega(602, { requestId: 'resume-1' }));
    expect(failed.code).toBe(status.INTERNAL);
    expect(await stillAssigned(602)).toBe(700);
    await svc.db.raw('DROP TRIGGER unassign_fails');
    dropped = true;
  } finally {
    if (!dropped) await svc.db.raw('DROP TRIGGER IF EXISTS unassign_fails');
  }

  const retry = await svc.api.unassignBodegaReplay(602, { requestId: 'resume-1' });
  expect(retry.replayed).toBe(false);
  expect(retry.response.totalUnassigned).toBe(1200);
  expect(retry.response.complete).toBe(true);
  // The sample holds the products the failed attempt unassigned: the record covers the whole operation.
  expect(retry.response.productos.map((p) => p.id)).toEqual(ids.slice(0, PRODUCTO_SAMPLE_LIMITS.maxItems));
  expect(await stillAssigned(602)).toBe(0);

  const again = await svc.api.unassignBodegaReplay(602, { requestId: 'resume-1' });
  expect(again.replayed).toBe(true);
  expect(again.response).toEqual(retry.response);

  const counts = await updateEventsPerProducto(ids);
  expect(counts.size).toBe(1200);
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
}, 60_000);

test('max_chunks bounds one call; the next call with the same key (whatever its max_chunks) continues and reports the whole operation', async () => {
  const ids = await seedProductos(svc.db, { count: 1100, bodegaId: 603 });

  const first = await svc.api.unassignBodega(603, { requestId: 'paged-1', maxChunks: 1 });
  expect(first).toMatchObject({ totalUnassigned: 500, complete: false });
  expect(await stillAssigned(603)).toBe(600);

  const second = await svc.api.unassignBodega(603, { requestId: 'paged-1', maxChunks: 5 });
  expect(second).toMatchObject({ totalUnassigned: 1100, complete: true });
  expect(second.productos.map((p) => p.id)).toEqual(ids.slice(0, PRODUCTO_SAMPLE_LIMITS.maxItems));

  // Without a key, a call reports itself only.
  await seedProductos(svc.db, { count: 3, bodegaId: 604 });
  expect(await svc.api.unassignBodega(604, { maxChunks: 1 })).toMatchObject({ totalUnassigned: 3, complete: true });
}, 60_000);

test('the same key for another warehouse is refused as a reuse', async () => {
  await svc.api.unassignBodega(605, { requestId: 'reuse-1' });
  const err = await rejectionOf(svc.api.unassignBodega(606, { requestId: 'reuse-1' }));
  expect(err.code).toBe(status.INVALID_ARGUMENT);
});

test('ListProductos counts every matching product when asked, and only then', async () => {
  await seedProductos(svc.db, { count: 7, bodegaId: 607 });
  const counted = await svc.api.list({ bodegaIds: [607], pageSize: 2, includeTotalSize: true });
  expect(counted.productos).toHaveLength(2);
  expect(counted.totalSize).toBe(7);
  expect((await svc.api.list({ bodegaIds: [607], pageSize: 2 })).totalSize).toBeUndefined();
});
