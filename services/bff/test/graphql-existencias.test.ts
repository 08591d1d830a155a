/**
 * The stock ledger over GraphQL (docs/contract.md §10.3) against the whole
 * back end (both gRPC services, real MariaDB and NATS): every query, field
 * and mutation, their refusals as data with the REST code first, keyed
 * replays (across REST and GraphQL too), pagination, and the limits.
 */
import { QUERY_LIMITS } from '../src/graphql/limits';
import { tooManyMutationsMessage } from '../src/graphql/mutation-count';
import { crearBodega, crearProducto, type ProductoRest } from '@inventario/testkit';
import { startTestStack, TEST_USER, type TestStack } from './support/stack';
import { graphql, graphqlData } from './graphql-support/graphql-client';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('gqlstock');
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const LOCAL_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const MISSING_ID = '4000000000';
let keys = 0;
const nuevaClave = () => `clave-gql-stock-${Date.now().toString(36)}-${++keys}`;
/** A cursor of an id list: the id in base64url. */
const cursorDe = (id: number | string) => Buffer.from(String(id), 'utf8').toString('base64url');

const EXISTENCIA = 'bodegaId productoId cantidad umbralMinimo version fechaCreacion fechaActualizacion';
const LINEA =
  'id operacionId bodegaId productoId tipo motivo cantidad cantidadAnterior cantidadPosterior version usuario comentario fecha';
const OPERACION = `id tipo usuario comentario fecha revierteA revertidaPor movimientos { ${LINEA} }`;

const ASIGNAR = `mutation Asignar($bodegaId: ID!, $productoId: ID!, $cantidad: Int!, $umbralMinimo: Int, $version: Int, $key: String) {
  asignarProductoABodega(bodegaId: $bodegaId, productoId: $productoId, cantidad: $cantidad, umbralMinimo: $umbralMinimo,
                         version: $version, idempotencyKey: $key) {
    success message error existencia { ${EXISTENCIA} bodega { id ocupacion } producto { id } }
  }
}`;
const RETIRAR = `mutation Retirar($bodegaId: ID!, $productoId: ID!, $version: Int, $key: String) {
  retirarProductoDeBodega(bodegaId: $bodegaId, productoId: $productoId, version: $version, idempotencyKey: $key) {
    success message error cantidadRetirada
  }
}`;
const MOVER = `mutation Mover($input: MovimientoInput!, $version: Int, $key: String) {
  registrarMovimiento(input: $input, version: $version, idempotencyKey: $key) { success message error operacion { ${OPERACION} } }
}`;
const TRANSFERIR = `mutation Transferir($input: TransferenciaInput!, $key: String) {
  transferirStock(input: $input, idempotencyKey: $key) { success message error operacion { ${OPERACION} } }
}`;
const REVERTIR = `mutation Revertir($id: ID!, $comentario: String, $key: String) {
  revertirOperacion(id: $id, comentario: $comentario, idempotencyKey: $key) { success message error operacion { ${OPERACION} } }
}`;

/* eslint-disable @typescript-eslint/no-explicit-any -- the tests read arbitrary GraphQL answers */
type Answer = Record<string, any>;

/** A ledger line as GraphQL answers it. */
interface LineaGql {
  id: string;
  bodegaId: string;
  tipo: string;
  motivo: string;
  cantidad: number;
  cantidadPosterior: number;
}

/** A ledger line as REST answers it. */
interface LineaRest {
  id: number;
  operacionId: number;
  tipo: string;
  motivo: string;
  cantidad: number;
  cantidadPosterior: number;
  usuario: string;
}

/** A level as GraphQL answers it (the fields these tests select). */
interface ExistenciaGql {
  bodegaId: string;
  cantidad: number;
  producto: { id: string };
}

/** The answer of the one mutation of `document`. */
async function mutation(document: string, variables: Record<string, unknown>): Promise<Answer> {
  const data = await graphqlData(stack, document, { variables });
  return Object.values(data)[0] as Answer;
}

async function asignar(
  bodegaId: number,
  productoId: number,
  cantidad: number,
  extra: Record<string, unknown> = {},
): Promise<Answer> {
  return mutation(ASIGNAR, { bodegaId: String(bodegaId), productoId: String(productoId), cantidad, ...extra });
}

function mover(bodegaId: number, input: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Answer> {
  return mutation(MOVER, { input: { bodegaId: String(bodegaId), ...input }, ...extra });
}

/** Fails the test unless the mutation succeeded; its answer otherwise. */
function ok(answer: Answer): Answer {
  if (answer.success !== true) throw new Error(`the mutation failed: ${JSON.stringify(answer)}`);
  return answer;
}

/** The units of a level over GraphQL, or null when there is none. */
async function existencia(bodegaId: number, productoId: number): Promise<Answer | null> {
  const data = await graphqlData(
    stack,
    `query ($b: ID!, $p: ID!) { existencia(bodegaId: $b, productoId: $p) { ${EXISTENCIA} } }`,
    {
      variables: { b: String(bodegaId), p: String(productoId) },
    },
  );
  return data.existencia as Answer | null;
}

/** Every ledger line of one warehouse, newest first, read over REST (independent of the code under test). */
async function lineasDe(bodegaId: number): Promise<LineaRest[]> {
  const res = await stack.request('GET', `/api/movimientos?bodegaId=${bodegaId}&limit=1000`);
  expect(res.status).toBe(200);
  return res.body.movimientos as LineaRest[];
}

/** A failed stock mutation: success false, the failure message, `error` starting with `code`, the entity null. */
function refused(answer: Answer, code: RegExp, entity: string): void {
  expect(answer).toMatchObject({ success: false, message: expect.stringMatching(/^No se pudo /), [entity]: null });
  expect(answer.error).toMatch(code);
}

describe('asignarProductoABodega', () => {
  it('sets the units (an AJUSTE line, ASIGNACION) and answers the level; Bodega.ocupacion follows; a version makes it conditional; null removes the threshold', async () => {
    const bodegaId = await crearBodega(stack, { capacidad: 100 });
    const producto = await crearProducto(stack);
    const first = ok(await asignar(bodegaId, producto.id, 40, { umbralMinimo: 5 }));
    expect(first).toEqual({
      success: true,
      message: 'Producto asignado a la bodega correctamente',
      error: null,
      existencia: {
        bodegaId: String(bodegaId),
        productoId: String(producto.id),
        cantidad: 40,
        umbralMinimo: 5,
        version: 1,
        fechaCreacion: expect.stringMatching(LOCAL_UTC),
        fechaActualizacion: expect.stringMatching(LOCAL_UTC),
        bodega: { id: String(bodegaId), ocupacion: 40 },
        producto: { id: String(producto.id) },
      },
    });

    // Left out, umbralMinimo is kept; with the level's version, the write applies.
    const second = ok(await asignar(bodegaId, producto.id, 25, { version: 1 }));
    expect(second.existencia).toMatchObject({ cantidad: 25, umbralMinimo: 5, version: 2, bodega: { ocupacion: 25 } });
    // null removes it; setting the same units is a line too.
    expect(ok(await asignar(bodegaId, producto.id, 25, { umbralMinimo: null, version: 2 })).existencia).toMatchObject({
      cantidad: 25,
      umbralMinimo: null,
      version: 3,
    });
    // An existing level is set only under its version (issue 21, item 11): nothing written without it.
    refused(await asignar(bodegaId, producto.id, 24), /^PRECONDITION_REQUIRED: /, 'existencia');

    const lineas = await lineasDe(bodegaId);
    expect(lineas.map((l) => [l.tipo, l.motivo, l.cantidad, l.usuario])).toEqual([
      ['AJUSTE', 'ASIGNACION', 0, TEST_USER],
      ['AJUSTE', 'ASIGNACION', -15, TEST_USER],
      ['AJUSTE', 'ASIGNACION', 40, TEST_USER],
    ]);
  });

  it('with a stale version: PRECONDITION_FAILED naming both versions, nothing written', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    ok(await asignar(bodegaId, producto.id, 10));
    const answer = await asignar(bodegaId, producto.id, 20, { version: 7 });
    refused(answer, /^PRECONDITION_FAILED: conflicto de versión, la versión actual es 1, no 7/, 'existencia');
    expect(await existencia(bodegaId, producto.id)).toMatchObject({ cantidad: 10, version: 1 });
    expect(await lineasDe(bodegaId)).toHaveLength(1);
  });

  it('past the capacity: CAPACIDAD_EXCEDIDA with its figures, no level and no line', async () => {
    const bodegaId = await crearBodega(stack, { capacidad: 30 });
    const producto = await crearProducto(stack);
    const answer = await asignar(bodegaId, producto.id, 31);
    refused(answer, /^CAPACIDAD_EXCEDIDA: .*capacidad 30, ocupación 0, se piden 31/, 'existencia');
    expect(await existencia(bodegaId, producto.id)).toBeNull();
    expect(await lineasDe(bodegaId)).toEqual([]);
  });

  it('names what does not exist: the product, the warehouse', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    refused(await asignar(bodegaId, Number(MISSING_ID), 1), /no existe el producto 4000000000/i, 'existencia');
    refused(await asignar(Number(MISSING_ID), producto.id, 1), /no existe la bodega 4000000000/i, 'existencia');
  });

  it('names every malformed argument, and writes nothing', async () => {
    const bodegaId = await crearBodega(stack);
    const answer = await mutation(ASIGNAR, {
      bodegaId: 'abc',
      productoId: '0',
      cantidad: -1,
      umbralMinimo: -2,
      key: 'con espacio',
    });
    refused(answer, /^bodegaId: .*; productoId: .*; cantidad: .*; umbralMinimo: .*; idempotencyKey: /, 'existencia');
    expect(await lineasDe(bodegaId)).toEqual([]);
  });
});

const UMBRAL = `mutation Umbral($bodegaId: ID!, $productoId: ID!, $umbralMinimo: Int, $version: Int, $key: String) {
  cambiarUmbralMinimo(bodegaId: $bodegaId, productoId: $productoId, umbralMinimo: $umbralMinimo, version: $version, idempotencyKey: $key) {
    success message error existencia { ${EXISTENCIA} }
  }
}`;

describe('cambiarUmbralMinimo (the mirror of PATCH /api/bodegas/{id}/existencias/{productoId})', () => {
  const umbral = (bodegaId: number, productoId: number, extra: Record<string, unknown>) =>
    mutation(UMBRAL, { bodegaId: String(bodegaId), productoId: String(productoId), ...extra });

  it('changes only the threshold: the units stay, no line is written, the version grows; null removes it; REST sees the same level', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    ok(await asignar(bodegaId, producto.id, 12));

    const set = ok(await umbral(bodegaId, producto.id, { umbralMinimo: 15, version: 1 }));
    expect(set).toMatchObject({ message: 'Umbral de stock bajo cambiado correctamente', error: null });
    expect(set.existencia).toMatchObject({ cantidad: 12, umbralMinimo: 15, version: 2 });
    expect(ok(await umbral(bodegaId, producto.id, { umbralMinimo: null })).existencia).toMatchObject({
      cantidad: 12,
      umbralMinimo: null,
      version: 3,
    });

    expect(await lineasDe(bodegaId)).toHaveLength(1);
    const rest = await stack.request('GET', `/api/bodegas/${bodegaId}/existencias/${producto.id}`);
    expect([rest.headers.get('etag'), rest.body]).toEqual([
      '"3"',
      expect.objectContaining({ cantidad: 12, umbralMinimo: null, version: 3 }),
    ]);
  });

  it('refuses, writing nothing: a stale version, no level, a missing or malformed umbralMinimo', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    ok(await asignar(bodegaId, producto.id, 5, { umbralMinimo: 1 }));

    refused(
      await umbral(bodegaId, producto.id, { umbralMinimo: 3, version: 9 }),
      /^PRECONDITION_FAILED: conflicto de versión, la versión actual es 1, no 9/,
      'existencia',
    );
    refused(
      await umbral(bodegaId, Number(MISSING_ID), { umbralMinimo: 3 }),
      /no tiene existencias del producto 4000000000/,
      'existencia',
    );
    refused(
      await umbral(bodegaId, producto.id, {}),
      /^umbralMinimo: es obligatorio: el nuevo umbral, o null para quitarlo$/,
      'existencia',
    );
    refused(await umbral(bodegaId, producto.id, { umbralMinimo: -1 }), /^umbralMinimo: /, 'existencia');
    expect(await existencia(bodegaId, producto.id)).toMatchObject({ cantidad: 5, umbralMinimo: 1, version: 1 });
  });

  it('sets what the threshold watches (alertaSobre, docs/contract.md §13.9), kept when absent; a value outside the list is refused', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    ok(await asignar(bodegaId, producto.id, 5));
    const conAlerta = (extra: Record<string, unknown>) =>
      mutation(UMBRAL_SOBRE, { bodegaId: String(bodegaId), productoId: String(producto.id), ...extra });

    expect(ok(await conAlerta({ umbralMinimo: 2, alertaSobre: 'DISPONIBLE' })).existencia).toMatchObject({
      umbralMinimo: 2,
      alertaSobre: 'DISPONIBLE',
      version: 2,
    });
    expect(ok(await conAlerta({ umbralMinimo: 3 })).existencia).toMatchObject({
      umbralMinimo: 3,
      alertaSobre: 'DISPONIBLE',
    });
    refused(await conAlerta({ umbralMinimo: 3, alertaSobre: 'RESERVADA' }), /^alertaSobre: /, 'existencia');
    expect(await existencia(bodegaId, producto.id)).toMatchObject({ umbralMinimo: 3, version: 3 });
  });
});

const UMBRAL_SOBRE = `mutation UmbralSobre($bodegaId: ID!, $productoId: ID!, $umbralMinimo: Int, $alertaSobre: String) {
  cambiarUmbralMinimo(bodegaId: $bodegaId, productoId: $productoId, umbralMinimo: $umbralMinimo, alertaSobre: $alertaSobre) {
    success message error existencia { ${EXISTENCIA} alertaSobre }
  }
}`;

describe('registrarMovimiento', () => {
  let bodegaId: number;
  let producto: ProductoRest;

  beforeAll(async () => {
    bodegaId = await crearBodega(stack, { capacidad: 50 });
    producto = await crearProducto(stack);
  });

  it('an ENTRADA and a SALIDA: each one operation with its line, default reasons, the caller as usuario', async () => {
    const entrada = ok(
      await mover(bodegaId, {
        productoId: String(producto.id),
        tipo: 'ENTRADA',
        cantidad: 12,
        comentario: 'Albarán 7',
      }),
    );
    expect(entrada).toMatchObject({ message: 'Movimiento registrado correctamente', error: null });
    expect(entrada.operacion).toEqual({
      id: expect.stringMatching(/^\d+$/),
      tipo: 'ENTRADA',
      usuario: TEST_USER,
      comentario: 'Albarán 7',
      fecha: expect.stringMatching(LOCAL_UTC),
      revierteA: null,
      revertidaPor: null,
      movimientos: [
        {
          id: expect.stringMatching(/^\d+$/),
          operacionId: entrada.operacion.id,
          bodegaId: String(bodegaId),
          productoId: String(producto.id),
          tipo: 'ENTRADA',
          motivo: 'RECEPCION',
          cantidad: 12,
          cantidadAnterior: 0,
          cantidadPosterior: 12,
          version: 1,
          usuario: TEST_USER,
          comentario: 'Albarán 7',
          fecha: entrada.operacion.fecha,
        },
      ],
    });
    const salida = ok(
      await mover(bodegaId, { productoId: String(producto.id), tipo: 'SALIDA', cantidad: 5, motivo: 'MERMA' }),
    );
    expect(salida.operacion.movimientos).toEqual([
      expect.objectContaining({
        tipo: 'SALIDA',
        motivo: 'MERMA',
        cantidad: -5,
        cantidadAnterior: 12,
        cantidadPosterior: 7,
        version: 2,
      }),
    ]);
  });

  it('a SALIDA of more than the level holds: STOCK_INSUFICIENTE with the figures, no line', async () => {
    const before = await lineasDe(bodegaId);
    const level = await existencia(bodegaId, producto.id);
    const answer = await mover(bodegaId, {
      productoId: String(producto.id),
      tipo: 'SALIDA',
      cantidad: level!.cantidad + 1,
    });
    refused(
      answer,
      new RegExp(`^STOCK_INSUFICIENTE: .*hay ${level!.cantidad}, se piden ${level!.cantidad + 1}`),
      'operacion',
    );
    expect(await lineasDe(bodegaId)).toEqual(before);
  });

  it('an ENTRADA past the capacity: CAPACIDAD_EXCEDIDA, no line', async () => {
    const before = await lineasDe(bodegaId);
    refused(
      await mover(bodegaId, { productoId: String(producto.id), tipo: 'ENTRADA', cantidad: 1000 }),
      /^CAPACIDAD_EXCEDIDA: /,
      'operacion',
    );
    expect(await lineasDe(bodegaId)).toEqual(before);
  });

  it('an AJUSTE needs the level version: PRECONDITION_REQUIRED without it, PRECONDITION_FAILED when stale, a CONTEO with it', async () => {
    const level = await existencia(bodegaId, producto.id);
    const input = { productoId: String(producto.id), tipo: 'AJUSTE', cantidad: 3 };
    refused(
      await mover(bodegaId, input),
      /^PRECONDITION_REQUIRED: un AJUSTE \(un conteo\) requiere version/,
      'operacion',
    );
    refused(await mover(bodegaId, input, { version: level!.version + 5 }), /^PRECONDITION_FAILED: /, 'operacion');
    expect(await existencia(bodegaId, producto.id)).toEqual(level);

    const conteo = ok(await mover(bodegaId, input, { version: level!.version }));
    expect(conteo.operacion).toMatchObject({ tipo: 'AJUSTE' });
    expect(conteo.operacion.movimientos).toEqual([
      expect.objectContaining({
        tipo: 'AJUSTE',
        motivo: 'CONTEO',
        cantidadAnterior: level!.cantidad,
        cantidadPosterior: 3,
        version: level!.version + 1,
      }),
    ]);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a transfer as tipo', { tipo: 'TRANSFERENCIA', cantidad: 1 }, /^tipo: debe ser uno de ENTRADA, SALIDA, AJUSTE/],
    [
      'a reason of another type',
      { tipo: 'ENTRADA', cantidad: 1, motivo: 'VENTA' },
      /^motivo: no es un motivo de ENTRADA \(admitidos: RECEPCION, DEVOLUCION\)$/,
    ],
    ['an unknown reason', { tipo: 'SALIDA', cantidad: 1, motivo: 'REGALO' }, /^motivo: debe ser uno de ASIGNACION, /],
    [
      'no units in a SALIDA',
      { tipo: 'SALIDA', cantidad: 0 },
      /^cantidad: debe ser al menos 1 en una ENTRADA o una SALIDA$/,
    ],
    [
      'a comment of 501 characters',
      { tipo: 'ENTRADA', cantidad: 1, comentario: 'x'.repeat(501) },
      /^comentario: no puede superar 500 caracteres$/,
    ],
    ['a malformed product id', { productoId: '-3', tipo: 'ENTRADA', cantidad: 1 }, /^productoId: /],
  ])('%s is refused naming the field, nothing written', async (_case, input, error) => {
    const before = await lineasDe(bodegaId);
    refused(await mover(bodegaId, { productoId: String(producto.id), ...input }), error, 'operacion');
    expect(await lineasDe(bodegaId)).toEqual(before);
  });

  it('a cantidad written as 19.999999999999999999 is not a whole number, though graphql-js reads 20', async () => {
    const response = await stack.request('POST', '/api/graphql', {
      rawBody: `{"query": ${JSON.stringify(MOVER)}, "variables": {"input": {"bodegaId": "${bodegaId}", "productoId": "${producto.id}", "tipo": "ENTRADA", "cantidad": 19.999999999999999999}}}`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    });
    refused(response.body.data.registrarMovimiento as Answer, /^cantidad: debe ser un número entero$/, 'operacion');
  });
});

describe('transferirStock', () => {
  let origenId: number;
  let destinoId: number;
  let producto: ProductoRest;

  beforeAll(async () => {
    origenId = await crearBodega(stack, { capacidad: 100 });
    destinoId = await crearBodega(stack, { capacidad: 10 });
    producto = await crearProducto(stack);
    ok(await asignar(origenId, producto.id, 30));
  });

  const input = (cantidad: number, extra: Record<string, unknown> = {}) => ({
    input: {
      productoId: String(producto.id),
      origenId: String(origenId),
      destinoId: String(destinoId),
      cantidad,
      ...extra,
    },
  });

  it('moves units in one operation of two TRANSFERENCIA lines', async () => {
    const answer = ok(await mutation(TRANSFERIR, input(4, { comentario: 'Reposición' })));
    expect(answer.message).toBe('Transferencia realizada correctamente');
    expect(answer.operacion).toMatchObject({ tipo: 'TRANSFERENCIA', comentario: 'Reposición', usuario: TEST_USER });
    expect(
      (answer.operacion.movimientos as LineaGql[]).map((l) => [
        l.bodegaId,
        l.tipo,
        l.motivo,
        l.cantidad,
        l.cantidadPosterior,
      ]),
    ).toEqual([
      [String(origenId), 'TRANSFERENCIA', 'TRANSFERENCIA', -4, 26],
      [String(destinoId), 'TRANSFERENCIA', 'TRANSFERENCIA', 4, 4],
    ]);
    expect((await existencia(destinoId, producto.id))!.cantidad).toBe(4);
  });

  it('refuses, writing nothing: the same warehouse twice, more than the origin holds, past the destination capacity', async () => {
    const before = [await lineasDe(origenId), await lineasDe(destinoId)];
    refused(
      await mutation(TRANSFERIR, { input: { ...input(1).input, destinoId: String(origenId) } }),
      /^destinoId: debe ser distinta de origenId$/,
      'operacion',
    );
    refused(await mutation(TRANSFERIR, input(27)), /^STOCK_INSUFICIENTE: /, 'operacion');
    refused(
      await mutation(TRANSFERIR, input(7)),
      /^CAPACIDAD_EXCEDIDA: .*capacidad 10, ocupación 4, se piden 7/,
      'operacion',
    );
    refused(await mutation(TRANSFERIR, input(0)), /^cantidad: /, 'operacion');
    expect([await lineasDe(origenId), await lineasDe(destinoId)]).toEqual(before);
  });
});

describe('revertirOperacion', () => {
  it('reverses an operation once with opposite lines (REVERSO); the original then names its reversal', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const entrada = ok(
      await mover(bodegaId, { productoId: String(producto.id), tipo: 'ENTRADA', cantidad: 9 }),
    ).operacion;

    const reverso = ok(await mutation(REVERTIR, { id: entrada.id, comentario: 'Error de carga' }));
    expect(reverso.message).toBe('Operación revertida correctamente');
    expect(reverso.operacion).toMatchObject({ tipo: 'REVERSO', revierteA: entrada.id, comentario: 'Error de carga' });
    expect(reverso.operacion.movimientos).toEqual([
      expect.objectContaining({
        tipo: 'ENTRADA',
        motivo: 'REVERSO',
        cantidad: -9,
        cantidadAnterior: 9,
        cantidadPosterior: 0,
      }),
    ]);
    const data = await graphqlData(stack, `query ($id: ID!) { operacion(id: $id) { id revertidaPor } }`, {
      variables: { id: entrada.id },
    });
    expect(data.operacion).toEqual({ id: entrada.id, revertidaPor: reverso.operacion.id });

    refused(await mutation(REVERTIR, { id: entrada.id }), /^OPERACION_YA_REVERTIDA: /, 'operacion');
    refused(await mutation(REVERTIR, { id: reverso.operacion.id }), /^OPERACION_NO_REVERSIBLE: /, 'operacion');
    refused(await mutation(REVERTIR, { id: MISSING_ID }), /no existe la operación 4000000000/i, 'operacion');
    expect(await lineasDe(bodegaId)).toHaveLength(2);
  });

  it('refuses a reversal that would leave a level negative: STOCK_INSUFICIENTE', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const entrada = ok(
      await mover(bodegaId, { productoId: String(producto.id), tipo: 'ENTRADA', cantidad: 5 }),
    ).operacion;
    ok(await mover(bodegaId, { productoId: String(producto.id), tipo: 'SALIDA', cantidad: 3 }));
    refused(await mutation(REVERTIR, { id: entrada.id }), /^STOCK_INSUFICIENTE: /, 'operacion');
  });
});

describe('retirarProductoDeBodega', () => {
  it('writes the units out (RETIRO), removes the level, and answers cantidadRetirada', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    ok(await asignar(bodegaId, producto.id, 7));
    const answer = await mutation(RETIRAR, { bodegaId: String(bodegaId), productoId: String(producto.id) });
    expect(answer).toEqual({
      success: true,
      message: 'Producto retirado de la bodega correctamente',
      error: null,
      cantidadRetirada: 7,
    });
    expect(await existencia(bodegaId, producto.id)).toBeNull();
    expect((await lineasDe(bodegaId))[0]).toMatchObject({
      tipo: 'SALIDA',
      motivo: 'RETIRO',
      cantidad: -7,
      cantidadPosterior: 0,
    });
    const bodega = await graphqlData(stack, `{ bodega(id: "${bodegaId}") { ocupacion existencias { productoId } } }`);
    expect(bodega.bodega).toEqual({ ocupacion: 0, existencias: [] });

    // Neither stocked nor assigned there any more.
    refused(
      await mutation(RETIRAR, { bodegaId: String(bodegaId), productoId: String(producto.id) }),
      new RegExp(`la bodega ${bodegaId} no tiene el producto ${producto.id}`, 'i'),
      'cantidadRetirada',
    );
  });

  it('with a stale version: PRECONDITION_FAILED, the level kept', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    ok(await asignar(bodegaId, producto.id, 7));
    refused(
      await mutation(RETIRAR, { bodegaId: String(bodegaId), productoId: String(producto.id), version: 2 }),
      /^PRECONDITION_FAILED: /,
      'cantidadRetirada',
    );
    expect(await existencia(bodegaId, producto.id)).toMatchObject({ cantidad: 7 });
  });
});

describe('eliminarBodega with stock', () => {
  it('refuses a warehouse holding stock, says so and how to remove it, and deletes nothing', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    ok(await asignar(bodegaId, producto.id, 2));
    const data = await graphqlData(stack, `mutation { eliminarBodega(id: "${bodegaId}") { success message error } }`);
    expect(data.eliminarBodega).toEqual({
      success: false,
      message: 'No se pudo eliminar la bodega',
      error:
        `La bodega ${bodegaId} tiene 1 producto(s) asignado(s) o con existencias (ids ${producto.id}); ` +
        'reasígnelos o elimínelos, y retire sus existencias con retirarProductoDeBodega, antes de eliminar la bodega',
    });
    ok(await mutation(RETIRAR, { bodegaId: String(bodegaId), productoId: String(producto.id) }));
    expect(
      (await graphqlData(stack, `mutation { eliminarBodega(id: "${bodegaId}") { success } }`)).eliminarBodega,
    ).toEqual({ success: true });
  });
});

describe('idempotencyKey', () => {
  it('a repeated assignment replays the first answer and writes one line; the key with another request is refused', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const key = nuevaClave();
    const first = ok(await asignar(bodegaId, producto.id, 12, { key }));
    const repeat = await asignar(bodegaId, producto.id, 12, { key });
    expect(repeat).toEqual(first);
    expect(await lineasDe(bodegaId)).toHaveLength(1);

    refused(
      await asignar(bodegaId, producto.id, 13, { key }),
      /^IDEMPOTENCY_KEY_REUSED: idempotencyKey /,
      'existencia',
    );
    expect(await existencia(bodegaId, producto.id)).toMatchObject({ cantidad: 12, version: 1 });
  });

  it('a movement, a transfer and a reversal each replay their operation; one key is one request over REST and GraphQL', async () => {
    const origenId = await crearBodega(stack);
    const destinoId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const entradaKey = nuevaClave();
    const entrada = ok(
      await mover(origenId, { productoId: String(producto.id), tipo: 'ENTRADA', cantidad: 8 }, { key: entradaKey }),
    );
    expect(
      ok(await mover(origenId, { productoId: String(producto.id), tipo: 'ENTRADA', cantidad: 8 }, { key: entradaKey })),
    ).toEqual(entrada);

    // The same request over REST, with the same key: the recorded operation, replayed.
    const rest = await stack.request('POST', `/api/bodegas/${origenId}/movimientos`, {
      body: { productoId: producto.id, tipo: 'ENTRADA', cantidad: 8 },
      headers: { 'idempotency-key': entradaKey },
    });
    expect(rest.status).toBe(201);
    expect(rest.headers.get('idempotent-replayed')).toBe('true');
    expect(String(rest.body.id)).toBe(entrada.operacion.id);

    const transferKey = nuevaClave();
    const transferencia = {
      input: { productoId: String(producto.id), origenId: String(origenId), destinoId: String(destinoId), cantidad: 3 },
      key: transferKey,
    };
    const transferida = ok(await mutation(TRANSFERIR, transferencia));
    expect(await mutation(TRANSFERIR, transferencia)).toEqual(transferida);

    const reversoKey = nuevaClave();
    const revertida = ok(await mutation(REVERTIR, { id: transferida.operacion.id, key: reversoKey }));
    expect(await mutation(REVERTIR, { id: transferida.operacion.id, key: reversoKey })).toEqual(revertida);

    expect((await lineasDe(origenId)).map((l) => l.motivo)).toEqual(['REVERSO', 'TRANSFERENCIA', 'RECEPCION']);
    expect(await existencia(origenId, producto.id)).toMatchObject({ cantidad: 8 });
  });

  it('a repeated removal answers the same units', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    ok(await asignar(bodegaId, producto.id, 6));
    const variables = { bodegaId: String(bodegaId), productoId: String(producto.id), key: nuevaClave() };
    const first = ok(await mutation(RETIRAR, variables));
    expect(await mutation(RETIRAR, variables)).toEqual(first);
    expect(first.cantidadRetirada).toBe(6);
  });
});

describe('stock queries and fields', () => {
  let bodegas: number[];
  let productos: ProductoRest[];

  // Three warehouses; five products; product i is stocked in warehouse 0 with i + 1 units, and products 0 and 1 in all three.
  beforeAll(async () => {
    bodegas = [await crearBodega(stack), await crearBodega(stack), await crearBodega(stack)];
    productos = [];
    for (let i = 0; i < 5; i++) productos.push(await crearProducto(stack));
    for (const [i, producto] of productos.entries()) ok(await asignar(bodegas[0]!, producto.id, i + 1));
    for (const bodegaId of bodegas.slice(1)) {
      for (const producto of productos.slice(0, 2)) ok(await asignar(bodegaId, producto.id, 2));
    }
  });

  it('existencia: the level with its warehouse and product; null when none; a malformed id is a ValidationError', async () => {
    const [b0] = bodegas;
    const data = await graphqlData(
      stack,
      `query ($b: ID!, $p: ID!, $otra: ID!) {
        existencia(bodegaId: $b, productoId: $p) { cantidad bodega { id } producto { id nombre } }
        ninguna: existencia(bodegaId: $otra, productoId: $p) { cantidad }
        sinBodega: existencia(bodegaId: "${MISSING_ID}", productoId: $p) { cantidad }
      }`,
      { variables: { b: String(b0), p: String(productos[4]!.id), otra: String(bodegas[1]) } },
    );
    expect(data).toEqual({
      existencia: {
        cantidad: 5,
        bodega: { id: String(b0) },
        producto: { id: String(productos[4]!.id), nombre: productos[4]!.nombre },
      },
      ninguna: null,
      sinBodega: null,
    });
    const malformed = await graphql(stack, '{ existencia(bodegaId: "x", productoId: "0") { cantidad } }');
    expect(malformed.body.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^bodegaId: .*; productoId: /),
        extensions: { classification: 'ValidationError' },
      }),
    ]);
  });

  it('operacion: an operation with its lines; null when it does not exist', async () => {
    const lineas = await lineasDe(bodegas[2]!);
    const id = String(lineas[0]!.operacionId);
    const data = await graphqlData(
      stack,
      `{ operacion(id: "${id}") { id tipo movimientos { id producto { id } bodega { id } } } otra: operacion(id: "${MISSING_ID}") { id } }`,
    );
    expect(data).toEqual({
      operacion: {
        id,
        tipo: 'ASIGNACION',
        movimientos: [
          { id: String(lineas[0]!.id), producto: { id: String(productos[1]!.id) }, bodega: { id: String(bodegas[2]) } },
        ],
      },
      otra: null,
    });
  });

  it('Bodega.existencias: in product order, each warehouse its own pages with first and after; Bodega.ocupacion is their sum', async () => {
    const ids = productos.map((p) => String(p.id));
    const query = (args: string) =>
      `{ bodega(id: "${bodegas[0]}") { ocupacion existencias${args} { productoId cantidad } } }`;
    const all = await graphqlData(stack, query(''));
    expect(all.bodega.ocupacion).toBe(1 + 2 + 3 + 4 + 5);
    expect(all.bodega.existencias).toEqual(ids.map((productoId, i) => ({ productoId, cantidad: i + 1 })));

    const pages: string[][] = [];
    let after: string | undefined;
    for (;;) {
      const page = (await graphqlData(stack, query(`(first: 2${after ? `, after: "${after}"` : ''})`))).bodega
        .existencias as Answer[];
      if (page.length === 0) break;
      pages.push(page.map((e) => e.productoId as string));
      after = cursorDe(page.at(-1)!.productoId as string);
    }
    expect(pages).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);

    // Of every warehouse at once, each its own page after the same product.
    const data = await graphqlData(
      stack,
      `{ bodegas(first: 1000) { id existencias(first: 1, after: "${cursorDe(ids[0]!)}") { productoId bodega { id } } } }`,
    );
    const mine = (data.bodegas as { id: string; existencias: unknown[] }[]).filter((b) =>
      bodegas.map(String).includes(b.id),
    );
    expect(mine.map((b) => b.existencias)).toEqual(
      bodegas.map((b) => [{ productoId: ids[1], bodega: { id: String(b) } }]),
    );
  });

  it('Producto.existencias: in warehouse order, paged with first and after (the warehouse cursor)', async () => {
    const query = (args: string) =>
      `{ producto(id: "${productos[0]!.id}") { existencias${args} { bodegaId cantidad producto { id } } } }`;
    const all = (await graphqlData(stack, query(''))).producto.existencias as ExistenciaGql[];
    expect(all.map((e) => [e.bodegaId, e.cantidad])).toEqual([
      [String(bodegas[0]), 1],
      [String(bodegas[1]), 2],
      [String(bodegas[2]), 2],
    ]);
    expect(all.every((e) => e.producto.id === String(productos[0]!.id))).toBe(true);
    const next = (await graphqlData(stack, query(`(first: 1, after: "${cursorDe(bodegas[0]!)}")`))).producto
      .existencias as ExistenciaGql[];
    expect(next.map((e) => e.bodegaId)).toEqual([String(bodegas[1])]);
    const bad = await graphql(
      stack,
      `{ producto(id: "${productos[0]!.id}") { existencias(after: "***") { cantidad } } }`,
    );
    expect(bad.body.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^after: /),
        extensions: { classification: 'ValidationError' },
      }),
    ]);
  });

  it('movimientos: newest first, walked page by page with siguienteCursor as after, the last page without one', async () => {
    const bodegaId = bodegas[0]!;
    const expected = (await lineasDe(bodegaId)).map((l) => String(l.id));
    expect(expected).toHaveLength(5);
    const seen: string[] = [];
    const sizes: number[] = [];
    let after: string | null = null;
    do {
      const data: Answer = await graphqlData(
        stack,
        `query ($f: MovimientoFiltro, $after: String) { movimientos(filtro: $f, first: 2, after: $after) { movimientos { id bodegaId } siguienteCursor } }`,
        { variables: { f: { bodegaId: String(bodegaId) }, after } },
      );
      seen.push(...(data.movimientos.movimientos as Answer[]).map((m) => m.id as string));
      sizes.push(data.movimientos.movimientos.length as number);
      after = data.movimientos.siguienteCursor as string | null;
    } while (after !== null);
    expect(seen).toEqual(expected);
    expect(sizes).toEqual([2, 2, 1]);
  });

  it('movimientos filters by warehouse, product, type and dates, and resolves each line warehouse and product', async () => {
    const filtro = (extra: Record<string, unknown>) => ({
      variables: { f: { bodegaId: String(bodegas[1]), ...extra } },
    });
    const query =
      'query ($f: MovimientoFiltro) { movimientos(filtro: $f) { movimientos { productoId tipo bodega { id } producto { id } } siguienteCursor } }';
    const deUno = await graphqlData(stack, query, filtro({ productoId: String(productos[1]!.id) }));
    expect(deUno.movimientos).toEqual({
      movimientos: [
        {
          productoId: String(productos[1]!.id),
          tipo: 'AJUSTE',
          bodega: { id: String(bodegas[1]) },
          producto: { id: String(productos[1]!.id) },
        },
      ],
      siguienteCursor: null,
    });
    expect((await graphqlData(stack, query, filtro({ tipo: 'SALIDA' }))).movimientos.movimientos).toEqual([]);
    expect(
      (await graphqlData(stack, query, filtro({ desde: '2000-01-01T00:00:00', hasta: '2999-12-31T23:59:59' })))
        .movimientos.movimientos,
    ).toHaveLength(2);
    expect((await graphqlData(stack, query, filtro({ hasta: '2000-01-01T00:00:00' }))).movimientos).toEqual({
      movimientos: [],
      siguienteCursor: null,
    });
  });

  it.each<[string, string, RegExp]>([
    [
      'an unknown type',
      '{ movimientos(filtro: {tipo: "RETIRO"}) { siguienteCursor } }',
      /^tipo: debe ser uno de ENTRADA, SALIDA, TRANSFERENCIA, AJUSTE$/,
    ],
    ['a page of none', '{ movimientos(first: 0) { siguienteCursor } }', /^first: debe estar entre 1 y 1000$/],
    ['a cursor the service never issued', '{ movimientos(after: "no-es-un-cursor") { siguienteCursor } }', /^after: /],
    ['a malformed warehouse id', '{ movimientos(filtro: {bodegaId: "uno"}) { siguienteCursor } }', /^bodegaId: /],
    [
      'a date without its time',
      '{ movimientos(filtro: {desde: "2026-01-01"}) { siguienteCursor } }',
      /DateTime debe tener la forma/,
    ],
  ])('movimientos with %s is a ValidationError naming the argument', async (_case, query, message) => {
    const response = await graphql(stack, query);
    expect(response.status).toBe(200);
    expect(response.body.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(message),
        extensions: { classification: 'ValidationError' },
      }),
    ]);
  });
});

describe('limits', () => {
  it('refuses before execution an over-large existencias or movimientos request: ValidationError, no data', async () => {
    const estimate = `La consulta supera el tamaño estimado máximo de ${QUERY_LIMITS.maxEstimatedNodes} nodos`;
    for (const query of [
      '{ bodegas(first: 1000) { existencias(first: 201) { cantidad } } }',
      '{ movimientos(first: 1000) { movimientos { producto { existencias(first: 200) { cantidad } } } } }',
    ]) {
      const response = await graphql(stack, query);
      expect(response.body).toEqual({
        errors: [
          expect.objectContaining({
            message: expect.stringContaining(estimate),
            extensions: { classification: 'ValidationError' },
          }),
        ],
      });
    }
  });

  it('the stock mutations count toward the writes one request may carry: a sixth refuses them all, nothing written', async () => {
    const bodegaId = await crearBodega(stack);
    const producto = await crearProducto(stack);
    const writes = Array.from(
      { length: QUERY_LIMITS.maxMutations + 1 },
      (_, i) =>
        `m${i}: registrarMovimiento(input: {bodegaId: "${bodegaId}", productoId: "${producto.id}", tipo: "ENTRADA", cantidad: 1}) { success }`,
    );
    const response = await graphql(stack, `mutation { ${writes.join(' ')} }`);
    expect(response.body).toEqual({
      errors: [expect.objectContaining({ message: tooManyMutationsMessage(QUERY_LIMITS.maxMutations) })],
    });
    expect(await lineasDe(bodegaId)).toEqual([]);
  });
});
