/**
 * Issue 23's migration (docs/contract.md §10.6): products from before the
 * ledger had a `cantidad_en_stock` no ledger line explained. Their schema
 * migration (producto-svc's 0008) marks them, and the migration job records
 * what their levels do not explain, once, with a line that says so; the
 * ledger wins when the levels already hold as much or more. Real
 * producto-svc and bodega-svc databases; the rows of "before" are written
 * by SQL as the old service left them.
 */
import { createDb, type Knex } from '@inventario/platform';
import { createLibroDeStock, type LibroDeStock } from '../../producto-svc/src/grpc/libro-de-stock';
import { migrations } from '../../producto-svc/src/store/migrations';
import { migrarStockAlLibro } from '../../producto-svc/src/stock-al-libro';
import { crearBodega, uniqueNombre } from '@inventario/testkit';
import { startTestStack, type TestStack } from './support/stack';

let stack: TestStack;
let productoDb: Knex;
let bodegaDb: Knex;
let libro: LibroDeStock;

beforeAll(async () => {
  stack = await startTestStack('bff_una_respuesta_migracion');
  productoDb = createDb(stack.databaseUrls.producto);
  bodegaDb = createDb(stack.databaseUrls.bodega);
  libro = createLibroDeStock(stack.serviceAddrs.bodega);
}, 120_000);

afterAll(async () => {
  libro?.close();
  await productoDb?.destroy();
  await bodegaDb?.destroy();
  await stack?.close();
});

/** A product row as the service before issue 23 wrote it: its units only in its own column. */
async function productoAntiguo(cantidad: number, bodegaId: number | null): Promise<number> {
  const at = new Date();
  const [id] = await productoDb('productos').insert({
    nombre: uniqueNombre('Antiguo'),
    descripcion: null,
    precio: '2.50',
    cantidad_en_stock: cantidad,
    bodega_id: bodegaId,
    fecha_creacion: at,
    fecha_actualizacion: at,
    version: 1,
  });
  return Number(id);
}

const lineas = (productoId: number) =>
  bodegaDb('movimientos')
    .where({ producto_id: productoId })
    .orderBy('id')
    .select<{ bodega_id: number; motivo: string; cantidad: number; comentario: string }[]>(
      'bodega_id',
      'motivo',
      'cantidad',
      'comentario',
    );

const figura = async (id: number) =>
  (await stack.request('GET', `/api/productos/${id}`)).body.cantidadEnStock as number;

it('records each old product once, for what its levels do not explain; the ledger wins when they explain more; a second run records nothing', async () => {
  // The schema as it was before 0008, with rows written then.
  await productoDb.raw('ALTER TABLE productos DROP INDEX productos_stock_migrado_idx, DROP COLUMN stock_migrado');
  const b = await crearBodega(stack, { capacidad: 30 });
  const enBodega = await productoAntiguo(20, b);
  const desbordado = await productoAntiguo(45, b);
  const suelto = await productoAntiguo(8, null);
  const explicado = await productoAntiguo(35, null);
  const vacio = await productoAntiguo(0, null);
  // 36 units in levels against a column of 35: the ledger wins.
  const otra = await crearBodega(stack, { capacidad: 100 });
  const asignado = await stack.request('POST', `/api/bodegas/${otra}/productos`, {
    body: { productoId: explicado, cantidad: 36 },
  });
  expect(asignado.status).toBe(200);
  await migrations['0008_stock_migrado']!.up(productoDb);

  // Rows from before are to migrate; a product created now is not.
  const nuevo = await stack.request('POST', '/api/productos', {
    body: { nombre: uniqueNombre('Nuevo'), precio: 1, cantidadEnStock: 4 },
  });
  expect(nuevo.status).toBe(201);
  const marcas = await productoDb('productos')
    .whereIn('id', [enBodega, nuevo.body.id as number])
    .orderBy('id')
    .pluck('stock_migrado');
  expect(marcas.map(Boolean)).toEqual([false, true]);

  expect(await migrarStockAlLibro(productoDb, libro)).toBe(5);
  expect(await lineas(enBodega)).toEqual([
    { bodega_id: b, motivo: 'MIGRACION', cantidad: 20, comentario: expect.stringMatching(/migración/) },
  ]);
  // 45 into a warehouse with 10 units of room left: 10 there, 35 unlocated, the capacity kept.
  expect((await lineas(desbordado)).map((l) => [l.bodega_id, l.motivo, l.cantidad])).toEqual([
    [b, 'MIGRACION', 10],
    [0, 'MIGRACION', 35],
  ]);
  expect((await stack.request('GET', `/api/bodegas/${b}`)).body).toMatchObject({ capacidad: 30, ocupacion: 30 });
  expect((await lineas(suelto)).map((l) => [l.bodega_id, l.cantidad])).toEqual([[0, 8]]);
  expect((await lineas(explicado)).map((l) => l.motivo)).toEqual(['ASIGNACION']);
  expect(await lineas(vacio)).toEqual([]);
  expect([
    await figura(enBodega),
    await figura(desbordado),
    await figura(suelto),
    await figura(explicado),
    await figura(vacio),
  ]).toEqual([20, 45, 8, 36, 0]);

  // Again: nothing to do here, and bodega-svc records nothing even when asked again.
  const antes = await bodegaDb('movimientos').count<{ n: number }[]>({ n: '*' });
  expect(await migrarStockAlLibro(productoDb, libro)).toBe(0);
  await productoDb('productos').update({ stock_migrado: false });
  await migrarStockAlLibro(productoDb, libro);
  expect(await bodegaDb('movimientos').count<{ n: number }[]>({ n: '*' })).toEqual(antes);
  expect(await figura(desbordado)).toBe(45);
});

it('a PUT of cantidadEnStock marks the product migrated: its count is the figure, and the old column is never added on top', async () => {
  const id = await productoAntiguo(50, null);
  await productoDb('productos').where({ id }).update({ stock_migrado: false });
  const put = await stack.request('PUT', `/api/productos/${id}`, { body: { cantidadEnStock: 20 } });
  expect(put.status).toBe(200);
  await migrarStockAlLibro(productoDb, libro);
  expect(await figura(id)).toBe(20);
  expect((await lineas(id)).map((l) => l.motivo)).toEqual(['CONTEO']);
});
