/**
 * One answer to "how many" (issue 23; docs/contract.md §10.6): through the
 * BFF, across the real producto-svc and bodega-svc, a product's
 * `cantidadEnStock` (GraphQL `cantidad`) is its ledger total at every step a
 * client can observe, a create's units are recorded as its initial stock
 * (in its warehouse as far as they fit, the rest unlocated), and a PUT of
 * `cantidadEnStock` is a count the ledger records as an AJUSTE.
 */
import { createDb } from '@inventario/platform';
import { graphqlData } from './graphql-support/graphql-client';
import { crearBodega, crearProducto, uniqueNombre } from '@inventario/testkit';
import { startTestStack, type StackResponse, type TestStack } from './support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('bff_una_respuesta');
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

async function ok(
  method: string,
  path: string,
  body?: Record<string, unknown>,
  headers?: Record<string, string>,
): Promise<StackResponse> {
  const res = await stack.request(method, path, { body, headers });
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return res;
}

interface Linea {
  bodegaId: number;
  tipo: string;
  motivo: string;
  cantidad: number;
}

/** Every ledger line of the product, newest first. */
async function lineasDe(productoId: number): Promise<Linea[]> {
  const out: Linea[] = [];
  let cursor: string | null = null;
  do {
    const res = await ok(
      'GET',
      `/api/movimientos?productoId=${productoId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    out.push(...(res.body.movimientos as Linea[]));
    cursor = res.body.siguienteCursor as string | null;
  } while (cursor);
  return out;
}

/** The product's figure as REST (by id and in the list) and GraphQL answer it, its stock total, and the sum of its ledger lines. */
async function figuras(productoId: number) {
  const [rest, lista, existencias, gql, lineas] = await Promise.all([
    ok('GET', `/api/productos/${productoId}`),
    ok('GET', '/api/productos'),
    ok('GET', `/api/productos/${productoId}/existencias`),
    graphqlData<{ producto: { cantidad: number } }>(stack, `{ producto(id: "${productoId}") { cantidad } }`),
    lineasDe(productoId),
  ]);
  const enLista = (lista.body as { id: number; cantidadEnStock: number }[]).find((p) => p.id === productoId);
  return {
    rest: rest.body.cantidadEnStock as number,
    lista: enLista?.cantidadEnStock,
    graphql: gql.producto.cantidad,
    // The units in warehouses (total) and in none (sinUbicar).
    total: (existencias.body.total as number) + (existencias.body.sinUbicar as number),
    libro: lineas.reduce((sum, l) => sum + l.cantidad, 0),
  };
}

const todas = (n: number) => ({ rest: n, lista: n, graphql: n, total: n, libro: n });

it("the README's stock steps: the product's cantidadEnStock is its stock total (was 35 against 36)", async () => {
  const central = await crearBodega(stack, { capacidad: 1000 });
  const m8 = (
    await crearProducto(stack, {
      nombre: uniqueNombre('Tornillo M8'),
      precio: 19.9,
      cantidadEnStock: 40,
      bodegaId: central,
    })
  ).id;
  expect(await figuras(m8)).toEqual(todas(40));
  expect((await ok('PUT', `/api/productos/${m8}`, { cantidadEnStock: 35 })).body.cantidadEnStock).toBe(35);
  expect(await figuras(m8)).toEqual(todas(35));
  await ok('DELETE', `/api/bodegas/${central}?force=true`);
  // The forced delete wrote its units out: the figure says so too.
  expect(await figuras(m8)).toEqual(todas(0));
  const norte = await crearBodega(stack, { capacidad: 500 });
  const tienda = await crearBodega(stack, { capacidad: 100 });
  await ok('POST', `/api/bodegas/${norte}/productos`, { productoId: m8, cantidad: 40, umbralMinimo: 5 });
  await ok('POST', `/api/bodegas/${norte}/movimientos`, { productoId: m8, tipo: 'SALIDA', cantidad: 3 });
  await ok('POST', '/api/transferencias', { productoId: m8, origenId: norte, destinoId: tienda, cantidad: 10 });
  const nivel = await ok('GET', `/api/bodegas/${norte}/existencias/${m8}`);
  await ok(
    'POST',
    `/api/bodegas/${norte}/movimientos`,
    { productoId: m8, tipo: 'AJUSTE', cantidad: 26 },
    { 'if-match': `"${nivel.body.version as number}"` },
  );
  expect(await figuras(m8)).toEqual(todas(36));
});

it('a create with cantidadEnStock N and bodegaId B reads back N, with N units in B, recorded as its initial stock', async () => {
  const b = await crearBodega(stack, { capacidad: 50 });
  const p = await crearProducto(stack, { cantidadEnStock: 12, bodegaId: b });
  expect(p.cantidadEnStock).toBe(12);
  expect(await figuras(p.id)).toEqual(todas(12));
  expect((await ok('GET', `/api/bodegas/${b}/existencias/${p.id}`)).body.cantidad).toBe(12);
  expect(await lineasDe(p.id)).toEqual([
    expect.objectContaining({ bodegaId: b, tipo: 'ENTRADA', motivo: 'STOCK_INICIAL', cantidad: 12 }),
  ]);
});

it('units that do not fit the warehouse, or of a product with no warehouse, are unlocated: the create succeeds and no warehouse passes its capacity', async () => {
  const b = await crearBodega(stack, { capacidad: 10 });
  const p = await crearProducto(stack, { cantidadEnStock: 25, bodegaId: b });
  expect(p.cantidadEnStock).toBe(25);
  const existencias = await ok('GET', `/api/productos/${p.id}/existencias`);
  expect(existencias.body).toMatchObject({
    total: 10,
    sinUbicar: 15,
    porBodega: [expect.objectContaining({ bodegaId: b, cantidad: 10 })],
  });
  const bodega = await ok('GET', `/api/bodegas/${b}`);
  expect(bodega.body).toMatchObject({ capacidad: 10, ocupacion: 10 });

  const suelto = await crearProducto(stack, { cantidadEnStock: 7 });
  expect(await figuras(suelto.id)).toEqual(todas(7));
  expect((await ok('GET', `/api/productos/${suelto.id}/existencias`)).body).toMatchObject({
    total: 0,
    sinUbicar: 7,
    porBodega: [],
  });
});

it('a PUT of cantidadEnStock is a count: one AJUSTE (CONTEO) so the total becomes it; the same figure writes no line', async () => {
  const b = await crearBodega(stack, { capacidad: 100 });
  const p = await crearProducto(stack, { cantidadEnStock: 20, bodegaId: b });
  await ok('POST', `/api/bodegas/${b}/movimientos`, { productoId: p.id, tipo: 'SALIDA', cantidad: 4 });
  expect(await figuras(p.id)).toEqual(todas(16));
  expect((await ok('PUT', `/api/productos/${p.id}`, { cantidadEnStock: 18 })).body.cantidadEnStock).toBe(18);
  expect(await figuras(p.id)).toEqual(todas(18));
  expect((await lineasDe(p.id))[0]).toMatchObject({ bodegaId: b, tipo: 'AJUSTE', motivo: 'CONTEO', cantidad: 2 });
  const antes = (await lineasDe(p.id)).length;
  await ok('PUT', `/api/productos/${p.id}`, { cantidadEnStock: 18, nombre: uniqueNombre('Renombrado') });
  expect(await lineasDe(p.id)).toHaveLength(antes);
  // GraphQL's update records the same count.
  await graphqlData(stack, `mutation { actualizarProducto(input: { id: "${p.id}", cantidad: 5 }) { success } }`);
  expect(await figuras(p.id)).toEqual(todas(5));
});

it('a deleted product leaves no units anywhere, unlocated ones included', async () => {
  const p = await crearProducto(stack, { cantidadEnStock: 9 });
  const db = createDb(stack.databaseUrls.bodega);
  try {
    expect(await db('existencias').where({ producto_id: p.id }).pluck('bodega_id')).toEqual([0]);
    await ok('DELETE', `/api/productos/${p.id}`);
    // bodega-svc writes it out when it consumes ProductoEliminado.
    const deadline = Date.now() + 20_000;
    let niveles = 1;
    while (niveles > 0 && Date.now() < deadline) {
      niveles = (await db('existencias').where({ producto_id: p.id }).pluck('id')).length;
      if (niveles > 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(niveles).toBe(0);
  } finally {
    await db.destroy();
  }
});
