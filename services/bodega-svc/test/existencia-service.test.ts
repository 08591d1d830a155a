/**
 * Component tests of inventario.v1.ExistenciaService (docs/contract.md
 * §10): the whole bodega-svc on an ephemeral port, called through the
 * generated client; each RPC's answer, its refusals (status, reason
 * trailer and figures) and what it wrote in SQL. A refused write writes
 * nothing: no operation, no line, no event.
 */
import { status } from '@grpc/grpc-js';
import { currentVersionOf, errorDataOf, errorReasonOf, fieldViolationsOf } from '@inventario/platform';
import {
  ALERTA_SOBRE_NAMES,
  MOTIVO_MOVIMIENTO_NAMES,
  TIPO_MOVIMIENTO_NAMES,
  TIPO_OPERACION_NAMES,
  type Movimiento,
  type Operacion,
} from '@inventario/proto';
import { productoEliminadoDe } from './support/producto-eliminado';
import { ledgerProblems, lineVersions } from '@inventario/testkit';
import { asUser, grpcError, startTestService, type TestService } from './support/test-service';

const ENTRADA = TIPO_MOVIMIENTO_NAMES.value('ENTRADA');
const SALIDA = TIPO_MOVIMIENTO_NAMES.value('SALIDA');
const AJUSTE = TIPO_MOVIMIENTO_NAMES.value('AJUSTE');
const TRANSFERENCIA = TIPO_MOVIMIENTO_NAMES.value('TRANSFERENCIA');
const ANA = asUser('ana');

let svc: TestService;
let eliminarProducto: (productoId: number) => Promise<void>;

beforeAll(async () => {
  svc = await startTestService('bodega_stock_rpc');
  eliminarProducto = productoEliminadoDe(svc);
});

afterAll(async () => {
  await svc?.close();
});

afterEach(async () => {
  expect(await ledgerProblems(svc.db)).toEqual([]);
});

let seq = 0;
async function bodega(capacidad = 100): Promise<number> {
  seq += 1;
  return (await svc.rpc.createBodega({ nombre: `Stock ${seq}`, capacidad })).bodega!.id;
}

/** A product id no other test here uses. */
function producto(): number {
  seq += 1;
  return 100 + seq;
}

async function ocupacion(bodegaId: number): Promise<number | undefined> {
  return (await svc.rpc.getBodega({ id: bodegaId })).bodega!.ocupacion;
}

/** A line as the contract names it. */
function linea(m: Movimiento) {
  return {
    bodegaId: m.bodegaId,
    productoId: m.productoId,
    tipo: TIPO_MOVIMIENTO_NAMES.name(m.tipo),
    motivo: MOTIVO_MOVIMIENTO_NAMES.name(m.motivo),
    cantidad: m.cantidad,
    cantidadAnterior: m.cantidadAnterior,
    cantidadPosterior: m.cantidadPosterior,
    version: m.version,
  };
}

function tipoDe(op: Operacion | undefined): string | undefined {
  return op && TIPO_OPERACION_NAMES.name(op.tipo);
}

/** Operations, lines and outbox rows: unchanged by a refused write. */
async function written() {
  const count = async (table: string) => Number((await svc.db(table).count<{ n: number }[]>({ n: '*' }))[0]!.n);
  return {
    operaciones: await count('operaciones'),
    movimientos: await count('movimientos'),
    outbox: await svc.outboxCount(),
    existencias: await svc.db('existencias').orderBy('id').select(),
  };
}

/** A refusal's status, reason and figures; `written()` must not have changed. */
async function refusal(call: () => Promise<unknown>) {
  const before = await written();
  const err = await grpcError(call());
  expect(await written()).toEqual(before);
  return {
    code: err.code,
    reason: errorReasonOf(err),
    datos: errorDataOf(err),
    violations: fieldViolationsOf(err).map((v) => v.campo),
    version: currentVersionOf(err),
  };
}

describe('AsignarExistencia', () => {
  it('creates a level at version 1 with one AJUSTE line (ASIGNACION) by the caller, and counts it in the occupancy', async () => {
    const bodegaId = await bodega();
    const productoId = producto();

    const { existencia, operacion } = await svc.stock.asignarExistencia(
      { bodegaId, productoId, cantidad: 40, umbralMinimo: 5 },
      ANA,
    );

    expect(existencia).toEqual({
      bodegaId,
      productoId,
      cantidad: 40,
      umbralMinimo: 5,
      version: 1,
      fechaCreacion: expect.any(Date),
      fechaActualizacion: expect.any(Date),
      // Added with reservations (issue 24): nothing held yet; the threshold watches the units (the default).
      reservada: 0,
      disponible: 40,
      alertaSobre: ALERTA_SOBRE_NAMES.value('CANTIDAD'),
    });
    expect(tipoDe(operacion)).toBe('ASIGNACION');
    expect(operacion!.usuario).toBe('ana');
    expect(operacion!.movimientos.map(linea)).toEqual([
      {
        bodegaId,
        productoId,
        tipo: 'AJUSTE',
        motivo: 'ASIGNACION',
        cantidad: 40,
        cantidadAnterior: 0,
        cantidadPosterior: 40,
        version: 1,
      },
    ]);
    expect(operacion!.movimientos[0]!.usuario).toBe('ana');
    expect(await ocupacion(bodegaId)).toBe(40);
    expect((await svc.stock.getExistencia({ bodegaId, productoId })).existencia).toEqual(existencia);
  });

  it('sets the units (one line for the difference) and keeps the threshold when none is sent', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 10, umbralMinimo: 3 });

    const { existencia, operacion } = await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 4 });

    expect(existencia).toMatchObject({ cantidad: 4, umbralMinimo: 3, version: 2 });
    expect(operacion!.movimientos.map(linea)).toEqual([
      {
        bodegaId,
        productoId,
        tipo: 'AJUSTE',
        motivo: 'ASIGNACION',
        cantidad: -6,
        cantidadAnterior: 10,
        cantidadPosterior: 4,
        version: 2,
      },
    ]);
    // The same units again is still a line: a confirmed count is a fact worth keeping.
    const again = await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 4, umbralMinimo: 0 });
    expect(again.existencia).toMatchObject({ cantidad: 4, umbralMinimo: 0, version: 3 });
    expect(again.operacion!.movimientos.map((m) => m.cantidad)).toEqual([0]);
    expect(await ocupacion(bodegaId)).toBe(4);
  });

  it('removes the threshold with quitar_umbral_minimo, which cannot come with a threshold', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 10, umbralMinimo: 3 });

    expect(
      await refusal(() =>
        svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 9, umbralMinimo: 2, quitarUmbralMinimo: true }),
      ),
    ).toMatchObject({
      code: status.INVALID_ARGUMENT,
      violations: ['umbralMinimo'],
    });
    const { existencia } = await svc.stock.asignarExistencia({
      bodegaId,
      productoId,
      cantidad: 9,
      quitarUmbralMinimo: true,
    });
    expect(existencia).toMatchObject({ cantidad: 9, umbralMinimo: undefined, version: 2 });
    expect(
      (await svc.db('existencias').where({ bodega_id: bodegaId, producto_id: productoId }).first('umbral_minimo'))
        .umbral_minimo,
    ).toBeNull();
  });

  it('applies expected_version: 0 asks that there be no level; a stale one is ABORTED with the current version', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 1, expectedVersion: 0 });

    expect(
      await refusal(() => svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 2, expectedVersion: 0 })),
    ).toMatchObject({
      code: status.ABORTED,
      reason: 'VERSION_MISMATCH',
      version: 1,
    });
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 2, expectedVersion: 1 });
    expect((await svc.stock.getExistencia({ bodegaId, productoId })).existencia).toMatchObject({
      cantidad: 2,
      version: 2,
    });
  });

  it('refuses more units than the warehouse has room for (CAPACIDAD_EXCEDIDA with capacidad, ocupacion, solicitado)', async () => {
    const bodegaId = await bodega(50);
    await svc.stock.asignarExistencia({ bodegaId, productoId: producto(), cantidad: 30 });
    const productoId = producto();

    expect(await refusal(() => svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 21 }))).toMatchObject({
      code: status.FAILED_PRECONDITION,
      reason: 'CAPACIDAD_EXCEDIDA',
      datos: { bodegaId, capacidad: 50, ocupacion: 30, solicitado: 21 },
    });
    // Exactly full is allowed.
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 20 });
    expect(await ocupacion(bodegaId)).toBe(50);
  });

  it('answers NOT_FOUND for a missing warehouse and INVALID_ARGUMENT naming every bad field', async () => {
    expect(
      await refusal(() => svc.stock.asignarExistencia({ bodegaId: 999_999, productoId: 1, cantidad: 1 })),
    ).toMatchObject({ code: status.NOT_FOUND });
    expect(
      await refusal(() => svc.stock.asignarExistencia({ bodegaId: 0, productoId: 0, cantidad: -1, umbralMinimo: -2 })),
    ).toMatchObject({
      code: status.INVALID_ARGUMENT,
      violations: ['bodegaId', 'productoId', 'cantidad', 'umbralMinimo'],
    });
  });

  it('refuses a deleted product (PRODUCTO_ELIMINADO)', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    await eliminarProducto(productoId);
    expect(await refusal(() => svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 1 }))).toMatchObject({
      code: status.FAILED_PRECONDITION,
      reason: 'PRODUCTO_ELIMINADO',
      datos: { productoId },
    });
  });
});

describe('RetirarExistencia', () => {
  it('writes the units out (SALIDA, RETIRO), removes the level and frees its room', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 12 });

    const res = await svc.stock.retirarExistencia({ bodegaId, productoId }, ANA);

    expect(res.existia).toBe(true);
    expect(res.cantidadRetirada).toBe(12);
    expect(tipoDe(res.operacion)).toBe('RETIRO');
    expect(res.operacion!.movimientos.map(linea)).toEqual([
      {
        bodegaId,
        productoId,
        tipo: 'SALIDA',
        motivo: 'RETIRO',
        cantidad: -12,
        cantidadAnterior: 12,
        cantidadPosterior: 0,
        version: 2,
      },
    ]);
    expect((await grpcError(svc.stock.getExistencia({ bodegaId, productoId }))).code).toBe(status.NOT_FOUND);
    expect(await ocupacion(bodegaId)).toBe(0);
  });

  it('answers NOT_FOUND SIN_EXISTENCIAS, writing nothing (a keyed call records no key), when there is no level; plain NOT_FOUND for a missing warehouse', async () => {
    const bodegaId = await bodega();
    const before = await written();
    const keys = async () => Number((await svc.db('idempotency_keys').count<{ n: number }[]>({ n: '*' }))[0]!.n);
    const keysBefore = await keys();
    const none = await refusal(() =>
      svc.stock.retirarExistencia({ bodegaId, productoId: producto(), requestId: `sin-${bodegaId}` }),
    );
    expect(none).toMatchObject({ code: status.NOT_FOUND, reason: 'SIN_EXISTENCIAS' });
    expect(await written()).toEqual(before);
    expect(await keys()).toBe(keysBefore);
    expect(await refusal(() => svc.stock.retirarExistencia({ bodegaId: 999_999, productoId: 1 }))).toMatchObject({
      code: status.NOT_FOUND,
    });
  });

  it('a level assigned again after a removal continues the versions of its lines', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 10 });
    await svc.stock.registrarMovimiento({ bodegaId, productoId, tipo: SALIDA, cantidad: 3, motivo: 0 });
    await svc.stock.retirarExistencia({ bodegaId, productoId });

    const { existencia, operacion } = await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 5 });

    expect(existencia).toMatchObject({ cantidad: 5, version: 4, umbralMinimo: undefined });
    expect(operacion!.movimientos.map(linea)).toEqual([
      {
        bodegaId,
        productoId,
        tipo: 'AJUSTE',
        motivo: 'ASIGNACION',
        cantidad: 5,
        cantidadAnterior: 0,
        cantidadPosterior: 5,
        version: 4,
      },
    ]);
    expect(await lineVersions(svc.db, bodegaId, productoId)).toEqual([1, 2, 3, 4]);
    // expected_version 0 means "no level now", whatever versions its lines reached.
    await svc.stock.retirarExistencia({ bodegaId, productoId, expectedVersion: 4 });
    expect(
      (await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 1, expectedVersion: 0 })).existencia!
        .version,
    ).toBe(6);
  });
});

describe('RegistrarMovimiento', () => {
  it('ENTRADA and SALIDA move units with their default reasons, or one the type allows', async () => {
    const bodegaId = await bodega();
    const productoId = producto();

    const entrada = await svc.stock.registrarMovimiento(
      { bodegaId, productoId, tipo: ENTRADA, cantidad: 8, motivo: 0, comentario: 'camión 12' },
      ANA,
    );
    const devolucion = await svc.stock.registrarMovimiento({
      bodegaId,
      productoId,
      tipo: ENTRADA,
      cantidad: 2,
      motivo: MOTIVO_MOVIMIENTO_NAMES.value('DEVOLUCION'),
    });
    const venta = await svc.stock.registrarMovimiento({ bodegaId, productoId, tipo: SALIDA, cantidad: 3, motivo: 0 });
    const merma = await svc.stock.registrarMovimiento({
      bodegaId,
      productoId,
      tipo: SALIDA,
      cantidad: 1,
      motivo: MOTIVO_MOVIMIENTO_NAMES.value('MERMA'),
    });

    expect(
      [entrada, devolucion, venta, merma].map((r) => [tipoDe(r.operacion), ...r.operacion!.movimientos.map(linea)]),
    ).toEqual([
      [
        'ENTRADA',
        {
          bodegaId,
          productoId,
          tipo: 'ENTRADA',
          motivo: 'RECEPCION',
          cantidad: 8,
          cantidadAnterior: 0,
          cantidadPosterior: 8,
          version: 1,
        },
      ],
      [
        'ENTRADA',
        {
          bodegaId,
          productoId,
          tipo: 'ENTRADA',
          motivo: 'DEVOLUCION',
          cantidad: 2,
          cantidadAnterior: 8,
          cantidadPosterior: 10,
          version: 2,
        },
      ],
      [
        'SALIDA',
        {
          bodegaId,
          productoId,
          tipo: 'SALIDA',
          motivo: 'VENTA',
          cantidad: -3,
          cantidadAnterior: 10,
          cantidadPosterior: 7,
          version: 3,
        },
      ],
      [
        'SALIDA',
        {
          bodegaId,
          productoId,
          tipo: 'SALIDA',
          motivo: 'MERMA',
          cantidad: -1,
          cantidadAnterior: 7,
          cantidadPosterior: 6,
          version: 4,
        },
      ],
    ]);
    expect(entrada.operacion).toMatchObject({ usuario: 'ana', comentario: 'camión 12' });
    expect(entrada.operacion!.movimientos[0]).toMatchObject({ usuario: 'ana', comentario: 'camión 12' });
    expect(await ocupacion(bodegaId)).toBe(6);
  });

  it('AJUSTE sets the counted units against the version counted (CONTEO), and needs that version', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 10 });

    const conteo = await svc.stock.registrarMovimiento({
      bodegaId,
      productoId,
      tipo: AJUSTE,
      cantidad: 7,
      motivo: 0,
      expectedVersion: 1,
    });

    expect(tipoDe(conteo.operacion)).toBe('AJUSTE');
    expect(conteo.operacion!.movimientos.map(linea)).toEqual([
      {
        bodegaId,
        productoId,
        tipo: 'AJUSTE',
        motivo: 'CONTEO',
        cantidad: -3,
        cantidadAnterior: 10,
        cantidadPosterior: 7,
        version: 2,
      },
    ]);
    expect(
      await refusal(() =>
        svc.stock.registrarMovimiento({
          bodegaId,
          productoId,
          tipo: AJUSTE,
          cantidad: 9,
          motivo: 0,
          expectedVersion: 1,
        }),
      ),
    ).toMatchObject({
      code: status.ABORTED,
      reason: 'VERSION_MISMATCH',
      version: 2,
    });
    expect(
      await refusal(() =>
        svc.stock.registrarMovimiento({ bodegaId, productoId, tipo: AJUSTE, cantidad: 9, motivo: 0 }),
      ),
    ).toMatchObject({
      code: status.INVALID_ARGUMENT,
      violations: ['expectedVersion'],
    });
  });

  it('refuses an exit past the units there are (STOCK_INSUFICIENTE with disponible and solicitado), also on no level', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 4 });

    expect(
      await refusal(() =>
        svc.stock.registrarMovimiento({ bodegaId, productoId, tipo: SALIDA, cantidad: 5, motivo: 0 }),
      ),
    ).toMatchObject({
      code: status.FAILED_PRECONDITION,
      reason: 'STOCK_INSUFICIENTE',
      datos: { bodegaId, productoId, disponible: 4, solicitado: 5 },
    });
    expect(
      await refusal(() =>
        svc.stock.registrarMovimiento({ bodegaId, productoId: producto(), tipo: SALIDA, cantidad: 1, motivo: 0 }),
      ),
    ).toMatchObject({
      reason: 'STOCK_INSUFICIENTE',
      datos: { disponible: 0, solicitado: 1 },
    });
  });

  it('refuses an entry past the capacity (CAPACIDAD_EXCEDIDA)', async () => {
    const bodegaId = await bodega(10);
    const productoId = producto();
    await svc.stock.registrarMovimiento({ bodegaId, productoId, tipo: ENTRADA, cantidad: 10, motivo: 0 });
    expect(
      await refusal(() =>
        svc.stock.registrarMovimiento({ bodegaId, productoId: producto(), tipo: ENTRADA, cantidad: 1, motivo: 0 }),
      ),
    ).toMatchObject({
      reason: 'CAPACIDAD_EXCEDIDA',
      datos: { capacidad: 10, ocupacion: 10, solicitado: 1 },
    });
  });

  it('answers INVALID_ARGUMENT for a type clients may not send, a reason the type does not allow, no units, a long comment', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    const cases: [Parameters<typeof svc.stock.registrarMovimiento>[0], string[]][] = [
      [{ bodegaId, productoId, tipo: TRANSFERENCIA, cantidad: 1, motivo: 0 }, ['tipo']],
      [{ bodegaId, productoId, tipo: 0, cantidad: 1, motivo: 0 }, ['tipo']],
      [
        { bodegaId, productoId, tipo: ENTRADA, cantidad: 1, motivo: MOTIVO_MOVIMIENTO_NAMES.value('VENTA') },
        ['motivo'],
      ],
      [
        { bodegaId, productoId, tipo: SALIDA, cantidad: 1, motivo: MOTIVO_MOVIMIENTO_NAMES.value('REVERSO') },
        ['motivo'],
      ],
      [{ bodegaId, productoId, tipo: ENTRADA, cantidad: 0, motivo: 0 }, ['cantidad']],
      [
        { bodegaId, productoId, tipo: SALIDA, cantidad: -2, motivo: 0, comentario: 'x'.repeat(501) },
        ['cantidad', 'comentario'],
      ],
    ];
    for (const [request, campos] of cases)
      expect(await refusal(() => svc.stock.registrarMovimiento(request))).toMatchObject({
        code: status.INVALID_ARGUMENT,
        violations: campos,
      });
  });
});

describe('Transferir', () => {
  it('moves units in one operation of two lines, origin first, and both occupancies follow', async () => {
    const [origenId, destinoId] = [await bodega(), await bodega()];
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId: origenId, productoId, cantidad: 10 });

    const { operacion } = await svc.stock.transferir(
      { productoId, origenId, destinoId, cantidad: 4, comentario: 'reparto' },
      ANA,
    );

    expect(tipoDe(operacion)).toBe('TRANSFERENCIA');
    expect(operacion).toMatchObject({ usuario: 'ana', comentario: 'reparto' });
    expect(operacion!.movimientos.map(linea)).toEqual([
      {
        bodegaId: origenId,
        productoId,
        tipo: 'TRANSFERENCIA',
        motivo: 'TRANSFERENCIA',
        cantidad: -4,
        cantidadAnterior: 10,
        cantidadPosterior: 6,
        version: 2,
      },
      {
        bodegaId: destinoId,
        productoId,
        tipo: 'TRANSFERENCIA',
        motivo: 'TRANSFERENCIA',
        cantidad: 4,
        cantidadAnterior: 0,
        cantidadPosterior: 4,
        version: 1,
      },
    ]);
    expect(new Set(operacion!.movimientos.map((m) => m.operacionId))).toEqual(new Set([operacion!.id]));
    expect([await ocupacion(origenId), await ocupacion(destinoId)]).toEqual([6, 4]);
  });

  it('refuses, writing neither line: too few units at the origin, no room at the destination, a missing warehouse, one warehouse for both', async () => {
    const [origenId, destinoId] = [await bodega(), await bodega(5)];
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId: origenId, productoId, cantidad: 10 });

    expect(await refusal(() => svc.stock.transferir({ productoId, origenId, destinoId, cantidad: 11 }))).toMatchObject({
      reason: 'STOCK_INSUFICIENTE',
      datos: { bodegaId: origenId, disponible: 10, solicitado: 11 },
    });
    expect(await refusal(() => svc.stock.transferir({ productoId, origenId, destinoId, cantidad: 6 }))).toMatchObject({
      reason: 'CAPACIDAD_EXCEDIDA',
      datos: { bodegaId: destinoId, capacidad: 5, ocupacion: 0, solicitado: 6 },
    });
    expect(
      await refusal(() => svc.stock.transferir({ productoId, origenId, destinoId: 999_999, cantidad: 1 })),
    ).toMatchObject({ code: status.NOT_FOUND });
    expect(
      await refusal(() => svc.stock.transferir({ productoId, origenId, destinoId: origenId, cantidad: 1 })),
    ).toMatchObject({
      code: status.INVALID_ARGUMENT,
      violations: ['destinoId'],
    });
  });
});

describe('RevertirOperacion', () => {
  it('writes one compensating line per line, last first, keeping each line type (REVERSO), once', async () => {
    const [origenId, destinoId] = [await bodega(), await bodega()];
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId: origenId, productoId, cantidad: 10 });
    const { operacion: transferencia } = await svc.stock.transferir({ productoId, origenId, destinoId, cantidad: 4 });

    const { operacion } = await svc.stock.revertirOperacion(
      { operacionId: transferencia!.id, comentario: 'error de ruta' },
      ANA,
    );

    expect(tipoDe(operacion)).toBe('REVERSO');
    expect(operacion).toMatchObject({ revierteA: transferencia!.id, usuario: 'ana', comentario: 'error de ruta' });
    expect(operacion!.movimientos.map(linea)).toEqual([
      {
        bodegaId: destinoId,
        productoId,
        tipo: 'TRANSFERENCIA',
        motivo: 'REVERSO',
        cantidad: -4,
        cantidadAnterior: 4,
        cantidadPosterior: 0,
        version: 2,
      },
      {
        bodegaId: origenId,
        productoId,
        tipo: 'TRANSFERENCIA',
        motivo: 'REVERSO',
        cantidad: 4,
        cantidadAnterior: 6,
        cantidadPosterior: 10,
        version: 3,
      },
    ]);
    expect((await svc.stock.getOperacion({ id: transferencia!.id })).operacion!.revertidaPor).toBe(operacion!.id);
    expect([await ocupacion(origenId), await ocupacion(destinoId)]).toEqual([10, 0]);

    expect(await refusal(() => svc.stock.revertirOperacion({ operacionId: transferencia!.id }))).toMatchObject({
      code: status.FAILED_PRECONDITION,
      reason: 'OPERACION_YA_REVERTIDA',
    });
    expect(await refusal(() => svc.stock.revertirOperacion({ operacionId: operacion!.id }))).toMatchObject({
      reason: 'OPERACION_NO_REVERSIBLE',
    });
  });

  it('refuses a reversal that would drive a level negative, and one past a capacity', async () => {
    const bodegaId = await bodega(20);
    const productoId = producto();
    const { operacion: entrada } = await svc.stock.registrarMovimiento({
      bodegaId,
      productoId,
      tipo: ENTRADA,
      cantidad: 10,
      motivo: 0,
    });
    await svc.stock.registrarMovimiento({ bodegaId, productoId, tipo: SALIDA, cantidad: 8, motivo: 0 });
    expect(await refusal(() => svc.stock.revertirOperacion({ operacionId: entrada!.id }))).toMatchObject({
      reason: 'STOCK_INSUFICIENTE',
      datos: { disponible: 2, solicitado: 10 },
    });

    const { operacion: salida } = await svc.stock.registrarMovimiento({
      bodegaId,
      productoId,
      tipo: SALIDA,
      cantidad: 2,
      motivo: 0,
    });
    await svc.stock.asignarExistencia({ bodegaId, productoId: producto(), cantidad: 19 });
    expect(await refusal(() => svc.stock.revertirOperacion({ operacionId: salida!.id }))).toMatchObject({
      reason: 'CAPACIDAD_EXCEDIDA',
    });
  });

  it('refuses the write-outs of a deleted product or warehouse (OPERACION_NO_REVERSIBLE); NOT_FOUND and INVALID_ARGUMENT for bad ids', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 3 });
    await eliminarProducto(productoId);
    const [escrita] = await svc
      .db('operaciones')
      .where({ tipo: 'PRODUCTO_ELIMINADO' })
      .orderBy('id', 'desc')
      .limit(1)
      .pluck('id');
    expect(await refusal(() => svc.stock.revertirOperacion({ operacionId: Number(escrita) }))).toMatchObject({
      reason: 'OPERACION_NO_REVERSIBLE',
    });
    expect(await refusal(() => svc.stock.revertirOperacion({ operacionId: 987_654_321 }))).toMatchObject({
      code: status.NOT_FOUND,
    });
    expect(await refusal(() => svc.stock.revertirOperacion({ operacionId: 0 }))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      violations: ['operacionId'],
    });
  });
});

describe('warehouses holding stock', () => {
  it('UpdateBodega refuses a capacidad below the occupancy (CAPACIDAD_INSUFICIENTE) and accepts one equal to it', async () => {
    const id = await bodega(50);
    await svc.stock.asignarExistencia({ bodegaId: id, productoId: producto(), cantidad: 30 });
    const err = await grpcError(
      svc.rpc.updateBodega({ bodega: { id, version: 0, nombre: '', capacidad: 29 }, updateMask: ['capacidad'] }),
    );
    expect([err.code, errorReasonOf(err), errorDataOf(err)]).toEqual([
      status.FAILED_PRECONDITION,
      'CAPACIDAD_INSUFICIENTE',
      { capacidad: 29, ocupacion: 30 },
    ]);
    expect(
      (await svc.rpc.updateBodega({ bodega: { id, version: 0, nombre: '', capacidad: 30 }, updateMask: ['capacidad'] }))
        .bodega,
    ).toMatchObject({
      capacidad: 30,
      ocupacion: 30,
    });
  });

  it('DeleteBodega refuses one holding a level (even of 0 units) unless retirar_existencias, which writes its stock out (BODEGA_ELIMINADA) and keeps the lines', async () => {
    const id = await bodega();
    const [p1, p2] = [producto(), producto()];
    await svc.stock.asignarExistencia({ bodegaId: id, productoId: p1, cantidad: 6 });
    await svc.stock.asignarExistencia({ bodegaId: id, productoId: p2, cantidad: 0 });

    const err = await grpcError(svc.rpc.deleteBodega({ id }));
    expect([err.code, errorReasonOf(err)]).toEqual([status.FAILED_PRECONDITION, 'BODEGA_CON_EXISTENCIAS']);

    expect(await svc.rpc.deleteBodega({ id, retirarExistencias: true }, ANA)).toEqual({
      existenciasRetiradas: 2,
      unidadesRetiradas: 6,
      pendiente: false,
      // Not asked to unassign products (desasignar_productos): an empty report.
      productosDesasignados: [],
      totalDesasignados: 0,
    });
    expect((await grpcError(svc.rpc.getBodega({ id }))).code).toBe(status.NOT_FOUND);
    const [op] = await svc
      .db('operaciones')
      .where({ tipo: 'BODEGA_ELIMINADA' })
      .orderBy('id', 'desc')
      .limit(1)
      .select('id', 'usuario');
    const { operacion } = await svc.stock.getOperacion({ id: Number(op.id) });
    expect(operacion!.usuario).toBe('ana');
    expect(operacion!.movimientos.map(linea)).toEqual([
      {
        bodegaId: id,
        productoId: p1,
        tipo: 'SALIDA',
        motivo: 'BODEGA_ELIMINADA',
        cantidad: -6,
        cantidadAnterior: 6,
        cantidadPosterior: 0,
        version: 2,
      },
      {
        bodegaId: id,
        productoId: p2,
        tipo: 'SALIDA',
        motivo: 'BODEGA_ELIMINADA',
        cantidad: 0,
        cantidadAnterior: 0,
        cantidadPosterior: 0,
        version: 2,
      },
    ]);
    expect(await svc.db('existencias').where({ bodega_id: id }).select()).toEqual([]);
    expect(
      (await svc.stock.listMovimientos({ pageSize: 10, pageToken: '', bodegaId: id, tipo: 0 })).movimientos,
    ).toHaveLength(4);
  });
});

describe('ProductoEliminado (retirarProductoEliminado)', () => {
  it('writes the product out everywhere in one operation by system, and later writes of it are refused; a second delivery writes nothing', async () => {
    const [b1, b2] = [await bodega(), await bodega()];
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId: b1, productoId, cantidad: 3 });
    await svc.stock.asignarExistencia({ bodegaId: b2, productoId, cantidad: 4 });

    await eliminarProducto(productoId);
    const before = await written();
    await eliminarProducto(productoId);
    expect(await written()).toEqual(before);

    const lineas = await svc.stock.listMovimientos({ pageSize: 10, pageToken: '', productoId, tipo: 0 });
    const escritas = lineas.movimientos.filter((m) => MOTIVO_MOVIMIENTO_NAMES.name(m.motivo) === 'PRODUCTO_ELIMINADO');
    expect(escritas.map(linea).sort((x, y) => x.bodegaId - y.bodegaId)).toEqual([
      {
        bodegaId: b1,
        productoId,
        tipo: 'SALIDA',
        motivo: 'PRODUCTO_ELIMINADO',
        cantidad: -3,
        cantidadAnterior: 3,
        cantidadPosterior: 0,
        version: 2,
      },
      {
        bodegaId: b2,
        productoId,
        tipo: 'SALIDA',
        motivo: 'PRODUCTO_ELIMINADO',
        cantidad: -4,
        cantidadAnterior: 4,
        cantidadPosterior: 0,
        version: 2,
      },
    ]);
    expect(new Set(escritas.map((m) => m.operacionId)).size).toBe(1);
    expect((await svc.stock.getOperacion({ id: escritas[0]!.operacionId })).operacion).toMatchObject({
      usuario: 'system',
    });
    expect([await ocupacion(b1), await ocupacion(b2)]).toEqual([0, 0]);
    for (const call of [
      () => svc.stock.registrarMovimiento({ bodegaId: b1, productoId, tipo: ENTRADA, cantidad: 1, motivo: 0 }),
      () => svc.stock.transferir({ productoId, origenId: b1, destinoId: b2, cantidad: 1 }),
    ]) {
      expect(await refusal(call)).toMatchObject({ reason: 'PRODUCTO_ELIMINADO' });
    }
  });
});

describe('reads', () => {
  it('ListExistencias pages by (warehouse, product) and filters; GetExistencia is NOT_FOUND for no level', async () => {
    const [b1, b2] = [await bodega(), await bodega()];
    const [p1, p2] = [producto(), producto()];
    // Assigned out of order; the units tell the levels apart.
    for (const [bodegaId, productoId, cantidad] of [
      [b2, p2, 4],
      [b1, p2, 2],
      [b2, p1, 3],
      [b1, p1, 1],
    ] as const)
      await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad });

    const first = await svc.stock.listExistencias({ pageSize: 3, pageToken: '', bodegaIds: [b1, b2], productoIds: [] });
    const second = await svc.stock.listExistencias({
      pageSize: 3,
      pageToken: first.nextPageToken,
      bodegaIds: [b1, b2],
      productoIds: [],
    });
    expect([...first.existencias, ...second.existencias].map((e) => [e.bodegaId, e.productoId, e.cantidad])).toEqual([
      [b1, p1, 1],
      [b1, p2, 2],
      [b2, p1, 3],
      [b2, p2, 4],
    ]);
    expect(second.nextPageToken).toBe('');
    expect(
      (
        await svc.stock.listExistencias({ pageSize: 0, pageToken: '', bodegaIds: [], productoIds: [p2] })
      ).existencias.map((e) => e.bodegaId),
    ).toEqual([b1, b2]);
    expect(
      (await grpcError(svc.stock.listExistencias({ pageSize: 1, pageToken: 'basura', bodegaIds: [], productoIds: [] })))
        .code,
    ).toBe(status.INVALID_ARGUMENT);
    expect((await grpcError(svc.stock.getExistencia({ bodegaId: b1, productoId: producto() }))).code).toBe(
      status.NOT_FOUND,
    );
  });

  it('ListMovimientos is newest first with keyset pages, filtered by warehouse, product, type and operation', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 5 });
    await svc.stock.registrarMovimiento({ bodegaId, productoId, tipo: ENTRADA, cantidad: 2, motivo: 0 });
    const { operacion } = await svc.stock.registrarMovimiento({
      bodegaId,
      productoId,
      tipo: SALIDA,
      cantidad: 1,
      motivo: 0,
    });

    const page1 = await svc.stock.listMovimientos({ pageSize: 2, pageToken: '', bodegaId, productoId, tipo: 0 });
    const page2 = await svc.stock.listMovimientos({
      pageSize: 2,
      pageToken: page1.nextPageToken,
      bodegaId,
      productoId,
      tipo: 0,
    });
    expect([...page1.movimientos, ...page2.movimientos].map((m) => m.version)).toEqual([3, 2, 1]);
    expect(page2.nextPageToken).toBe('');
    expect(
      (await svc.stock.listMovimientos({ pageSize: 10, pageToken: '', bodegaId, tipo: ENTRADA })).movimientos.map(
        (m) => m.cantidad,
      ),
    ).toEqual([2]);
    expect(
      (
        await svc.stock.listMovimientos({ pageSize: 10, pageToken: '', operacionId: operacion!.id, tipo: 0 })
      ).movimientos.map(linea),
    ).toEqual(operacion!.movimientos.map(linea));
    expect((await grpcError(svc.stock.listMovimientos({ pageSize: 10, pageToken: 'x', tipo: 0 }))).code).toBe(
      status.INVALID_ARGUMENT,
    );
  });

  it('GetOperacion answers an operation with its lines, NOT_FOUND for an unknown id', async () => {
    const bodegaId = await bodega();
    const { operacion } = await svc.stock.asignarExistencia({ bodegaId, productoId: producto(), cantidad: 2 }, ANA);
    expect((await svc.stock.getOperacion({ id: operacion!.id })).operacion).toEqual(operacion);
    expect((await grpcError(svc.stock.getOperacion({ id: 987_654_321 }))).code).toBe(status.NOT_FOUND);
  });
});

describe('keyed writes (request_id)', () => {
  it('a repeat answers the first answer and writes nothing; another request under the key is refused', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    const request = { bodegaId, productoId, tipo: ENTRADA, cantidad: 3, motivo: 0, requestId: `rpc-${productoId}` };

    const first = await svc.stock.registrarMovimiento(request, ANA);
    const before = await written();
    expect(await svc.stock.registrarMovimiento(request, ANA)).toEqual(first);
    expect(await written()).toEqual(before);
    expect(await refusal(() => svc.stock.registrarMovimiento({ ...request, cantidad: 4 }, ANA))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      reason: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect(
      await svc.db('operaciones').where({ clave_idempotencia: request.requestId }).count<{ n: number }[]>({ n: '*' }),
    ).toEqual([{ n: 1 }]);
  });

  it('a refused write records nothing under its key: a repeat runs again, and succeeds once the state allows it', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    const request = { bodegaId, productoId, tipo: SALIDA, cantidad: 3, motivo: 0, requestId: `rpc-${productoId}` };
    expect(await refusal(() => svc.stock.registrarMovimiento(request))).toMatchObject({ reason: 'STOCK_INSUFICIENTE' });
    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 3 });
    expect(
      (await svc.stock.registrarMovimiento(request)).operacion!.movimientos.map((m) => m.cantidadPosterior),
    ).toEqual([0]);
  });
});
