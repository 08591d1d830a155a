/**
 * The reservation routes of docs/contract.md §13.2 through the BFF, across the real producto-svc
 * and bodega-svc (MariaDB, NATS): a reservation's life as the README shows it with curl, each
 * route's errors, and every response checked against the OpenAPI document, with every status
 * of these routes that a client can provoke seen here.
 */
import { createOpenApiValidator, operationKey } from './support/openapi-validator';
import { crearBodega, crearProducto } from '@inventario/testkit';
import { startTestStack, type StackRequestOptions, type StackResponse, type TestStack } from './support/stack';

const validator = createOpenApiValidator();
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('bff_reservas');
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

async function call(
  method: string,
  path: string,
  status: number,
  options?: StackRequestOptions,
): Promise<StackResponse> {
  const res = await stack.request(method, path, options);
  validator.assertResponse({ method, path, status: res.status, headers: res.headers, body: res.body, text: res.text });
  if (res.status !== status)
    throw new Error(`${method} ${path}: expected ${status}, got ${res.status} ${res.text.slice(0, 500)}`);
  return res;
}

/** The ids of a list answer, in its order. */
const idsDe = (res: StackResponse) => (res.body.reservas as { id: number }[]).map((r) => r.id);
let seq = 0;
/** An instant 30 s after a REST expiraEn, in the same form. */
const masTarde = (expiraEn: string) => new Date(Date.parse(`${expiraEn}Z`) + 30_000).toISOString().slice(0, 19);
const referencia = () => `pedido-${Date.now().toString(36)}-${++seq}`;

/** A warehouse holding `cantidad` units of a new product. */
async function nivel(cantidad: number): Promise<{ bodegaId: number; productoId: number }> {
  const bodegaId = await crearBodega(stack, { capacidad: 1000 });
  const { id: productoId } = await crearProducto(stack, { cantidadEnStock: 0 });
  await call('POST', `/api/bodegas/${bodegaId}/productos`, 200, { body: { productoId, cantidad } });
  return { bodegaId, productoId };
}

describe('a reservation through REST', () => {
  it('reserve, see disponible, consume part, release the rest (the README life), under /api and /api/v1', async () => {
    const { bodegaId, productoId } = await nivel(10);
    const creada = await call('POST', '/api/reservas', 201, {
      body: { referencia: referencia(), ttlSegundos: 600, lineas: [{ bodegaId, productoId, cantidad: 4 }] },
      headers: { 'idempotency-key': `reserva-${seq}` },
    });
    expect(creada.body).toMatchObject({
      estado: 'ACTIVA',
      version: 1,
      usuario: 'tester',
      lineas: [{ bodegaId, productoId, cantidad: 4, retenida: 4 }],
    });
    expect(creada.headers.get('etag')).toBe('"1"');
    expect(creada.headers.get('location')).toBe(`/api/reservas/${creada.body.id}`);
    const id = creada.body.id as number;

    const level = await call('GET', `/api/bodegas/${bodegaId}/existencias/${productoId}`, 200);
    expect(level.body).toMatchObject({ cantidad: 10, reservada: 4, disponible: 6 });

    const consumo = await call('POST', `/api/v1/reservas/${id}/consumo`, 200, {
      body: { lineas: [{ lineaId: creada.body.lineas[0].id, cantidad: 3 }] },
    });
    expect(consumo.body).toMatchObject({ estado: 'ACTIVA', version: 2, lineas: [{ consumida: 3, retenida: 1 }] });
    const op = await call('GET', `/api/operaciones/${consumo.body.operacionId}`, 200);
    expect(op.body.movimientos).toMatchObject([{ tipo: 'SALIDA', motivo: 'VENTA', cantidad: -3 }]);

    const liberada = await call('POST', `/api/reservas/${id}/liberacion`, 200, { headers: { 'if-match': '"2"' } });
    expect(liberada.body).toMatchObject({ estado: 'LIBERADA', lineas: [{ consumida: 3, retenida: 0 }] });
    expect((await call('GET', `/api/bodegas/${bodegaId}/existencias/${productoId}`, 200)).body).toMatchObject({
      cantidad: 7,
      reservada: 0,
      disponible: 7,
    });
    // A repeat answers the state; consuming a released one is 409 naming its state.
    expect((await call('POST', `/api/reservas/${id}/liberacion`, 200)).body.estado).toBe('LIBERADA');
    expect((await call('POST', `/api/reservas/${id}/consumo`, 409)).body).toMatchObject({
      error: 'RESERVA_LIBERADA',
      estado: 'LIBERADA',
    });
    // Releasing a consumed one is 409 naming its state.
    const otra = await call('POST', '/api/reservas', 201, {
      body: { referencia: referencia(), lineas: [{ bodegaId, productoId, cantidad: 1 }] },
    });
    await call('POST', `/api/reservas/${otra.body.id}/consumo`, 200);
    expect((await call('POST', `/api/reservas/${otra.body.id}/liberacion`, 409)).body).toMatchObject({
      error: 'RESERVA_CONSUMIDA',
      estado: 'CONSUMIDA',
    });

    const got = await call('GET', `/api/reservas/${id}`, 200);
    expect(got.body.estado).toBe('LIBERADA');
    await call('GET', `/api/reservas/${id}`, 304, { headers: { 'if-none-match': got.headers.get('etag')! } });
    const lista = await call(
      'GET',
      `/api/reservas?referencia=${encodeURIComponent(creada.body.referencia as string)}&estado=LIBERADA`,
      200,
    );
    expect(idsDe(lista)).toEqual([id]);
    // Two of this product, newest first, a page of one at a time.
    const primera = await call('GET', `/api/reservas?productoId=${productoId}&limit=1`, 200);
    expect(idsDe(primera)).toEqual([otra.body.id]);
    const segunda = await call(
      'GET',
      `/api/reservas?productoId=${productoId}&limit=1&cursor=${primera.body.siguienteCursor}`,
      200,
    );
    expect(idsDe(segunda)).toEqual([id]);
  });

  it('refuses what it must: 409 STOCK_INSUFICIENTE with lineas, RESERVA_ACTIVA_EXISTENTE; an exit into held units 409 STOCK_RESERVADO', async () => {
    const { bodegaId, productoId } = await nivel(5);
    const insuficiente = await call('POST', '/api/reservas', 409, {
      body: {
        referencia: referencia(),
        lineas: [
          { bodegaId, productoId, cantidad: 3 },
          { bodegaId, productoId, cantidad: 3 },
        ],
      },
    });
    expect(insuficiente.body).toMatchObject({
      error: 'STOCK_INSUFICIENTE',
      lineas: [{ bodegaId, productoId, solicitado: 6, disponible: 5 }],
    });
    const ref = referencia();
    await call('POST', '/api/reservas', 201, {
      body: { referencia: ref, lineas: [{ bodegaId, productoId, cantidad: 3 }] },
    });
    expect(
      (
        await call('POST', '/api/reservas', 409, {
          body: { referencia: ref, lineas: [{ bodegaId, productoId, cantidad: 1 }] },
        })
      ).body.error,
    ).toBe('RESERVA_ACTIVA_EXISTENTE');
    const salida = await call('POST', `/api/bodegas/${bodegaId}/movimientos`, 409, {
      body: { productoId, tipo: 'SALIDA', cantidad: 3 },
    });
    expect(salida.body).toMatchObject({ error: 'STOCK_RESERVADO', disponible: 2, reservada: 3 });
  });

  it('answers 400 naming the field, 404 for an unknown reservation or warehouse, 412/428 on the version, 422 for a reused key, 401 without credentials', async () => {
    const { bodegaId, productoId } = await nivel(5);
    const malo = await call('POST', '/api/reservas', 400, {
      body: { referencia: '', lineas: [{ bodegaId, productoId, cantidad: 0 }] },
    });
    expect((malo.body.detalles as { campo: string }[]).map((d) => d.campo).sort()).toEqual([
      'lineas.0.cantidad',
      'referencia',
    ]);
    await call('GET', '/api/reservas?estado=RARA', 400);
    await call('GET', '/api/reservas/abc', 400);
    await call('POST', '/api/reservas/abc/liberacion', 400);
    await call('GET', '/api/reservas/4000000000', 404);
    await call('POST', '/api/reservas/4000000000/consumo', 404);
    await call('POST', '/api/reservas/4000000000/liberacion', 404);
    await call('PATCH', '/api/reservas/4000000000', 404, {
      body: { expiraEn: '2099-01-01T00:00:00' },
      headers: { 'if-match': '"1"' },
    });
    await call('POST', '/api/reservas', 404, {
      body: { referencia: referencia(), lineas: [{ bodegaId: 2_000_000_000, productoId, cantidad: 1 }] },
    });
    const r = await call('POST', '/api/reservas', 201, {
      body: { referencia: referencia(), ttlSegundos: 60, lineas: [{ bodegaId, productoId, cantidad: 1 }] },
    });
    const id = r.body.id as number;
    await call('PATCH', `/api/reservas/${id}`, 428, { body: { expiraEn: '2099-01-01T00:00:00' } });
    await call('PATCH', `/api/reservas/${id}`, 412, {
      body: { expiraEn: '2099-01-01T00:00:00' },
      headers: { 'if-match': '"9"' },
    });
    await call('PATCH', `/api/reservas/${id}`, 400, { body: { expiraEn: 'mañana' }, headers: { 'if-match': '"1"' } });
    const extendida = await call('PATCH', `/api/reservas/${id}`, 200, {
      body: { expiraEn: masTarde(r.body.expiraEn as string) },
      headers: { 'if-match': '"1"' },
    });
    expect(extendida.body.version).toBe(2);
    await call('POST', `/api/reservas/${id}/consumo`, 412, { headers: { 'if-match': '"1"' } });
    await call('POST', `/api/reservas/${id}/liberacion`, 412, { headers: { 'if-match': '"1"' } });
    await call('POST', `/api/reservas/${id}/consumo`, 400, { body: { lineas: [{ lineaId: 0, cantidad: 1 }] } });
    // Past the maximum (7 days) is a 400 naming expiraEn.
    await call('PATCH', `/api/reservas/${id}`, 400, {
      body: { expiraEn: '2099-01-01T00:00:00' },
      headers: { 'if-match': '"2"' },
    });
    await call('POST', `/api/reservas/${id}/liberacion`, 200);
    // No longer active: 409 naming its state.
    expect(
      (
        await call('PATCH', `/api/reservas/${id}`, 409, {
          body: { expiraEn: '2099-01-01T00:00:00' },
          headers: { 'if-match': '"3"' },
        })
      ).body.error,
    ).toBe('RESERVA_LIBERADA');
    // A key reused for another request of the same route is a 422, on every keyed route (a refusal records nothing).
    const nueva = () =>
      call('POST', '/api/reservas', 201, {
        body: { referencia: referencia(), ttlSegundos: 60, lineas: [{ bodegaId, productoId, cantidad: 1 }] },
      });
    const [a, b] = [await nueva(), await nueva()];
    const k = (n: string) => ({ 'idempotency-key': `${n}-${Date.now().toString(36)}` });
    const [kc, kl, kp] = [k('consumo'), k('liberacion'), k('patch')];
    await call('PATCH', `/api/reservas/${a.body.id}`, 200, {
      body: { expiraEn: masTarde(a.body.expiraEn as string) },
      headers: { 'if-match': '"1"', ...kp },
    });
    await call('PATCH', `/api/reservas/${b.body.id}`, 422, {
      body: { expiraEn: masTarde(b.body.expiraEn as string) },
      headers: { 'if-match': '"1"', ...kp },
    });
    await call('POST', `/api/reservas/${a.body.id}/consumo`, 200, { headers: kc });
    await call('POST', `/api/reservas/${b.body.id}/consumo`, 422, { headers: kc });
    await call('POST', `/api/reservas/${b.body.id}/liberacion`, 200, { headers: kl });
    await call('POST', `/api/reservas/${a.body.id}/liberacion`, 422, { headers: kl });
    const key = `clave-${Date.now().toString(36)}`;
    await call('POST', '/api/reservas', 201, {
      body: { referencia: referencia(), lineas: [{ bodegaId, productoId, cantidad: 1 }] },
      headers: { 'idempotency-key': key },
    });
    await call('POST', '/api/reservas', 422, {
      body: { referencia: referencia(), lineas: [{ bodegaId, productoId, cantidad: 2 }] },
      headers: { 'idempotency-key': key },
    });
    for (const [method, path] of [
      ['GET', '/api/reservas'],
      ['POST', '/api/reservas'],
      ['GET', `/api/reservas/${id}`],
      ['PATCH', `/api/reservas/${id}`],
      ['POST', `/api/reservas/${id}/consumo`],
      ['POST', `/api/reservas/${id}/liberacion`],
    ] as const) {
      await call(method, path, 401, { auth: false });
    }
  });
});

describe('coverage of the reservation routes in the document', () => {
  it('every status of these routes a client can provoke was seen here', () => {
    // 500, 503, 504 and 429 need faults (openapi-failures.test.ts); 409 IDEMPOTENCY_KEY_IN_USE needs two requests at once; 413 and 415
    // are the JSON body's, the same middleware as every other route (openapi-contract.test.ts).
    // 403 is the identity mode's (its tests provoke it; reservations are not yet authorized per warehouse there).
    const elsewhere = new Set([500, 503, 504, 429, 413, 415, 403]);
    const missing: string[] = [];
    for (const operation of validator.operations().filter((o) => o.path.startsWith('/api/reservas'))) {
      const seen = validator.exercised().get(operationKey(operation.method, operation.path)) ?? new Set<number>();
      for (const status of operation.statuses)
        if (!seen.has(status) && !elsewhere.has(status))
          missing.push(`${operationKey(operation.method, operation.path)} ${status}`);
    }
    expect(missing).toEqual([]);
  });
});

describe('the GraphQL mirror', () => {
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await stack.request('POST', '/api/graphql', { body: { query, variables } });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    return res.body.data as Record<string, Record<string, unknown>>;
  };
  const RESERVA = 'id estado version lineas { id cantidad consumida retenida }';

  it('creates, reads, consumes and releases as REST does; failures are data with the REST code', async () => {
    const { bodegaId, productoId } = await nivel(5);
    const lineas = [{ bodegaId: String(bodegaId), productoId: String(productoId), cantidad: 2 }];
    const creada = await gql(
      `mutation($input: ReservaInput!) { crearReserva(input: $input) { success error reserva { ${RESERVA} } } }`,
      {
        input: { referencia: referencia(), lineas },
      },
    );
    expect(creada.crearReserva).toMatchObject({
      success: true,
      error: null,
      reserva: { estado: 'ACTIVA', version: 1, lineas: [{ cantidad: 2, retenida: 2 }] },
    });
    const id = (creada.crearReserva!.reserva as { id: string }).id;
    const leida = await gql(
      `query($id: ID!, $b: ID!, $p: ID!) { reserva(id: $id) { estado } existencia(bodegaId: $b, productoId: $p) { cantidad reservada disponible } }`,
      {
        id,
        b: String(bodegaId),
        p: String(productoId),
      },
    );
    expect(leida).toEqual({ reserva: { estado: 'ACTIVA' }, existencia: { cantidad: 5, reservada: 2, disponible: 3 } });
    const insuficiente = await gql(
      `mutation($input: ReservaInput!) { crearReserva(input: $input) { success error reserva { id } } }`,
      {
        input: { referencia: referencia(), lineas: [{ ...lineas[0], cantidad: 4 }] },
      },
    );
    expect(insuficiente.crearReserva).toMatchObject({ success: false, reserva: null });
    expect(insuficiente.crearReserva!.error).toMatch(/^STOCK_INSUFICIENTE: /);
    const consumida = await gql(
      `mutation($id: ID!) { consumirReserva(id: $id, input: { liberarResto: true }) { success operacionId reserva { estado } } }`,
      {
        id,
      },
    );
    expect(consumida.consumirReserva).toMatchObject({ success: true, reserva: { estado: 'CONSUMIDA' } });
    expect(consumida.consumirReserva!.operacionId).toEqual(expect.any(String));
    const liberar = await gql(`mutation($id: ID!) { liberarReserva(id: $id) { success error } }`, { id });
    expect(liberar.liberarReserva!.error).toMatch(/^RESERVA_CONSUMIDA: /);
    const lista = await gql(
      `query($p: ID!) { reservas(filtro: { productoId: $p, estado: CONSUMIDA }) { reservas { id } siguienteCursor } }`,
      {
        p: String(productoId),
      },
    );
    expect(lista.reservas).toEqual({ reservas: [{ id }], siguienteCursor: null });
  });
});

describe('a threshold watching disponible (docs/contract.md §13.9) through REST', () => {
  it('is set with PATCH alertaSobre, shown on the level, and a reservation reaching it publishes one StockBajo with the figures', async () => {
    const { bodegaId, productoId } = await nivel(10);
    const antes = await call('GET', `/api/bodegas/${bodegaId}/existencias/${productoId}`, 200);
    expect(antes.body).toMatchObject({ umbralMinimo: null, alertaSobre: 'CANTIDAD' });

    const malo = await call('PATCH', `/api/bodegas/${bodegaId}/existencias/${productoId}`, 400, {
      body: { umbralMinimo: 3, alertaSobre: 'RESERVADA' },
      headers: { 'if-match': antes.headers.get('etag')! },
    });
    expect((malo.body.detalles as { campo: string }[]).map((d) => d.campo)).toEqual(['alertaSobre']);

    const umbral = await call('PATCH', `/api/v1/bodegas/${bodegaId}/existencias/${productoId}`, 200, {
      body: { umbralMinimo: 3, alertaSobre: 'DISPONIBLE' },
      headers: { 'if-match': antes.headers.get('etag')! },
    });
    expect(umbral.body).toMatchObject({ cantidad: 10, umbralMinimo: 3, alertaSobre: 'DISPONIBLE', disponible: 10 });

    await call('POST', '/api/reservas', 201, {
      body: { referencia: referencia(), lineas: [{ bodegaId, productoId, cantidad: 7 }] },
    });
    const subject = `/bodegas/${bodegaId}/existencias/${productoId}`;
    const alertas = (await stack.settledEvents()).filter(
      (e) => e.body.subject === subject && e.subject.endsWith('.stock.bajo'),
    );
    expect(alertas.map((e) => e.body.data)).toEqual([
      expect.objectContaining({
        cantidad: 10,
        umbralMinimo: 3,
        operacionId: null,
        alertaSobre: 'DISPONIBLE',
        reservada: 7,
        disponible: 3,
        usuario: 'tester',
      }),
    ]);
    // Without alertaSobre the level keeps watching disponible.
    const otra = await call('PATCH', `/api/bodegas/${bodegaId}/existencias/${productoId}`, 200, {
      body: { umbralMinimo: 2 },
      headers: { 'if-match': umbral.headers.get('etag')! },
    });
    expect(otra.body).toMatchObject({ umbralMinimo: 2, alertaSobre: 'DISPONIBLE', reservada: 7, disponible: 3 });
  });
});
