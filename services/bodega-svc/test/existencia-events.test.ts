/**
 * The stock events on JetStream (docs/contract.md §10.4), through the
 * outbox of the real service: one MovimientoRegistrado per operation with
 * all its lines (a transfer's has both), StockBajo when a level crosses to
 * at or below its threshold and StockRepuesto when it crosses back, once
 * per crossing and never while it stays on one side; a refused write
 * publishes nothing.
 */
import { formatLocalUtc } from '@inventario/platform';
import { TIPO_MOVIMIENTO_NAMES } from '@inventario/proto';
import type { StoredEvent } from '@inventario/testkit';
import { asUser, grpcError, startTestService, type TestService } from './support/test-service';

const ENTRADA = TIPO_MOVIMIENTO_NAMES.value('ENTRADA');
const SALIDA = TIPO_MOVIMIENTO_NAMES.value('SALIDA');
const AJUSTE = TIPO_MOVIMIENTO_NAMES.value('AJUSTE');
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService('bodega_stock_events');
});

afterAll(async () => {
  await svc?.close();
});

let seq = 0;
async function bodega(capacidad = 1000): Promise<number> {
  seq += 1;
  return (await svc.rpc.createBodega({ nombre: `Eventos ${seq}`, capacidad })).bodega!.id;
}

function producto(): number {
  seq += 1;
  return 300 + seq;
}

const typeOf = (e: StoredEvent) => e.body.eventType.split('.').at(-1);

/** The StockBajo / StockRepuesto of one level, in stream order, as [type, cantidad]. */
async function umbralesDe(bodegaId: number, productoId: number): Promise<[string | undefined, unknown][]> {
  return (await svc.publishedEvents())
    .filter((e) => e.body.subject === `/bodegas/${bodegaId}/existencias/${productoId}`)
    .map((e) => [typeOf(e), e.body.data['cantidad']]);
}

/** The MovimientoRegistrado of one operation. */
async function registradosDe(operacionId: number): Promise<StoredEvent[]> {
  return (await svc.publishedEvents()).filter(
    (e) => typeOf(e) === 'MovimientoRegistrado' && e.body.subject === `/operaciones/${operacionId}`,
  );
}

describe('MovimientoRegistrado', () => {
  it('publishes one per operation with its lines, the envelope of the contract and the call trace', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    const { operacion } = await svc.stock.registrarMovimiento(
      { bodegaId, productoId, tipo: ENTRADA, cantidad: 9, motivo: 0, comentario: 'factura 7' },
      asUser('ana', TRACEPARENT),
    );

    const events = await registradosDe(operacion!.id);

    expect(events).toHaveLength(1);
    const [event] = events as [StoredEvent];
    const at = formatLocalUtc(operacion!.fecha!);
    expect(event.subject).toBe(`${svc.ns.prefix}.movimiento.registrado`);
    expect(event.headers['Nats-Msg-Id']).toBe(event.body.id);
    expect(event.headers['traceparent']).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-/);
    expect(event.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      eventType: 'Service.Inventario.MovimientoRegistrado',
      subject: `/operaciones/${operacion!.id}`,
      eventTime: at,
      dataVersion: '1.0',
      source: 'bodega-svc',
      data: {
        operacionId: operacion!.id,
        tipoOperacion: 'ENTRADA',
        usuario: 'ana',
        comentario: 'factura 7',
        revierteA: null,
        timestamp: at,
        movimientos: [
          {
            id: operacion!.movimientos[0]!.id,
            operacionId: operacion!.id,
            bodegaId,
            productoId,
            tipo: 'ENTRADA',
            motivo: 'RECEPCION',
            cantidad: 9,
            cantidadAnterior: 0,
            cantidadPosterior: 9,
            version: 1,
            usuario: 'ana',
            comentario: 'factura 7',
            fecha: at,
          },
        ],
      },
    });
  });

  it("publishes a transfer as one event holding both lines, and its reversal's with revierteA", async () => {
    const [origenId, destinoId] = [await bodega(), await bodega()];
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId: origenId, productoId, cantidad: 10 });
    const { operacion } = await svc.stock.transferir({ productoId, origenId, destinoId, cantidad: 6 });
    const { operacion: reverso } = await svc.stock.revertirOperacion({ operacionId: operacion!.id });

    const [transferencia] = await registradosDe(operacion!.id);
    const data = transferencia!.body.data as {
      tipoOperacion: string;
      movimientos: { bodegaId: number; cantidad: number }[];
    };
    expect(data.tipoOperacion).toBe('TRANSFERENCIA');
    expect(data.movimientos.map((m) => [m.bodegaId, m.cantidad])).toEqual([
      [origenId, -6],
      [destinoId, 6],
    ]);
    expect(await registradosDe(operacion!.id)).toHaveLength(1);

    const [revertida] = await registradosDe(reverso!.id);
    expect(revertida!.body.data).toMatchObject({ tipoOperacion: 'REVERSO', revierteA: operacion!.id });
    expect((revertida!.body.data as { movimientos: unknown[] }).movimientos).toHaveLength(2);
  });

  it('publishes exactly one per committed operation and none for a refused write', async () => {
    const bodegaId = await bodega(10);
    const productoId = producto();
    const ids: number[] = [];
    ids.push((await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 5 })).operacion!.id);
    ids.push(
      (await svc.stock.registrarMovimiento({ bodegaId, productoId, tipo: SALIDA, cantidad: 2, motivo: 0 })).operacion!
        .id,
    );
    await grpcError(svc.stock.registrarMovimiento({ bodegaId, productoId, tipo: SALIDA, cantidad: 4, motivo: 0 }));
    await grpcError(svc.stock.registrarMovimiento({ bodegaId, productoId, tipo: ENTRADA, cantidad: 8, motivo: 0 }));
    ids.push(
      (
        await svc.stock.registrarMovimiento({
          bodegaId,
          productoId,
          tipo: AJUSTE,
          cantidad: 3,
          motivo: 0,
          expectedVersion: 2,
        })
      ).operacion!.id,
    );
    ids.push((await svc.stock.retirarExistencia({ bodegaId, productoId })).operacion!.id);

    const events = (await svc.publishedEvents()).filter(
      (e) =>
        typeOf(e) === 'MovimientoRegistrado' &&
        (e.body.data as { movimientos: { bodegaId: number }[] }).movimientos.some((m) => m.bodegaId === bodegaId),
    );
    expect(events.map((e) => e.body.subject)).toEqual(ids.map((id) => `/operaciones/${id}`));
    // The event carries the lines GetOperacion answers.
    const figures = (m: {
      id: number;
      version: number;
      cantidad: number;
      cantidadAnterior: number;
      cantidadPosterior: number;
    }) => [m.id, m.version, m.cantidad, m.cantidadAnterior, m.cantidadPosterior];
    for (const id of ids) {
      const { operacion } = await svc.stock.getOperacion({ id });
      const [event] = await registradosDe(id);
      expect((event!.body.data as { movimientos: Parameters<typeof figures>[0][] }).movimientos.map(figures)).toEqual(
        operacion!.movimientos.map(figures),
      );
    }
  });
});

describe('StockBajo and StockRepuesto', () => {
  it('fire once per crossing of the threshold (at or below is low), never while the level stays on one side', async () => {
    const bodegaId = await bodega();
    const productoId = producto();
    const mover = (tipo: number, cantidad: number) =>
      svc.stock.registrarMovimiento({ bodegaId, productoId, tipo, cantidad, motivo: 0 }, asUser('luis'));

    await svc.stock.asignarExistencia({ bodegaId, productoId, cantidad: 10, umbralMinimo: 5 }); // 10: above
    await mover(SALIDA, 4); // 6: above
    const { operacion: cruce } = await mover(SALIDA, 1); // 5: at the threshold, low
    await mover(SALIDA, 2); // 3: stays low
    await mover(SALIDA, 3); // 0: stays low
    await mover(ENTRADA, 5); // 5: stays low
    await mover(ENTRADA, 1); // 6: back above
    await mover(ENTRADA, 10); // 16: stays above
    await mover(SALIDA, 16); // 0: low

    expect(await umbralesDe(bodegaId, productoId)).toEqual([
      ['StockBajo', 5],
      ['StockRepuesto', 6],
      ['StockBajo', 0],
    ]);
    const [bajo] = (await svc.publishedEvents()).filter(
      (e) => e.body.subject === `/bodegas/${bodegaId}/existencias/${productoId}`,
    );
    expect(bajo!.subject).toBe(`${svc.ns.prefix}.stock.bajo`);
    expect(bajo!.body).toMatchObject({
      eventType: 'Service.Inventario.StockBajo',
      source: 'bodega-svc',
      data: {
        bodegaId,
        productoId,
        cantidad: 5,
        umbralMinimo: 5,
        version: 3,
        operacionId: cruce!.id,
        usuario: 'luis',
        timestamp: formatLocalUtc(cruce!.fecha!),
      },
    });
  });

  it('fire on a new level created at or below its threshold, on a threshold raised over the units, and not when a low level is removed', async () => {
    const bodegaId = await bodega();
    const [nuevo, subido] = [producto(), producto()];

    await svc.stock.asignarExistencia({ bodegaId, productoId: nuevo, cantidad: 2, umbralMinimo: 2 }); // created low
    await svc.stock.retirarExistencia({ bodegaId, productoId: nuevo }); // removed while low: nothing
    await svc.stock.asignarExistencia({ bodegaId, productoId: subido, cantidad: 8 }); // no threshold: never low
    await svc.stock.asignarExistencia({ bodegaId, productoId: subido, cantidad: 8, umbralMinimo: 8 }); // the threshold reaches the units
    await svc.stock.asignarExistencia({ bodegaId, productoId: subido, cantidad: 8, umbralMinimo: 7 }); // and goes below them

    expect(await umbralesDe(bodegaId, nuevo)).toEqual([['StockBajo', 2]]);
    expect(await umbralesDe(bodegaId, subido)).toEqual([
      ['StockBajo', 8],
      ['StockRepuesto', 8],
    ]);
  });

  it('a transfer can cross both levels at once: StockBajo at the origin and StockRepuesto at the destination', async () => {
    const [origenId, destinoId] = [await bodega(), await bodega()];
    const productoId = producto();
    await svc.stock.asignarExistencia({ bodegaId: origenId, productoId, cantidad: 6, umbralMinimo: 3 });
    await svc.stock.asignarExistencia({ bodegaId: destinoId, productoId, cantidad: 1, umbralMinimo: 3 }); // low

    await svc.stock.transferir({ productoId, origenId, destinoId, cantidad: 3 }); // 3 (low) and 4 (above)

    expect(await umbralesDe(origenId, productoId)).toEqual([['StockBajo', 3]]);
    expect(await umbralesDe(destinoId, productoId)).toEqual([
      ['StockBajo', 1],
      ['StockRepuesto', 4],
    ]);
  });
});
