/**
 * CambiarUmbralMinimo (docs/contract.md §10.2, §10.5): a level's low-stock
 * threshold is set or removed without a ledger line or an operation, the
 * units untouched; the level's version (its ETag) grows by one; crossing the
 * low-stock edge publishes StockBajo / StockRepuesto with no operation; a
 * stale expected_version, a missing level or a bad request change and
 * publish nothing.
 */
import { status } from '@grpc/grpc-js';
import { ALERTA_SOBRE_NAMES, TIPO_MOVIMIENTO_NAMES, type AlertaSobre } from '@inventario/proto';
import { asUser, grpcError, startTestService, type TestService } from './support/test-service';
import { ledgerProblems } from '@inventario/testkit';

const SALIDA = TIPO_MOVIMIENTO_NAMES.value('SALIDA');

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService('bodega_umbral');
});

afterAll(async () => {
  await svc?.close();
});

let seq = 0;
async function nivel(
  cantidad: number,
  umbralMinimo?: number,
): Promise<{ bodegaId: number; productoId: number; version: number }> {
  seq += 1;
  const bodegaId = (await svc.rpc.createBodega({ nombre: `Umbral ${seq}`, capacidad: 1000 })).bodega!.id;
  const productoId = 700 + seq;
  const { existencia } = await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad, umbralMinimo });
  return { bodegaId, productoId, version: existencia!.version };
}

const lineas = async (bodegaId: number, productoId: number) =>
  Number((await svc.db('movimientos').where({ bodega_id: bodegaId, producto_id: productoId }).count({ n: '*' }))[0]!.n);
const operaciones = async () => Number((await svc.db('operaciones').count({ n: '*' }))[0]!.n);

/** The stock events of one level, as [type, data]. */
async function eventosDe(
  bodegaId: number,
  productoId: number,
): Promise<[string | undefined, Record<string, unknown>][]> {
  return (await svc.publishedEvents())
    .filter((e) => e.body.subject === `/bodegas/${bodegaId}/existencias/${productoId}`)
    .map((e) => [e.body.eventType.split('.').at(-1), e.body.data]);
}

describe('CambiarUmbralMinimo', () => {
  it('sets the threshold, keeps the units, writes no line and no operation, and moves the version by one', async () => {
    const { bodegaId, productoId, version } = await nivel(40, 5);
    const [antesLineas, antesOperaciones, antesOutbox] = [
      await lineas(bodegaId, productoId),
      await operaciones(),
      await svc.outboxCount(),
    ];

    const { existencia } = await svc.stock.cambiarUmbralMinimo(
      { bodegaId, productoId, umbralMinimo: 12 },
      asUser('ana'),
    );

    expect(existencia).toMatchObject({ bodegaId, productoId, cantidad: 40, umbralMinimo: 12, version: version + 1 });
    expect((await svc.stock.getExistencia({ bodegaId, productoId })).existencia).toMatchObject({
      cantidad: 40,
      umbralMinimo: 12,
      version: version + 1,
    });
    expect([await lineas(bodegaId, productoId), await operaciones(), await svc.outboxCount()]).toEqual([
      antesLineas,
      antesOperaciones,
      antesOutbox,
    ]);
  });

  it('publishes StockBajo (no operation) when the new threshold reaches the units, StockRepuesto when it is removed', async () => {
    const { bodegaId, productoId, version } = await nivel(8, 2);

    await svc.stock.cambiarUmbralMinimo({ bodegaId, productoId, umbralMinimo: 8 }, asUser('ana'));
    await svc.stock.cambiarUmbralMinimo({ bodegaId, productoId, umbralMinimo: 9 }, asUser('ana')); // stays low: nothing
    await svc.stock.cambiarUmbralMinimo({ bodegaId, productoId, quitarUmbralMinimo: true }, asUser('luis'));

    expect(await eventosDe(bodegaId, productoId)).toEqual([
      [
        'StockBajo',
        expect.objectContaining({
          cantidad: 8,
          umbralMinimo: 8,
          version: version + 1,
          operacionId: null,
          usuario: 'ana',
        }),
      ],
      [
        'StockRepuesto',
        expect.objectContaining({
          cantidad: 8,
          umbralMinimo: null,
          version: version + 3,
          operacionId: null,
          usuario: 'luis',
        }),
      ],
    ]);
    expect((await svc.stock.getExistencia({ bodegaId, productoId })).existencia!.umbralMinimo).toBeUndefined();
  });

  it('a later line takes the next version, and the ledger still holds', async () => {
    const { bodegaId, productoId, version } = await nivel(10);
    await svc.stock.cambiarUmbralMinimo({ bodegaId, productoId, umbralMinimo: 3 });

    const { operacion } = await svc.stock.registrarMovimiento({
      bodegaId,
      productoId,
      tipo: SALIDA,
      cantidad: 7,
      motivo: 0,
    });

    expect(operacion!.movimientos[0]).toMatchObject({
      cantidadAnterior: 10,
      cantidadPosterior: 3,
      version: version + 2,
    });
    expect(await ledgerProblems(svc.db)).toEqual([]);
    expect((await svc.stock.verificarExistencias({})).consistente).toBe(true);
  });

  it('refuses a stale expected_version (ABORTED, VERSION_MISMATCH) and changes nothing', async () => {
    const { bodegaId, productoId, version } = await nivel(10, 1);
    const outbox = await svc.outboxCount();

    const err = await grpcError(
      svc.stock.cambiarUmbralMinimo({ bodegaId, productoId, umbralMinimo: 20, expectedVersion: version + 1 }),
    );

    expect(err.code).toBe(status.ABORTED);
    expect(err.metadata.get('inventario-error-reason')).toEqual(['VERSION_MISMATCH']);
    expect((await svc.stock.getExistencia({ bodegaId, productoId })).existencia).toMatchObject({
      umbralMinimo: 1,
      version,
    });
    expect(await svc.outboxCount()).toBe(outbox);
    await svc.stock.cambiarUmbralMinimo({ bodegaId, productoId, umbralMinimo: 20, expectedVersion: version });
  });

  it('is NOT_FOUND (SIN_EXISTENCIAS) without a level, and NOT_FOUND for a missing warehouse', async () => {
    const { bodegaId } = await nivel(1);
    const sinNivel = await grpcError(svc.stock.cambiarUmbralMinimo({ bodegaId, productoId: 99_999, umbralMinimo: 1 }));
    expect([sinNivel.code, sinNivel.metadata.get('inventario-error-reason')]).toEqual([
      status.NOT_FOUND,
      ['SIN_EXISTENCIAS'],
    ]);
    expect(
      (await grpcError(svc.stock.cambiarUmbralMinimo({ bodegaId: 99_999, productoId: 1, umbralMinimo: 1 }))).code,
    ).toBe(status.NOT_FOUND);
  });

  it.each([
    ['neither a threshold nor its removal', {}, 'umbralMinimo: es obligatorio'],
    ['both', { umbralMinimo: 3, quitarUmbralMinimo: true }, 'umbralMinimo: no se puede fijar y quitar a la vez'],
    ['a negative threshold', { umbralMinimo: -1 }, 'umbralMinimo: debe ser mayor o igual que 0'],
  ])('refuses %s (INVALID_ARGUMENT naming umbralMinimo)', async (_case, fields, details) => {
    const { bodegaId, productoId } = await nivel(1);
    const err = await grpcError(svc.stock.cambiarUmbralMinimo({ bodegaId, productoId, ...fields }));
    expect([err.code, err.details]).toEqual([status.INVALID_ARGUMENT, details]);
  });

  it('sets what the threshold watches (alerta_sobre, docs/contract.md §13.9): answered on the level, kept when absent, StockBajo on crossing with the figures', async () => {
    const { bodegaId, productoId } = await nivel(10, 2);
    // Nothing reserved: disponible = cantidad, so switching crosses nothing.
    const { existencia } = await svc.stock.cambiarUmbralMinimo({
      bodegaId,
      productoId,
      umbralMinimo: 10,
      alertaSobre: ALERTA_SOBRE_NAMES.value('DISPONIBLE'),
    });
    expect(existencia).toMatchObject({ umbralMinimo: 10, alertaSobre: ALERTA_SOBRE_NAMES.value('DISPONIBLE') });
    expect(await eventosDe(bodegaId, productoId)).toEqual([
      [
        'StockBajo',
        expect.objectContaining({
          cantidad: 10,
          umbralMinimo: 10,
          operacionId: null,
          alertaSobre: 'DISPONIBLE',
          reservada: 0,
          disponible: 10,
        }),
      ],
    ]);
    const otra = await svc.stock.cambiarUmbralMinimo({ bodegaId, productoId, umbralMinimo: 3 });
    expect(otra.existencia).toMatchObject({ umbralMinimo: 3, alertaSobre: ALERTA_SOBRE_NAMES.value('DISPONIBLE') });
    expect((await eventosDe(bodegaId, productoId)).map(([tipo]) => tipo)).toEqual(['StockBajo', 'StockRepuesto']);
  });

  it('refuses an alerta_sobre outside the enum (INVALID_ARGUMENT naming alertaSobre), changing nothing', async () => {
    const { bodegaId, productoId, version } = await nivel(1);
    const err = await grpcError(
      svc.stock.cambiarUmbralMinimo({ bodegaId, productoId, umbralMinimo: 1, alertaSobre: 7 as AlertaSobre }),
    );
    expect([err.code, err.details]).toEqual([status.INVALID_ARGUMENT, 'alertaSobre: debe ser CANTIDAD o DISPONIBLE']);
    expect((await svc.stock.getExistencia({ bodegaId, productoId })).existencia).toMatchObject({
      version,
      alertaSobre: ALERTA_SOBRE_NAMES.value('CANTIDAD'),
    });
  });
});
