/**
 * Stock has one home (issue 23; issue 21, items 9 and 11), end to end over the real producto-svc
 * and bodega-svc (MariaDB, NATS) behind the BFF: each stock command is one call to bodega-svc,
 * which knows the products itself, so
 * - a product deleted while stock writes for it are in flight leaves no stock anywhere (SQL);
 * - a keyed retry gets its recorded outcome even after its product was deleted;
 * - an assignment cannot overwrite sales it did not see: If-Match is required on an existing level.
 */
import { createDb, type Knex } from '@inventario/platform';
import { waitFor, crearBodega, crearProducto, verificarExistencias } from '@inventario/testkit';
import { startTestStack, type StackResponse, type TestStack } from './support/stack';

let stack: TestStack;
let bodegaDb: Knex;

beforeAll(async () => {
  stack = await startTestStack('bff_stock_one_home');
  bodegaDb = createDb(stack.databaseUrls.bodega);
}, 120_000);

afterAll(async () => {
  await bodegaDb?.destroy();
  await stack?.close();
});

let keys = 0;
const nuevaClave = () => `clave-un-hogar-${Date.now().toString(36)}-${++keys}`;

function mover(
  bodegaId: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<StackResponse> {
  return stack.request('POST', `/api/bodegas/${bodegaId}/movimientos`, { body, headers });
}

/** bodega-svc wrote the product's stock out (its ProductoEliminado consumer committed). */
async function escrito(productoId: number): Promise<void> {
  await waitFor(
    async () => (await bodegaDb('productos_eliminados').where({ producto_id: productoId }).first()) !== undefined,
    'bodega-svc to write the deleted product out',
  );
}

/** What `SELECT` says the product holds anywhere: its levels, and the level each warehouse's last line leaves. */
async function stockEnSql(productoId: number): Promise<{ niveles: unknown[]; ultimas: number[] }> {
  const niveles = await bodegaDb('existencias').where({ producto_id: productoId }).select('bodega_id', 'cantidad');
  const [ultimas] = (await bodegaDb.raw(
    `SELECT m.cantidad_posterior FROM movimientos m
      WHERE m.producto_id = ? AND m.version = (SELECT MAX(version) FROM movimientos x WHERE x.bodega_id = m.bodega_id AND x.producto_id = m.producto_id)`,
    [productoId],
  )) as [{ cantidad_posterior: number }[]];
  return { niveles, ultimas: ultimas.map((r) => r.cantidad_posterior) };
}

describe('a product deleted while stock writes for it are in flight', () => {
  test('20 stock writes racing DELETE /api/productos/{id}: each succeeds or is refused PRODUCTO_ELIMINADO, and no stock is left for it anywhere (SQL)', async () => {
    const [a, b] = [await crearBodega(stack, { capacidad: 10_000 }), await crearBodega(stack, { capacidad: 10_000 })];
    const producto = await crearProducto(stack);
    expect((await mover(a, { productoId: producto.id, tipo: 'ENTRADA', cantidad: 50 })).status).toBe(201);

    const writes = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? mover(i % 4 === 0 ? a : b, { productoId: producto.id, tipo: 'ENTRADA', cantidad: 3 })
        : stack.request('POST', '/api/transferencias', {
            body: { productoId: producto.id, origenId: a, destinoId: b, cantidad: 1 },
          }),
    );
    const borrado = stack.request('DELETE', `/api/productos/${producto.id}`);
    const answers = await Promise.all(writes);
    expect([200, 204]).toContain((await borrado).status);

    // Only what a client may see in this race: done, or refused because the product is gone.
    for (const res of answers) {
      if (res.status === 201) continue;
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('PRODUCTO_ELIMINADO');
    }
    await escrito(producto.id);
    // Its levels in a and b, and its unlocated initial units (created with cantidadEnStock, no warehouse): all written out.
    expect(await stockEnSql(producto.id)).toEqual({ niveles: [], ultimas: [0, 0, 0] });
    // And any later write is refused.
    const despues = await mover(a, { productoId: producto.id, tipo: 'ENTRADA', cantidad: 1 });
    expect(despues.status).toBe(409);
    expect(despues.body.error).toBe('PRODUCTO_ELIMINADO');
    // Its levels in a and b, and its unlocated initial units (created with cantidadEnStock, no warehouse): all written out.
    expect(await stockEnSql(producto.id)).toEqual({ niveles: [], ultimas: [0, 0, 0] });
  });

  test('a product created a moment ago takes stock at once; one never created is a 404 naming productoId (and the missing warehouse)', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    // Straight after its creation: bodega-svc asks producto-svc about an id it has not seen yet.
    expect((await mover(bodegaId, { productoId: producto.id, tipo: 'ENTRADA', cantidad: 2 })).status).toBe(201);
    expect(await bodegaDb('productos_conocidos').where({ producto_id: producto.id }).first()).toBeDefined();

    const nunca = 3_999_999_999;
    const res = await mover(bodegaId, { productoId: nunca, tipo: 'ENTRADA', cantidad: 1 });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: 'NOT_FOUND',
      mensaje: `No existe el producto ${nunca}`,
      detalles: [{ campo: 'productoId', mensaje: `no existe el producto ${nunca}` }],
    });
    const ambos = await mover(4_000_000_000, { productoId: nunca, tipo: 'ENTRADA', cantidad: 1 });
    expect(ambos.body.detalles).toEqual([
      { campo: 'productoId', mensaje: `no existe el producto ${nunca}` },
      { campo: 'id', mensaje: 'no existe la bodega 4000000000' },
    ]);
    // An id producto-svc denies is not recorded as known.
    expect(await bodegaDb('productos_conocidos').where({ producto_id: nunca }).first()).toBeUndefined();
  });
});

describe('issue 21, item 9: a keyed retry gets its recorded outcome, whatever changed since', () => {
  test('a movement recorded 201 with a key, its product deleted: the retry answers the same 201 body, replayed, and writes nothing', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const clave = nuevaClave();
    const body = { productoId: producto.id, tipo: 'ENTRADA', cantidad: 4 };
    const first = await mover(bodegaId, body, { 'idempotency-key': clave });
    expect(first.status).toBe(201);

    expect([200, 204]).toContain((await stack.request('DELETE', `/api/productos/${producto.id}`)).status);
    await escrito(producto.id);
    const lineas = await bodegaDb('movimientos').where({ producto_id: producto.id }).count<{ n: number }[]>({ n: '*' });

    const retry = await mover(bodegaId, body, { 'idempotency-key': clave });
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(
      await bodegaDb('movimientos').where({ producto_id: producto.id }).count<{ n: number }[]>({ n: '*' }),
    ).toEqual(lineas);
  });
});

describe('issue 21, item 11: an assignment cannot lose a concurrent movement', () => {
  test('with sales in flight, an assignment of an existing level without If-Match is 428 and with a stale one 412: the level ends at what the ledger says, every sale counted', async () => {
    const bodegaId = await crearBodega(stack, { capacidad: 1_000 });
    const producto = await crearProducto(stack);
    // A new level needs no version (the older gateway's call keeps working).
    const creado = await stack.request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { productoId: producto.id, cantidad: 30 },
    });
    expect(creado.status).toBe(200);
    const etag = creado.headers.get('etag')!;

    const ventas = Array.from({ length: 12 }, () =>
      mover(bodegaId, { productoId: producto.id, tipo: 'SALIDA', cantidad: 1 }),
    );
    const asignaciones = [
      stack.request('POST', `/api/bodegas/${bodegaId}/productos`, { body: { productoId: producto.id, cantidad: 25 } }),
      stack.request('POST', `/api/bodegas/${bodegaId}/productos`, {
        body: { productoId: producto.id, cantidad: 25 },
        headers: { 'if-match': '*' },
      }),
    ];
    const answers = await Promise.all(ventas);
    const [sin, estrella] = (await Promise.all(asignaciones)) as [StackResponse, StackResponse];
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(201));
    expect(sin.status).toBe(428);
    expect(sin.body.detalles).toEqual([{ campo: 'If-Match', mensaje: expect.any(String) }]);
    expect(estrella.status).toBe(428);

    // The version read before the sales is stale now: refused, never applied over them.
    const stale = await stack.request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { productoId: producto.id, cantidad: 25 },
      headers: { 'if-match': etag },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.versionActual).toBe(13);
    const nivel = await bodegaDb('existencias')
      .where({ bodega_id: bodegaId, producto_id: producto.id })
      .first('cantidad', 'version');
    expect(nivel).toEqual({ cantidad: 18, version: 13 });

    // Under the current version the level is set, and the next sale counts from it.
    const actual = await stack.request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { productoId: producto.id, cantidad: 25 },
      headers: { 'if-match': '"13"' },
    });
    expect(actual.status).toBe(200);
    expect((await mover(bodegaId, { productoId: producto.id, tipo: 'SALIDA', cantidad: 1 })).status).toBe(201);
    expect(
      await bodegaDb('existencias').where({ bodega_id: bodegaId, producto_id: producto.id }).first('cantidad'),
    ).toEqual({ cantidad: 24 });
    const verificacion = await verificarExistencias(stack);
    expect(verificacion.status).toBe(200);
    expect(verificacion.body.consistente).toBe(true);
  });
});

// Last: it stops producto-svc for good.
describe('with producto-svc down', () => {
  test("a stock write naming a product bodega-svc has not seen is 503 naming producto-svc, and never opens bodega-svc's breaker: known products and warehouses keep working", async () => {
    const bodegaId = await crearBodega(stack, { capacidad: 1_000 });
    const conocido = await crearProducto(stack);
    expect((await mover(bodegaId, { productoId: conocido.id, tipo: 'ENTRADA', cantidad: 10 })).status).toBe(201);
    // Written straight into producto-svc's table: no ProductoCreado, so bodega-svc has never seen them.
    const productoDb = createDb(stack.databaseUrls.producto);
    const nuevos: number[] = [];
    for (let i = 0; i < 12; i++) {
      const [id] = await productoDb('productos').insert({
        nombre: `Sin evento ${Date.now()}-${i}`,
        precio: '1.00',
        cantidad_en_stock: 0,
        fecha_creacion: new Date(),
        fecha_actualizacion: new Date(),
      });
      nuevos.push(Number(id));
    }
    await productoDb.destroy();
    await stack.stopProductoSvc();

    // More refusals than the breaker's volume threshold (5) at 100 %: each blames producto-svc.
    for (const productoId of nuevos) {
      const res = await mover(bodegaId, { productoId, tipo: 'ENTRADA', cantidad: 1 });
      expect(res.status).toBe(503);
      expect(res.body.mensaje).toMatch(/producto-svc/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // bodega-svc's breaker stayed closed: its routes, and stock writes of a known product, still answer.
    expect((await stack.request('GET', `/api/bodegas/${bodegaId}`)).status).toBe(200);
    expect((await mover(bodegaId, { productoId: conocido.id, tipo: 'SALIDA', cantidad: 1 })).status).toBe(201);
    expect(await bodegaDb('movimientos').whereIn('producto_id', nuevos).first()).toBeUndefined();
  });
});
