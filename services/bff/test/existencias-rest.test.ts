/**
 * The stock routes of docs/contract.md §10.2 through the BFF, across the real
 * producto-svc and bodega-svc (MariaDB, NATS): each route's success and its
 * errors, the older gateway's two calls exactly, keyed replays, and the
 * ledger they leave.
 */
import { createDb } from '@inventario/platform';
import { crearBodega, crearProducto, uniqueNombre, type ProductoRest } from '@inventario/testkit';
import { startTestStack, type StackRequestOptions, type StackResponse, type TestStack } from './support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('bff_existencias');
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const MISSING_ID = 4_000_000_000;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
let keys = 0;
const nuevaClave = () => `clave-existencias-${Date.now().toString(36)}-${++keys}`;

function request(method: string, path: string, options?: StackRequestOptions): Promise<StackResponse> {
  return stack.request(method, path, options);
}

/** The fields a 400 names, sorted. */
const camposOf = (res: StackResponse) => (res.body.detalles as { campo: string }[]).map((d) => d.campo).sort();

/**
 * POST /api/bodegas/{id}/productos; fails the test unless it answers 200. An existing level is set
 * under its current version, which the route requires (issue 21, item 11).
 */
async function asignar(
  bodegaId: number,
  productoId: number,
  cantidad: number,
  extra: Record<string, unknown> = {},
): Promise<StackResponse> {
  const nivel = await request('GET', `/api/bodegas/${bodegaId}/existencias/${productoId}`);
  const headers: Record<string, string> = nivel.status === 200 ? { 'if-match': nivel.headers.get('etag')! } : {};
  const res = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
    body: { productoId, cantidad, ...extra },
    headers,
  });
  if (res.status !== 200) throw new Error(`assignment answered ${res.status}: ${res.text}`);
  return res;
}

/** POST /api/bodegas/{id}/movimientos; fails the test unless it answers 201. */
async function mover(
  bodegaId: number,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
): Promise<StackResponse> {
  const res = await request('POST', `/api/bodegas/${bodegaId}/movimientos`, { body, headers });
  if (res.status !== 201) throw new Error(`movement answered ${res.status}: ${res.text}`);
  return res;
}

/** The units of a level, or undefined when there is none. */
async function unidades(bodegaId: number, productoId: number): Promise<number | undefined> {
  const res = await request('GET', `/api/bodegas/${bodegaId}/existencias/${productoId}`);
  return res.status === 200 ? (res.body.cantidad as number) : undefined;
}

/** What these tests read of a ledger line. */
interface Linea {
  tipo: string;
  motivo: string;
  cantidad: number;
  productoId: number;
  operacionId: number;
}

/** The operations of the lines of a GET /api/movimientos answer, in its order. */
const operacionesDe = (res: StackResponse) => (res.body.movimientos as Linea[]).map((m) => m.operacionId);

/** Every ledger line of one warehouse, newest first. */
async function lineasDe(bodegaId: number): Promise<Linea[]> {
  const res = await request('GET', `/api/movimientos?bodegaId=${bodegaId}&limit=1000`);
  expect(res.status).toBe(200);
  return res.body.movimientos as Linea[];
}

describe('POST /api/bodegas/{id}/productos (the older gateway)', () => {
  test('sets the units: 200 {mensaje, productoId, bodegaId, cantidad} with the level ETag, one AJUSTE line ASIGNACION per call', async () => {
    const bodegaId = await crearBodega(stack, { capacidad: 100 });
    const producto = await crearProducto(stack);
    const res = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { productoId: producto.id, cantidad: 40, umbralMinimo: 5 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ mensaje: expect.any(String), productoId: producto.id, bodegaId, cantidad: 40 });
    expect(res.headers.get('etag')).toBe('"1"');

    const again = await request('POST', `/api/v1/bodegas/${bodegaId}/productos`, {
      body: { productoId: producto.id, cantidad: 25 },
      headers: { 'if-match': '"1"' },
    });
    expect(again.status).toBe(200);
    expect(again.body.cantidad).toBe(25);
    expect(again.headers.get('etag')).toBe('"2"');

    const level = await request('GET', `/api/bodegas/${bodegaId}/existencias/${producto.id}`);
    expect(level.body).toEqual({
      bodegaId,
      productoId: producto.id,
      cantidad: 25,
      umbralMinimo: 5,
      version: 2,
      fechaCreacion: expect.stringMatching(TIMESTAMP),
      fechaActualizacion: expect.stringMatching(TIMESTAMP),
      // Added with reservations (docs/contract.md §13): nothing held, the threshold on the units (the default).
      reservada: 0,
      disponible: 25,
      alertaSobre: 'CANTIDAD',
    });
    expect(await lineasDe(bodegaId)).toEqual([
      expect.objectContaining({ tipo: 'AJUSTE', motivo: 'ASIGNACION', cantidad: -15, productoId: producto.id }),
      expect.objectContaining({ tipo: 'AJUSTE', motivo: 'ASIGNACION', cantidad: 40, productoId: producto.id }),
    ]);
    // null removes the threshold; absent (above) kept it.
    const cleared = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { productoId: producto.id, cantidad: 25, umbralMinimo: null },
      headers: { 'if-match': '"2"' },
    });
    expect(cleared.status).toBe(200);
    expect((await request('GET', `/api/bodegas/${bodegaId}/existencias/${producto.id}`)).body).toMatchObject({
      umbralMinimo: null,
      version: 3,
    });
    // An assignment does not move bodegaId; cantidadEnStock is every unit of the product (§10.6): the
    // ones it was created with (unlocated, it has no warehouse) and the 25 assigned here.
    expect((await request('GET', `/api/productos/${producto.id}`)).body).toMatchObject({
      bodegaId: null,
      cantidadEnStock: producto.cantidadEnStock + 25,
    });
    expect((await request('GET', `/api/bodegas/${bodegaId}`)).body.ocupacion).toBe(25);
  });

  test('400 names every bad field, the path id and a missing body', async () => {
    const bodegaId = await crearBodega(stack);
    const bad = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { productoId: 0, cantidad: -1, umbralMinimo: 'x', color: 1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('VALIDATION_ERROR');
    expect(camposOf(bad)).toEqual(['cantidad', 'color', 'productoId', 'umbralMinimo']);
    expect(
      camposOf(await request('POST', '/api/bodegas/abc/productos', { body: { productoId: 1, cantidad: 1 } })),
    ).toEqual(['id']);
    expect(camposOf(await request('POST', `/api/bodegas/${bodegaId}/productos`))).toEqual(['cuerpo']);
  });

  test('404 names what is missing: the product, the warehouse, or both', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const sinProducto = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { productoId: MISSING_ID, cantidad: 1 },
    });
    expect(sinProducto.status).toBe(404);
    expect(sinProducto.body).toEqual({
      error: 'NOT_FOUND',
      mensaje: `No existe el producto ${MISSING_ID}`,
      detalles: [{ campo: 'productoId', mensaje: `no existe el producto ${MISSING_ID}` }],
    });
    const sinBodega = await request('POST', `/api/bodegas/${MISSING_ID}/productos`, {
      body: { productoId: producto.id, cantidad: 1 },
    });
    expect(sinBodega.status).toBe(404);
    expect(sinBodega.body.detalles).toEqual([{ campo: 'id', mensaje: `no existe la bodega ${MISSING_ID}` }]);
    const ninguno = await request('POST', `/api/bodegas/${MISSING_ID}/productos`, {
      body: { productoId: MISSING_ID, cantidad: 1 },
    });
    expect(camposOf(ninguno)).toEqual(['id', 'productoId']);
  });

  test('409 CAPACIDAD_EXCEDIDA with its figures; nothing is written', async () => {
    const bodegaId = await crearBodega(stack, { capacidad: 10 });
    const [a, b] = [await crearProducto(stack), await crearProducto(stack)];
    await asignar(bodegaId, a.id, 7);
    const res = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { productoId: b.id, cantidad: 4 },
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: 'CAPACIDAD_EXCEDIDA',
      mensaje: expect.any(String),
      bodegaId,
      capacidad: 10,
      ocupacion: 7,
      solicitado: 4,
    });
    expect(await unidades(bodegaId, b.id)).toBeUndefined();
    expect(await lineasDe(bodegaId)).toHaveLength(1);
  });

  test('If-Match: a stale version is 412 with versionActual, * on a missing level 412 null, the right one applies; an existing level needs it (428)', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const star = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { productoId: producto.id, cantidad: 1 },
      headers: { 'if-match': '*' },
    });
    expect(star.status).toBe(412);
    expect(star.body).toMatchObject({
      error: 'PRECONDITION_FAILED',
      versionActual: null,
      detalles: [{ campo: 'If-Match' }],
    });
    // A weak tag never matches, and "0" is not a version: refused too, never read as "no level yet".
    const weak = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { productoId: producto.id, cantidad: 1 },
      headers: { 'if-match': 'W/"1"' },
    });
    expect(weak.status).toBe(412);
    expect(await unidades(bodegaId, producto.id)).toBeUndefined();

    await asignar(bodegaId, producto.id, 3);
    await asignar(bodegaId, producto.id, 4);
    const stale = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { productoId: producto.id, cantidad: 9 },
      headers: { 'if-match': '"1"' },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.versionActual).toBe(2);
    const ok = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { productoId: producto.id, cantidad: 9 },
      headers: { 'if-match': '"2"' },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('etag')).toBe('"3"');
    // Setting an existing level without its version could overwrite a movement the client never saw
    // (issue 21, item 11): 428 without If-Match, and with `*`, as for an AJUSTE; nothing is written.
    const sin = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { productoId: producto.id, cantidad: 8 },
    });
    expect(sin.status).toBe(428);
    expect(sin.body).toEqual({
      error: 'PRECONDITION_REQUIRED',
      mensaje: expect.any(String),
      detalles: [{ campo: 'If-Match', mensaje: expect.any(String) }],
    });
    expect(
      (
        await request('POST', `/api/bodegas/${bodegaId}/productos`, {
          body: { productoId: producto.id, cantidad: 8 },
          headers: { 'if-match': '*' },
        })
      ).status,
    ).toBe(428);
    expect(await unidades(bodegaId, producto.id)).toBe(9);
  });

  test('Idempotency-Key: a repeat answers the same, marked replayed, writing nothing; another body with the key is 422', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const key = nuevaClave();
    const body = { productoId: producto.id, cantidad: 6 };
    const first = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body,
      headers: { 'idempotency-key': key },
    });
    const repeat = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body,
      headers: { 'idempotency-key': key },
    });
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(first.body);
    expect(repeat.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(await lineasDe(bodegaId)).toHaveLength(1);
    const reused = await request('POST', `/api/bodegas/${bodegaId}/productos`, {
      body: { ...body, cantidad: 7 },
      headers: { 'idempotency-key': key },
    });
    expect(reused.status).toBe(422);
  });
});

describe('DELETE /api/bodegas/{id}/productos/{productoId} (the older gateway)', () => {
  test('writes the units out, removes the level and unassigns the product: 200 {mensaje, productoId, bodegaId, cantidadRetirada}', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack, { bodegaId });
    await asignar(bodegaId, producto.id, 12);
    const res = await request('DELETE', `/api/bodegas/${bodegaId}/productos/${producto.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ mensaje: expect.any(String), productoId: producto.id, bodegaId, cantidadRetirada: 12 });
    expect(await unidades(bodegaId, producto.id)).toBeUndefined();
    expect((await request('GET', `/api/productos/${producto.id}`)).body.bodegaId).toBeNull();
    expect((await lineasDe(bodegaId))[0]).toMatchObject({ tipo: 'SALIDA', motivo: 'RETIRO', cantidad: -12 });
    expect((await request('GET', `/api/bodegas/${bodegaId}`)).body.ocupacion).toBe(0);
  });

  test('a product only assigned is unassigned (0 units); one only stocked keeps its bodegaId elsewhere', async () => {
    const bodegaId = await crearBodega(stack);
    const otra = await crearBodega(stack);
    // Created with no units: only assigned (units it was created with would be stocked there, §10.6).
    const asignado = await crearProducto(stack, { bodegaId, cantidadEnStock: 0 });
    const res = await request('DELETE', `/api/bodegas/${bodegaId}/productos/${asignado.id}`);
    expect(res.status).toBe(200);
    expect(res.body.cantidadRetirada).toBe(0);
    expect((await request('GET', `/api/productos/${asignado.id}`)).body.bodegaId).toBeNull();

    const deOtra = await crearProducto(stack, { bodegaId: otra });
    await asignar(bodegaId, deOtra.id, 3);
    expect((await request('DELETE', `/api/bodegas/${bodegaId}/productos/${deOtra.id}`)).body.cantidadRetirada).toBe(3);
    expect((await request('GET', `/api/productos/${deOtra.id}`)).body).toMatchObject({
      bodegaId: otra,
      version: deOtra.version,
    });
  });

  test('404 when the product is neither stocked nor assigned there, or does not exist, or the warehouse does not; 400 naming productoId', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const ninguno = await request('DELETE', `/api/bodegas/${bodegaId}/productos/${producto.id}`);
    expect(ninguno.status).toBe(404);
    expect(ninguno.body.detalles).toEqual([
      { campo: 'productoId', mensaje: expect.stringContaining(`no tiene el producto ${producto.id}`) },
    ]);
    const inexistente = await request('DELETE', `/api/bodegas/${bodegaId}/productos/${MISSING_ID}`);
    expect(inexistente.body.detalles).toEqual([
      { campo: 'productoId', mensaje: `no existe el producto ${MISSING_ID}` },
    ]);
    const sinBodega = await request('DELETE', `/api/bodegas/${MISSING_ID}/productos/${producto.id}`);
    expect(sinBodega.status).toBe(404);
    expect(sinBodega.body.detalles).toEqual([{ campo: 'id', mensaje: `no existe la bodega ${MISSING_ID}` }]);
    expect(camposOf(await request('DELETE', `/api/bodegas/${bodegaId}/productos/x`))).toEqual(['productoId']);
  });

  test('a keyed removal answered 404 records no key anywhere (a failed request records nothing, §9.2), so the key still executes later', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const dbs = [createDb(stack.databaseUrls.producto), createDb(stack.databaseUrls.bodega)];
    try {
      const keys = async () =>
        Promise.all(
          dbs.map(async (db) => Number((await db('idempotency_keys').count<{ n: number }[]>({ n: '*' }))[0]!.n)),
        );
      const before = await keys();
      const key = nuevaClave();
      expect(
        (
          await request('DELETE', `/api/bodegas/${bodegaId}/productos/${producto.id}`, {
            headers: { 'idempotency-key': key },
          })
        ).status,
      ).toBe(404);
      expect(await keys()).toEqual(before);
      // Stocked since, the same key removes what is there now.
      await asignar(bodegaId, producto.id, 2);
      const later = await request('DELETE', `/api/bodegas/${bodegaId}/productos/${producto.id}`, {
        headers: { 'idempotency-key': key },
      });
      expect(later.status).toBe(200);
      expect(later.body.cantidadRetirada).toBe(2);
    } finally {
      await Promise.all(dbs.map((db) => db.destroy()));
    }
  });

  test('with Idempotency-Key a repeat answers the same 200, also when the first only unassigned', async () => {
    const bodegaId = await crearBodega(stack);
    const stocked = await crearProducto(stack, { bodegaId });
    await asignar(bodegaId, stocked.id, 5);
    const key = nuevaClave();
    const first = await request('DELETE', `/api/bodegas/${bodegaId}/productos/${stocked.id}`, {
      headers: { 'idempotency-key': key },
    });
    const repeat = await request('DELETE', `/api/bodegas/${bodegaId}/productos/${stocked.id}`, {
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(200);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(first.body);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');

    const soloAsignado = await crearProducto(stack, { bodegaId });
    const otraClave = nuevaClave();
    const primero = await request('DELETE', `/api/bodegas/${bodegaId}/productos/${soloAsignado.id}`, {
      headers: { 'idempotency-key': otraClave },
    });
    const repetido = await request('DELETE', `/api/bodegas/${bodegaId}/productos/${soloAsignado.id}`, {
      headers: { 'idempotency-key': otraClave },
    });
    expect(primero.status).toBe(200);
    expect(repetido.status).toBe(200);
    expect(repetido.body).toEqual(primero.body);
    expect(repetido.headers.get('idempotent-replayed')).toBe('true');
    // The product was written once: one unassignment, not two.
    expect((await request('GET', `/api/productos/${soloAsignado.id}`)).body.version).toBe(soloAsignado.version + 1);
    // Written again since: the repeat still answers what the first did.
    expect((await request('PUT', `/api/productos/${soloAsignado.id}`, { body: { precio: 12 } })).status).toBe(200);
    const tarde = await request('DELETE', `/api/bodegas/${bodegaId}/productos/${soloAsignado.id}`, {
      headers: { 'idempotency-key': otraClave },
    });
    expect(tarde.status).toBe(200);
    expect(tarde.body).toEqual(primero.body);
    // Without the key, the same request is what it is now: nothing there.
    expect((await request('DELETE', `/api/bodegas/${bodegaId}/productos/${soloAsignado.id}`)).status).toBe(404);
  });
});

describe('GET /api/bodegas/{id}/productos', () => {
  test('merges the assigned products with the stocked ones, in id order; a stocked one counts its units there', async () => {
    const bodegaId = await crearBodega(stack);
    const otra = await crearBodega(stack);
    const soloAsignado = await crearProducto(stack, { bodegaId, cantidadEnStock: 70 });
    const ambos = await crearProducto(stack, { bodegaId, cantidadEnStock: 80 });
    const soloStock = await crearProducto(stack, { bodegaId: otra, cantidadEnStock: 90 });
    const ajeno = await crearProducto(stack, { bodegaId: otra });
    await asignar(bodegaId, ambos.id, 8);
    await asignar(bodegaId, soloStock.id, 9);
    await asignar(otra, ajeno.id, 1);
    const res = await request('GET', `/api/bodegas/${bodegaId}/productos`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: soloAsignado.id, nombre: soloAsignado.nombre, cantidad: 70, precio: soloAsignado.precio },
      { id: ambos.id, nombre: ambos.nombre, cantidad: 8, precio: ambos.precio },
      { id: soloStock.id, nombre: soloStock.nombre, cantidad: 9, precio: soloStock.precio },
    ]);
  });

  test('a warehouse without levels answers as before the ledger: its assigned products with their cantidadEnStock', async () => {
    const bodegaId = await crearBodega(stack);
    const a = await crearProducto(stack, { bodegaId, cantidadEnStock: 4 });
    const res = await request('GET', `/api/bodegas/${bodegaId}/productos`);
    expect(res.body).toEqual([{ id: a.id, nombre: a.nombre, cantidad: 4, precio: a.precio }]);
    expect((await request('GET', `/api/bodegas/${MISSING_ID}/productos`)).status).toBe(404);
  });
});

describe('reading levels', () => {
  test('GET /api/bodegas/{id}/existencias: capacity, occupancy and every level in product order; 404 for an unknown warehouse', async () => {
    const bodegaId = await crearBodega(stack, { capacidad: 50 });
    const [a, b] = [await crearProducto(stack), await crearProducto(stack)];
    await asignar(bodegaId, b.id, 7);
    await asignar(bodegaId, a.id, 3, { umbralMinimo: 1 });
    const res = await request('GET', `/api/bodegas/${bodegaId}/existencias`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      bodegaId,
      capacidad: 50,
      ocupacion: 10,
      existencias: [
        expect.objectContaining({ bodegaId, productoId: a.id, cantidad: 3, umbralMinimo: 1, version: 1 }),
        expect.objectContaining({ bodegaId, productoId: b.id, cantidad: 7, umbralMinimo: null, version: 1 }),
      ],
    });
    const empty = await request('GET', `/api/v1/bodegas/${await crearBodega(stack, { capacidad: 5 })}/existencias`);
    expect(empty.body).toEqual({ bodegaId: expect.any(Number), capacidad: 5, ocupacion: 0, existencias: [] });
    const missing = await request('GET', `/api/bodegas/${MISSING_ID}/existencias`);
    expect(missing.status).toBe(404);
  });

  test('GET /api/bodegas/{id}/existencias/{productoId}: the level with its ETag, 304 on If-None-Match, 404 naming what is missing', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const sinNivel = await request('GET', `/api/bodegas/${bodegaId}/existencias/${producto.id}`);
    expect(sinNivel.status).toBe(404);
    expect(sinNivel.body.detalles).toEqual([
      { campo: 'productoId', mensaje: `la bodega ${bodegaId} no tiene existencias del producto ${producto.id}` },
    ]);
    expect((await request('GET', `/api/bodegas/${MISSING_ID}/existencias/${producto.id}`)).body.detalles).toEqual([
      { campo: 'id', mensaje: `no existe la bodega ${MISSING_ID}` },
    ]);
    await asignar(bodegaId, producto.id, 2);
    const res = await request('GET', `/api/bodegas/${bodegaId}/existencias/${producto.id}`);
    expect(res.headers.get('etag')).toBe('"1"');
    const cached = await request('GET', `/api/bodegas/${bodegaId}/existencias/${producto.id}`, {
      headers: { 'if-none-match': '"1"' },
    });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
    expect(camposOf(await request('GET', `/api/bodegas/${bodegaId}/existencias/0`))).toEqual(['productoId']);
  });

  test('GET /api/productos/{id}/existencias: the total and each warehouse in id order; 404 for an unknown product', async () => {
    const [b1, b2] = [await crearBodega(stack), await crearBodega(stack)];
    const producto = await crearProducto(stack);
    await asignar(b2, producto.id, 5);
    await asignar(b1, producto.id, 6);
    const res = await request('GET', `/api/productos/${producto.id}/existencias`);
    expect(res.status).toBe(200);
    // sinUbicar (added, §10.6): the units it was created with, in no warehouse.
    expect(res.body).toEqual({
      productoId: producto.id,
      total: 11,
      porBodega: [
        expect.objectContaining({ bodegaId: b1, cantidad: 6 }),
        expect.objectContaining({ bodegaId: b2, cantidad: 5 }),
      ],
      sinUbicar: producto.cantidadEnStock,
    });
    // The answer's bytes: its keys in this order (bodega-svc reads it all since issue 23).
    expect(Object.keys(res.body as object)).toEqual(['productoId', 'total', 'porBodega', 'sinUbicar']);
    const sinStock = await crearProducto(stack, { cantidadEnStock: 0 });
    expect((await request('GET', `/api/productos/${sinStock.id}/existencias`)).body).toEqual({
      productoId: sinStock.id,
      total: 0,
      porBodega: [],
      sinUbicar: 0,
    });
    const missing = await request('GET', `/api/productos/${MISSING_ID}/existencias`);
    expect(missing.status).toBe(404);
    expect(missing.body.detalles).toEqual([{ campo: 'id', mensaje: `no existe el producto ${MISSING_ID}` }]);
    expect(missing.text).toBe(
      JSON.stringify({
        error: 'NOT_FOUND',
        mensaje: `No existe el producto ${MISSING_ID}`,
        detalles: [{ campo: 'id', mensaje: `no existe el producto ${MISSING_ID}` }],
      }),
    );
  });
});

describe('POST /api/bodegas/{id}/movimientos', () => {
  test('ENTRADA and SALIDA: 201 with the operation and its line, Location of the operation, default reasons', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const entrada = await mover(bodegaId, {
      productoId: producto.id,
      tipo: 'ENTRADA',
      cantidad: 10,
      comentario: 'Albarán 7',
    });
    expect(entrada.body).toEqual({
      id: expect.any(Number),
      tipo: 'ENTRADA',
      usuario: 'tester',
      comentario: 'Albarán 7',
      fecha: expect.stringMatching(TIMESTAMP),
      revierteA: null,
      revertidaPor: null,
      movimientos: [
        {
          id: expect.any(Number),
          operacionId: entrada.body.id,
          bodegaId,
          productoId: producto.id,
          tipo: 'ENTRADA',
          motivo: 'RECEPCION',
          cantidad: 10,
          cantidadAnterior: 0,
          cantidadPosterior: 10,
          version: 1,
          usuario: 'tester',
          comentario: 'Albarán 7',
          fecha: entrada.body.fecha,
        },
      ],
    });
    expect(entrada.headers.get('location')).toBe(`/api/operaciones/${entrada.body.id}`);
    expect((await request('GET', entrada.headers.get('location')!)).body).toEqual(entrada.body);

    const salida = await request('POST', `/api/v1/bodegas/${bodegaId}/movimientos`, {
      body: { productoId: producto.id, tipo: 'SALIDA', cantidad: 4, motivo: 'MERMA' },
    });
    expect(salida.status).toBe(201);
    expect(salida.headers.get('location')).toBe(`/api/v1/operaciones/${salida.body.id}`);
    expect(salida.body.movimientos[0]).toMatchObject({
      tipo: 'SALIDA',
      motivo: 'MERMA',
      cantidad: -4,
      cantidadAnterior: 10,
      cantidadPosterior: 6,
    });
    expect(await unidades(bodegaId, producto.id)).toBe(6);
  });

  test('409 STOCK_INSUFICIENTE and CAPACIDAD_EXCEDIDA with their figures; nothing written', async () => {
    const bodegaId = await crearBodega(stack, { capacidad: 10 });
    const producto = await crearProducto(stack);
    await mover(bodegaId, { productoId: producto.id, tipo: 'ENTRADA', cantidad: 8 });
    const salida = await request('POST', `/api/bodegas/${bodegaId}/movimientos`, {
      body: { productoId: producto.id, tipo: 'SALIDA', cantidad: 9 },
    });
    expect(salida.status).toBe(409);
    expect(salida.body).toEqual({
      error: 'STOCK_INSUFICIENTE',
      mensaje: expect.any(String),
      bodegaId,
      productoId: producto.id,
      disponible: 8,
      solicitado: 9,
    });
    const entrada = await request('POST', `/api/bodegas/${bodegaId}/movimientos`, {
      body: { productoId: producto.id, tipo: 'ENTRADA', cantidad: 3 },
    });
    expect(entrada.status).toBe(409);
    expect(entrada.body).toEqual({
      error: 'CAPACIDAD_EXCEDIDA',
      mensaje: expect.any(String),
      bodegaId,
      capacidad: 10,
      ocupacion: 8,
      solicitado: 3,
    });
    expect(await unidades(bodegaId, producto.id)).toBe(8);
    expect(await lineasDe(bodegaId)).toHaveLength(1);
  });

  test('AJUSTE needs If-Match: 428 without it, 412 with a stale version, 201 with the level version (reason CONTEO)', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    await asignar(bodegaId, producto.id, 20);
    await asignar(bodegaId, producto.id, 21);
    const conteo = { productoId: producto.id, tipo: 'AJUSTE', cantidad: 17 };
    const sin = await request('POST', `/api/bodegas/${bodegaId}/movimientos`, { body: conteo });
    expect(sin.status).toBe(428);
    expect(sin.body).toEqual({
      error: 'PRECONDITION_REQUIRED',
      mensaje: expect.any(String),
      detalles: [{ campo: 'If-Match', mensaje: expect.any(String) }],
    });
    expect(
      (await request('POST', `/api/bodegas/${bodegaId}/movimientos`, { body: conteo, headers: { 'if-match': '*' } }))
        .status,
    ).toBe(428);
    const stale = await request('POST', `/api/bodegas/${bodegaId}/movimientos`, {
      body: conteo,
      headers: { 'if-match': '"1"' },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.versionActual).toBe(2);
    const ok = await mover(bodegaId, conteo, { 'if-match': '"2"' });
    expect(ok.body.movimientos[0]).toMatchObject({
      tipo: 'AJUSTE',
      motivo: 'CONTEO',
      cantidad: -4,
      cantidadPosterior: 17,
      version: 3,
    });
    expect(await lineasDe(bodegaId)).toHaveLength(3);
  });

  test('400 names every bad field: tipo, cantidad by tipo, motivo by tipo, comentario length', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const post = (body: Record<string, unknown>) =>
      request('POST', `/api/bodegas/${bodegaId}/movimientos`, { body: { productoId: producto.id, ...body } });
    expect(camposOf(await post({ tipo: 'TRANSFERENCIA', cantidad: 1 }))).toEqual(['tipo']);
    expect(camposOf(await post({ tipo: 'SALIDA', cantidad: 0 }))).toEqual(['cantidad']);
    expect(camposOf(await post({ tipo: 'ENTRADA', cantidad: 1, motivo: 'VENTA' }))).toEqual(['motivo']);
    expect(camposOf(await post({ tipo: 'ENTRADA', cantidad: 1, comentario: 'x'.repeat(501) }))).toEqual(['comentario']);
    expect(camposOf(await post({ tipo: 'ENTRADA', cantidad: 1.5, productoId: -1, extra: true }))).toEqual([
      'cantidad',
      'extra',
      'productoId',
    ]);
    expect(await lineasDe(bodegaId)).toEqual([]);
  });

  test('404 for a missing product or warehouse, naming it', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const sinProducto = await request('POST', `/api/bodegas/${bodegaId}/movimientos`, {
      body: { productoId: MISSING_ID, tipo: 'ENTRADA', cantidad: 1 },
    });
    expect(sinProducto.status).toBe(404);
    expect(sinProducto.body.detalles).toEqual([
      { campo: 'productoId', mensaje: `no existe el producto ${MISSING_ID}` },
    ]);
    const sinBodega = await request('POST', `/api/bodegas/${MISSING_ID}/movimientos`, {
      body: { productoId: producto.id, tipo: 'ENTRADA', cantidad: 1 },
    });
    expect(sinBodega.status).toBe(404);
    expect(sinBodega.body.detalles).toEqual([{ campo: 'id', mensaje: `no existe la bodega ${MISSING_ID}` }]);
  });

  test('Idempotency-Key: a repeat replays the same operation and writes no second line; another body is 422', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const key = nuevaClave();
    const body = { productoId: producto.id, tipo: 'ENTRADA', cantidad: 5 };
    const first = await mover(bodegaId, body, { 'idempotency-key': key });
    const repeat = await mover(bodegaId, body, { 'idempotency-key': key });
    expect(repeat.body).toEqual(first.body);
    expect(repeat.headers.get('location')).toBe(first.headers.get('location'));
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await unidades(bodegaId, producto.id)).toBe(5);
    expect(await lineasDe(bodegaId)).toHaveLength(1);
    const reused = await request('POST', `/api/bodegas/${bodegaId}/movimientos`, {
      body: { ...body, cantidad: 6 },
      headers: { 'idempotency-key': key },
    });
    expect(reused.status).toBe(422);
    expect(reused.body.error).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});

describe('POST /api/transferencias', () => {
  test('moves units in one operation with two lines, publishing one MovimientoRegistrado', async () => {
    const [origen, destino] = [await crearBodega(stack), await crearBodega(stack)];
    const producto = await crearProducto(stack);
    await asignar(origen, producto.id, 10);
    const res = await request('POST', '/api/transferencias', {
      body: { productoId: producto.id, origenId: origen, destinoId: destino, cantidad: 4, comentario: 'Reposición' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/operaciones/${res.body.id}`);
    expect(res.body).toMatchObject({ tipo: 'TRANSFERENCIA', comentario: 'Reposición' });
    expect(res.body.movimientos).toEqual([
      expect.objectContaining({
        bodegaId: origen,
        tipo: 'TRANSFERENCIA',
        motivo: 'TRANSFERENCIA',
        cantidad: -4,
        cantidadPosterior: 6,
      }),
      expect.objectContaining({
        bodegaId: destino,
        tipo: 'TRANSFERENCIA',
        motivo: 'TRANSFERENCIA',
        cantidad: 4,
        cantidadPosterior: 4,
      }),
    ]);
    expect([await unidades(origen, producto.id), await unidades(destino, producto.id)]).toEqual([6, 4]);
    const eventos = (await stack.settledEvents()).filter((e) => e.body.subject === `/operaciones/${res.body.id}`);
    expect(eventos.map((e) => e.body.eventType)).toEqual(['Service.Inventario.MovimientoRegistrado']);
  });

  test('400 for the same warehouse or bad fields, 404 naming origenId / destinoId / productoId, 409 with figures', async () => {
    const [origen, destino] = [await crearBodega(stack), await crearBodega(stack, { capacidad: 2 })];
    const producto = await crearProducto(stack);
    await asignar(origen, producto.id, 5);
    const post = (body: Record<string, unknown>) =>
      request('POST', '/api/transferencias', {
        body: { productoId: producto.id, origenId: origen, destinoId: destino, cantidad: 1, ...body },
      });
    expect(camposOf(await post({ destinoId: origen }))).toEqual(['destinoId']);
    expect(camposOf(await post({ cantidad: 0, origenId: 'uno' }))).toEqual(['cantidad', 'origenId']);
    expect((await post({ origenId: MISSING_ID })).body.detalles).toEqual([
      { campo: 'origenId', mensaje: `no existe la bodega ${MISSING_ID}` },
    ]);
    expect((await post({ destinoId: MISSING_ID })).body.detalles).toEqual([
      { campo: 'destinoId', mensaje: `no existe la bodega ${MISSING_ID}` },
    ]);
    expect(camposOf(await post({ productoId: MISSING_ID, origenId: MISSING_ID }))).toEqual(['origenId', 'productoId']);
    const sinStock = await post({ cantidad: 6 });
    expect(sinStock.status).toBe(409);
    expect(sinStock.body).toMatchObject({ error: 'STOCK_INSUFICIENTE', disponible: 5, solicitado: 6 });
    const sinSitio = await post({ cantidad: 3 });
    expect(sinSitio.status).toBe(409);
    expect(sinSitio.body).toMatchObject({
      error: 'CAPACIDAD_EXCEDIDA',
      bodegaId: destino,
      capacidad: 2,
      ocupacion: 0,
      solicitado: 3,
    });
    expect([await unidades(origen, producto.id), await unidades(destino, producto.id)]).toEqual([5, undefined]);
  });

  test('Idempotency-Key: a repeat replays the transfer, moving nothing more', async () => {
    const [origen, destino] = [await crearBodega(stack), await crearBodega(stack)];
    const producto = await crearProducto(stack);
    await asignar(origen, producto.id, 10);
    const key = nuevaClave();
    const body = { productoId: producto.id, origenId: origen, destinoId: destino, cantidad: 3 };
    const first = await request('POST', '/api/transferencias', { body, headers: { 'idempotency-key': key } });
    const repeat = await request('POST', '/api/transferencias', { body, headers: { 'idempotency-key': key } });
    expect(repeat.status).toBe(201);
    expect(repeat.body).toEqual(first.body);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect([await unidades(origen, producto.id), await unidades(destino, producto.id)]).toEqual([7, 3]);
    expect(
      (
        await request('POST', '/api/transferencias', {
          body: { ...body, cantidad: 4 },
          headers: { 'idempotency-key': key },
        })
      ).status,
    ).toBe(422);
  });
});

describe('operations and their reversal', () => {
  test('POST /api/operaciones/{id}/reverso writes the compensating lines once; the original then names it', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const entrada = await mover(bodegaId, { productoId: producto.id, tipo: 'ENTRADA', cantidad: 9 });
    const reverso = await request('POST', `/api/operaciones/${entrada.body.id}/reverso`, {
      body: { comentario: 'Error de albarán' },
    });
    expect(reverso.status).toBe(201);
    expect(reverso.headers.get('location')).toBe(`/api/operaciones/${reverso.body.id}`);
    expect(reverso.body).toMatchObject({ tipo: 'REVERSO', revierteA: entrada.body.id, comentario: 'Error de albarán' });
    expect(reverso.body.movimientos).toEqual([
      expect.objectContaining({ tipo: 'ENTRADA', motivo: 'REVERSO', cantidad: -9, cantidadPosterior: 0 }),
    ]);
    expect((await request('GET', `/api/operaciones/${entrada.body.id}`)).body.revertidaPor).toBe(reverso.body.id);

    const otra = await request('POST', `/api/operaciones/${entrada.body.id}/reverso`);
    expect(otra.status).toBe(409);
    expect(otra.body).toMatchObject({
      error: 'OPERACION_YA_REVERTIDA',
      operacionId: entrada.body.id,
      revertidaPor: reverso.body.id,
    });
    const deReverso = await request('POST', `/api/operaciones/${reverso.body.id}/reverso`);
    expect(deReverso.status).toBe(409);
    expect(deReverso.body.error).toBe('OPERACION_NO_REVERSIBLE');
  });

  test('a reversal that would leave a level below zero is 409 STOCK_INSUFICIENTE', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const entrada = await mover(bodegaId, { productoId: producto.id, tipo: 'ENTRADA', cantidad: 5 });
    await mover(bodegaId, { productoId: producto.id, tipo: 'SALIDA', cantidad: 3 });
    const res = await request('POST', `/api/operaciones/${entrada.body.id}/reverso`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'STOCK_INSUFICIENTE', disponible: 2, solicitado: 5 });
  });

  test('404 naming id for an unknown operation; 400 for a bad id or body; keyed repeat replays', async () => {
    const missing = await request('GET', `/api/operaciones/${MISSING_ID}`);
    expect(missing.status).toBe(404);
    expect(missing.body.detalles).toEqual([{ campo: 'id', mensaje: `no existe la operación ${MISSING_ID}` }]);
    const reverso = await request('POST', `/api/operaciones/${MISSING_ID}/reverso`);
    expect(reverso.status).toBe(404);
    expect(reverso.body.detalles).toEqual([{ campo: 'id', mensaje: `no existe la operación ${MISSING_ID}` }]);
    expect(camposOf(await request('GET', '/api/operaciones/0'))).toEqual(['id']);
    expect(camposOf(await request('POST', '/api/operaciones/1/reverso', { body: { motivo: 'x' } }))).toEqual([
      'motivo',
    ]);

    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const entrada = await mover(bodegaId, { productoId: producto.id, tipo: 'ENTRADA', cantidad: 2 });
    const key = nuevaClave();
    const first = await request('POST', `/api/operaciones/${entrada.body.id}/reverso`, {
      headers: { 'idempotency-key': key },
    });
    const repeat = await request('POST', `/api/operaciones/${entrada.body.id}/reverso`, {
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    expect(repeat.status).toBe(201);
    expect(repeat.body).toEqual(first.body);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('GET /api/movimientos', () => {
  let bodegaId: number;
  let productos: ProductoRest[];
  /** Operation ids in the order they were written. */
  const escritas: number[] = [];

  beforeAll(async () => {
    bodegaId = await crearBodega(stack);
    productos = [await crearProducto(stack), await crearProducto(stack)];
    for (const [i, producto] of [productos[0]!, productos[1]!, productos[0]!, productos[1]!, productos[0]!].entries()) {
      escritas.push(
        (await mover(bodegaId, { productoId: producto.id, tipo: 'ENTRADA', cantidad: i + 1 })).body.id as number,
      );
    }
    escritas.push(
      (await mover(bodegaId, { productoId: productos[0]!.id, tipo: 'SALIDA', cantidad: 1 })).body.id as number,
    );
  });

  test('newest first, walked in pages with the cursor, the last page without one', async () => {
    const seen: number[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const res: StackResponse = await request(
        'GET',
        `/api/movimientos?bodegaId=${bodegaId}&limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.status).toBe(200);
      seen.push(...operacionesDe(res));
      sizes.push(operacionesDe(res).length);
      cursor = res.body.siguienteCursor as string | null;
    } while (cursor !== null);
    expect(seen).toEqual([...escritas].reverse());
    expect(sizes).toEqual([4, 2]);
  });

  test('filters by product, type and dates', async () => {
    const deUno = await request('GET', `/api/movimientos?bodegaId=${bodegaId}&productoId=${productos[1]!.id}`);
    expect(operacionesDe(deUno)).toEqual([escritas[3], escritas[1]]);
    expect(deUno.body.siguienteCursor).toBeNull();
    const salidas = await request('GET', `/api/movimientos?bodegaId=${bodegaId}&tipo=SALIDA`);
    expect(operacionesDe(salidas)).toEqual([escritas[5]]);
    expect(
      (await request('GET', `/api/movimientos?bodegaId=${bodegaId}&desde=2000-01-01&hasta=2999-12-31T23:59:59Z`)).body
        .movimientos,
    ).toHaveLength(6);
    expect(
      (await request('GET', `/api/movimientos?bodegaId=${bodegaId}&hasta=2000-01-01T00:00:00`)).body.movimientos,
    ).toEqual([]);
    expect((await request('GET', `/api/movimientos?bodegaId=${bodegaId}&desde=2999-01-01`)).body).toEqual({
      movimientos: [],
      siguienteCursor: null,
    });
  });

  test.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['tipo=RETIRO', 'tipo'],
    ['desde=2026-02-30', 'desde'],
    ['hasta=2026-11-25T24:00:00', 'hasta'],
    ['desde=25/11/2026', 'desde'],
    ['bodegaId=0', 'bodegaId'],
    ['productoId=x', 'productoId'],
    ['cursor=no-es-un-cursor', 'cursor'],
    ['bodega=1', 'bodega'],
    ['limit=1&limit=2', 'limit'],
  ])('400 naming the parameter for %s', async (query, campo) => {
    const res = await request('GET', `/api/movimientos?${query}`);
    expect(res.status).toBe(400);
    expect(camposOf(res)).toEqual([campo]);
  });
});

describe('the rest of the ledger', () => {
  test('GET /api/existencias/verificacion: consistent after these writes', async () => {
    const res = await request('GET', '/api/existencias/verificacion');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      consistente: true,
      diferencias: [],
      diferenciasReservas: [],
      nivelesVerificados: expect.any(Number),
      bodegasVerificadas: expect.any(Number),
      verificadoEn: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
    });
    expect(res.body.nivelesVerificados).toBeGreaterThan(0);
  });

  test('PUT /api/bodegas/{id} below the occupancy is 409 CAPACIDAD_INSUFICIENTE with its figures; nothing changes', async () => {
    const bodegaId = await crearBodega(stack, { capacidad: 20 });
    const producto = await crearProducto(stack);
    await asignar(bodegaId, producto.id, 12);
    const res = await request('PUT', `/api/bodegas/${bodegaId}`, { body: { capacidad: 11 } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: 'CAPACIDAD_INSUFICIENTE',
      mensaje: expect.any(String),
      capacidad: 11,
      ocupacion: 12,
    });
    expect((await request('GET', `/api/bodegas/${bodegaId}`)).body).toMatchObject({
      capacidad: 20,
      ocupacion: 12,
      version: 1,
    });
    expect((await request('PUT', `/api/bodegas/${bodegaId}`, { body: { capacidad: 12 } })).status).toBe(200);
  });

  test('a warehouse body copied from a GET can be sent back: ocupacion is read-only', async () => {
    const bodegaId = await crearBodega(stack);
    const read = await request('GET', `/api/bodegas/${bodegaId}`);
    const res = await request('PUT', `/api/bodegas/${bodegaId}`, {
      body: { ...read.body, nombre: uniqueNombre('Copiada') },
    });
    expect(res.status).toBe(200);
  });
});
