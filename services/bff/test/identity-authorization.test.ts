/**
 * Authorization at the gateway (issue 26 phase 2, docs/contract.md §12.7):
 * the policy table over the use cases, judged through REST and GraphQL
 * alike, for users scoped to warehouses, against the real services,
 * identidad-svc, MariaDB and NATS.
 */
import type { Metadata } from '@grpc/grpc-js';
import { crearBodega, crearProducto } from '@inventario/testkit';
import {
  basicAuth,
  startTestStack,
  TEST_PASSWORD,
  TEST_USER,
  type StackResponse,
  type TestStack,
} from './support/stack';

jest.setTimeout(120_000);

const MISSING = 987_654;
const PASSWORD = 'una-password-de-prueba-1';

describe('authorization with warehouse-scoped roles', () => {
  let stack: TestStack;
  let admin: Metadata;
  let a: number;
  let b: number;
  let c: number;
  let productoId: number;
  let transferencia: number;
  const auth = (usuario: string) => basicAuth(usuario, PASSWORD);

  async function crearUsuario(usuario: string, asignaciones: { rol: string; bodegaId?: number }[]): Promise<void> {
    await stack.identidad!.rpc.createUsuario({ usuario, password: PASSWORD, tipo: 1, asignaciones }, admin);
  }

  const as = (usuario: string, method: string, path: string, body?: unknown) =>
    stack.request(method, path, { auth: auth(usuario), body });

  /** An out-of-scope answer must be the missing id's, with only the id differing. */
  function expectSameAsMissing(hidden: StackResponse, missing: StackResponse, id: number): void {
    expect(hidden.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(hidden.text).toBe(missing.text.replaceAll(String(MISSING), String(id)));
    expect(hidden.headers.get('content-type')).toBe(missing.headers.get('content-type'));
    expect(hidden.headers.get('content-length')).toBe(String(Buffer.byteLength(hidden.text)));
  }

  beforeAll(async () => {
    // The services check every call too (REQUIRE_PRINCIPAL, docs/contract.md §12.9): the answers hold with them.
    stack = await startTestStack('bff_idauthz', {
      identidad: true,
      serviciosExigenPrincipal: true,
      env: { AUTH_FAILURES_PER_15_MIN: '0' },
    });
    admin = await stack.identidad!.como(TEST_USER, TEST_PASSWORD);
    [a, b, c] = [await crearBodega(stack), await crearBodega(stack), await crearBodega(stack)];
    productoId = (await crearProducto(stack, { cantidadEnStock: 0 })).id;
    for (const bodega of [a, b, c]) {
      const res = await stack.request('POST', `/api/bodegas/${bodega}/movimientos`, {
        body: { productoId, tipo: 'ENTRADA', cantidad: 10 },
      });
      expect(res.status).toBe(201);
    }
    await crearUsuario('sin.rol', []);
    await crearUsuario('lector.a', [{ rol: 'LECTOR', bodegaId: a }]);
    await crearUsuario('operador.ab', [
      { rol: 'OPERADOR', bodegaId: a },
      { rol: 'OPERADOR', bodegaId: b },
    ]);
    await crearUsuario('supervisor.a', [{ rol: 'SUPERVISOR', bodegaId: a }]);
    await crearUsuario('supervisor.ab', [
      { rol: 'SUPERVISOR', bodegaId: a },
      { rol: 'SUPERVISOR', bodegaId: b },
    ]);
    const res = await as('operador.ab', 'POST', '/api/transferencias', {
      productoId,
      origenId: a,
      destinoId: b,
      cantidad: 2,
    });
    expect(res.status).toBe(201);
    transferencia = res.body.id as number;
  });

  afterAll(() => stack?.close());

  it('a user with no binding can do and see nothing', async () => {
    const productos = await as('sin.rol', 'GET', '/api/productos');
    expect(productos.status).toBe(403);
    expect(productos.body).toEqual({
      error: 'FORBIDDEN',
      mensaje: 'No tiene el permiso productos:leer',
      permiso: 'productos:leer',
    });
    const bodegas = await as('sin.rol', 'GET', '/api/bodegas');
    expect(bodegas.status).toBe(200);
    expect(bodegas.body).toEqual([]);
    expectSameAsMissing(
      await as('sin.rol', 'GET', `/api/bodegas/${a}`),
      await as('sin.rol', 'GET', `/api/bodegas/${MISSING}`),
      a,
    );
    expect((await as('sin.rol', 'POST', '/api/productos', { nombre: 'X', precio: 1, cantidadEnStock: 0 })).status).toBe(
      403,
    );
  });

  it('lists only the warehouses in scope', async () => {
    const res = await as('lector.a', 'GET', '/api/bodegas');
    expect(res.status).toBe(200);
    expect((res.body as { id: number }[]).map((x) => x.id)).toEqual([a]);
    const ab = await as('operador.ab', 'GET', '/api/bodegas');
    expect((ab.body as { id: number }[]).map((x) => x.id).sort((x, y) => x - y)).toEqual([a, b].sort((x, y) => x - y));
    const all = await stack.request('GET', '/api/bodegas');
    expect((all.body as { id: number }[]).map((x) => x.id)).toEqual(expect.arrayContaining([a, b, c]));
  });

  it.each([
    ['the warehouse', (id: number) => `/api/bodegas/${id}`],
    ['its products', (id: number) => `/api/bodegas/${id}/productos`],
    ['its levels', (id: number) => `/api/bodegas/${id}/existencias`],
  ])('an out-of-scope read of %s answers exactly as a missing id', async (_what, path) => {
    expect((await as('lector.a', 'GET', path(a))).status).toBe(200);
    expectSameAsMissing(await as('lector.a', 'GET', path(b)), await as('lector.a', 'GET', path(MISSING)), b);
  });

  it("a product's levels and total count only the warehouses in scope", async () => {
    const res = await as('lector.a', 'GET', `/api/productos/${productoId}/existencias`);
    expect(res.status).toBe(200);
    expect((res.body.porBodega as { bodegaId: number }[]).map((e) => e.bodegaId)).toEqual([a]);
    expect(res.body.total).toBe(8);
    const admin = await stack.request('GET', `/api/productos/${productoId}/existencias`);
    expect(admin.body.total).toBe(30);
  });

  it('a write the caller may read but not do is 403 naming the permission and the warehouse', async () => {
    const res = await as('lector.a', 'POST', `/api/bodegas/${a}/movimientos`, {
      productoId,
      tipo: 'ENTRADA',
      cantidad: 1,
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: 'FORBIDDEN',
      mensaje: `No tiene el permiso existencias:mover en la bodega ${a}`,
      permiso: 'existencias:mover',
      bodegaId: String(a),
    });
    // An AJUSTE names the level's version (else 428, a check of the request's form, before any decision).
    const ajuste = await stack.request('POST', `/api/bodegas/${a}/movimientos`, {
      auth: auth('operador.ab'),
      headers: { 'if-match': '"1"' },
      body: { productoId, tipo: 'AJUSTE', cantidad: 1 },
    });
    expect(ajuste.status).toBe(403);
    expect(ajuste.body.permiso).toBe('existencias:ajustar');
  });

  it('a transfer needs both ends: out of scope on one end it is refused and nothing moves', async () => {
    const before = await stack.request('GET', `/api/productos/${productoId}/existencias`);
    const toC = await as('operador.ab', 'POST', '/api/transferencias', {
      productoId,
      origenId: a,
      destinoId: c,
      cantidad: 1,
    });
    expect(toC.status).toBe(404);
    const supervisor = await as('supervisor.a', 'POST', '/api/transferencias', {
      productoId,
      origenId: a,
      destinoId: b,
      cantidad: 1,
    });
    expect(supervisor.status).toBe(404);
    const after = await stack.request('GET', `/api/productos/${productoId}/existencias`);
    expect(after.body).toEqual(before.body);
  });

  it('a reversal needs every warehouse of its lines', async () => {
    expectSameAsMissing(
      await as('supervisor.a', 'GET', `/api/operaciones/${transferencia}`),
      await as('supervisor.a', 'GET', `/api/operaciones/${MISSING}`),
      transferencia,
    );
    const refused = await as('supervisor.a', 'POST', `/api/operaciones/${transferencia}/reverso`, {});
    expect(refused.status).toBe(404);
    const refusedOperator = await as('operador.ab', 'POST', `/api/operaciones/${transferencia}/reverso`, {});
    expect(refusedOperator.status).toBe(403);
    expect(refusedOperator.body.permiso).toBe('operaciones:revertir');
    const done = await as('supervisor.ab', 'POST', `/api/operaciones/${transferencia}/reverso`, {});
    expect(done.status).toBe(201);
  });

  it('the ledger lists only lines in scope; a filter on an out-of-scope warehouse is an empty page', async () => {
    const mine = await as('lector.a', 'GET', '/api/movimientos');
    expect(mine.status).toBe(200);
    const items = mine.body.movimientos as { bodegaId: number; usuario: string }[];
    expect(items.length).toBeGreaterThan(0);
    expect(new Set(items.map((m) => m.bodegaId))).toEqual(new Set([a]));
    const other = await as('lector.a', 'GET', `/api/movimientos?bodegaId=${b}`);
    expect(other.status).toBe(200);
    expect(other.body.movimientos).toEqual([]);
    // Lines carry the real user's name.
    expect(items.some((m) => m.usuario === 'operador.ab')).toBe(true);
  });

  it('forced delete of a warehouse is refused to anyone without the global permission', async () => {
    const res = await as('supervisor.ab', 'DELETE', `/api/bodegas/${a}?force=true`);
    expect(res.status).toBe(403);
    expect(res.body.permiso).toBe('bodegas:eliminar');
    expect((await stack.request('GET', `/api/bodegas/${a}`)).status).toBe(200);
  });

  it('GraphQL decides with the same table: lists and nested lists leave out what is out of scope, a hidden id reads as missing', async () => {
    const query = async (q: string) => as('lector.a', 'POST', '/api/graphql', { query: q });
    const bodegas = await query('{ bodegas { id } }');
    expect(bodegas.body.data.bodegas).toEqual([{ id: String(a) }]);
    const hidden = await query(`{ bodega(id: "${b}") { id } }`);
    const missing = await query(`{ bodega(id: "${MISSING}") { id } }`);
    expect(JSON.stringify(hidden.body).replaceAll(String(b), 'X')).toBe(
      JSON.stringify(missing.body).replaceAll(String(MISSING), 'X'),
    );
    const nested = await query('{ bodegas { id existencias { bodegaId productoId } } }');
    expect(nested.body.errors).toBeUndefined();
    expect(nested.body.data.bodegas).toEqual([
      { id: String(a), existencias: [{ bodegaId: String(a), productoId: String(productoId) }] },
    ]);
    // Products are global records: a binding on one warehouse does not read them (docs/contract.md §12.2).
    const producto = await query(`{ producto(id: "${productoId}") { id } }`);
    expect(producto.body.errors[0].extensions.classification).toBe('FORBIDDEN');
    const mutation = await query(
      `mutation { crearBodega(input: { nombre: "Nueva", ubicacion: "Lugo", capacidad: 5 }) { success error bodega { id } } }`,
    );
    expect(mutation.body.data.crearBodega).toMatchObject({ success: false, bodega: null });
    expect(mutation.body.data.crearBodega.error).toContain('bodegas:escribir');
  });
  it("reservations are made, read, released and listed only within the caller's warehouses", async () => {
    const linea = (bodegaId: number) => [{ bodegaId, productoId, cantidad: 1 }];
    const lector = await as('lector.a', 'POST', '/api/reservas', { referencia: 'authz-lector', lineas: linea(a) });
    expect(lector.status).toBe(403);
    expect(lector.body).toMatchObject({ error: 'FORBIDDEN', permiso: 'existencias:mover', bodegaId: String(a) });
    const fuera = await as('operador.ab', 'POST', '/api/reservas', { referencia: 'authz-fuera', lineas: linea(c) });
    expectSameAsMissing(fuera, await as('operador.ab', 'GET', `/api/bodegas/${MISSING}`), c);

    const enC = await stack.request('POST', '/api/reservas', { body: { referencia: 'authz-c', lineas: linea(c) } });
    expect(enC.status).toBe(201);
    const enA = await as('operador.ab', 'POST', '/api/reservas', { referencia: 'authz-a', lineas: linea(a) });
    expect(enA.status).toBe(201);
    const idC = enC.body.id as number;
    const idA = enA.body.id as number;

    expectSameAsMissing(
      await as('operador.ab', 'GET', `/api/reservas/${idC}`),
      await as('operador.ab', 'GET', `/api/reservas/${MISSING}`),
      idC,
    );
    expect((await as('operador.ab', 'POST', `/api/reservas/${idC}/liberacion`)).status).toBe(404);
    const lista = await as('operador.ab', 'GET', '/api/reservas');
    expect(lista.status).toBe(200);
    const ids = (lista.body.reservas as { id: number }[]).map((r) => r.id);
    expect(ids).toContain(idA);
    expect(ids).not.toContain(idC);

    expect((await as('lector.a', 'GET', `/api/reservas/${idA}`)).status).toBe(200);
    const liberar = await as('lector.a', 'POST', `/api/reservas/${idA}/liberacion`);
    expect(liberar.status).toBe(403);
    expect(liberar.body).toMatchObject({ error: 'FORBIDDEN', permiso: 'existencias:mover', bodegaId: String(a) });
    // Nothing was released by the refused calls.
    expect((await stack.request('GET', `/api/reservas/${idC}`)).body.estado).toBe('ACTIVA');
    expect((await stack.request('GET', `/api/reservas/${idA}`)).body.estado).toBe('ACTIVA');
  });
});
