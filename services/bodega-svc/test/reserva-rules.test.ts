/**
 * Reservations (docs/contract.md §13) against a real MariaDB, the database clock held by the
 * test: a reservation's life, all-or-nothing creation aggregated per level, the exact instant
 * of expiry (to the microsecond, swept or not), one-time releases, and every other write
 * respecting the holds (STOCK_RESERVADO) or, for a count or a deletion, uncovering them.
 * After each test the holds' invariants hold in SQL.
 */
import { FailedPreconditionError, InvalidArgumentError, type DomainError } from '@inventario/platform';
import { validateNuevaReserva, LIMITES_RESERVA, type LineaSolicitada } from '../src/domain/reserva';
import {
  eventosDeReserva,
  problemasDeReservas,
  startReservasHarness,
  USUARIO,
  type ReservasHarness,
} from './support/reservas-harness';

let h: ReservasHarness;
let seq = 0;

beforeAll(async () => {
  h = await startReservasHarness('reserva_rules');
});

afterAll(async () => {
  await h?.close();
});

beforeEach(async () => {
  await h.fijarReloj('2030-01-01 00:00:00.000000');
});

afterEach(async () => {
  expect(await problemasDeReservas(h)).toEqual([]);
});

async function bodega(capacidad = 1000): Promise<number> {
  seq += 1;
  return (await h.bodegas.create({ nombre: `Reservas ${seq}`, ubicacion: null, capacidad }, USUARIO)).id;
}

function producto(): number {
  seq += 1;
  return 7000 + seq;
}

async function nivel(bodegaId: number, productoId: number, cantidad: number): Promise<void> {
  await h.existencias.asignar({ bodegaId, productoId, cantidad, umbralMinimo: undefined }, USUARIO, {});
}

const reservar = (referencia: string, lineas: LineaSolicitada[], ttlSegundos = 60) =>
  h.reservas.crear(validateNuevaReserva({ referencia, ttlSegundos, lineas }, LIMITES_RESERVA), USUARIO);

async function refusal(
  call: Promise<unknown>,
): Promise<DomainError & { reason?: string; datos?: Record<string, unknown> }> {
  try {
    await call;
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('expected a refusal');
}

const ref = () => `pedido-${++seq}`;

describe('a reservation', () => {
  it('holds units: disponible falls, cantidad stays; a partial consume writes a SALIDA and lowers both; liberarResto ends it', async () => {
    const b = await bodega();
    const p = producto();
    await nivel(b, p, 10);
    const r = await reservar(ref(), [{ bodegaId: b, productoId: p, cantidad: 4 }]);
    expect(r).toMatchObject({
      estado: 'ACTIVA',
      version: 1,
      usuario: 'prueba',
      lineas: [{ bodegaId: b, productoId: p, cantidad: 4, consumida: 0, retenida: 4 }],
    });
    expect(r.expiraEn.toISOString()).toBe('2030-01-01T00:01:00.000Z');
    expect(await h.existencias.get(b, p)).toMatchObject({ cantidad: 10, reservada: 4 });

    const parcial = await h.reservas.consumir(
      r.id,
      { lineas: [{ lineaId: r.lineas[0]!.id, cantidad: 1 }], liberarResto: false, comentario: null },
      USUARIO,
      {},
    );
    expect(parcial.reserva).toMatchObject({ estado: 'ACTIVA', version: 2, lineas: [{ consumida: 1, retenida: 3 }] });
    const op = await h.existencias.getOperacion(parcial.operacionId!);
    expect(op.movimientos).toMatchObject([
      { tipo: 'SALIDA', motivo: 'VENTA', cantidad: -1, cantidadAnterior: 10, cantidadPosterior: 9 },
    ]);
    expect(await h.existencias.get(b, p)).toMatchObject({ cantidad: 9, reservada: 3 });

    const fin = await h.reservas.consumir(
      r.id,
      { lineas: [{ lineaId: r.lineas[0]!.id, cantidad: 1 }], liberarResto: true, comentario: null },
      USUARIO,
      {},
    );
    expect(fin.reserva).toMatchObject({ estado: 'CONSUMIDA', lineas: [{ consumida: 2, retenida: 0 }] });
    expect(await h.existencias.get(b, p)).toMatchObject({ cantidad: 8, reservada: 0 });
    const eventos = (await eventosDeReserva(h.db)).filter((e) => e.reservaId === r.id);
    expect(eventos.map((e) => [e.tipo, e.estado])).toEqual([
      ['creada', 'ACTIVA'],
      ['consumida', 'ACTIVA'],
      ['consumida', 'CONSUMIDA'],
    ]);
  });

  it('aggregates lines of one level before the check and refuses all or nothing with disponible per short line', async () => {
    const b = await bodega();
    const p1 = producto();
    const p2 = producto();
    await nivel(b, p1, 5);
    await nivel(b, p2, 2);
    const err = await refusal(
      reservar(ref(), [
        { bodegaId: b, productoId: p1, cantidad: 3 },
        { bodegaId: b, productoId: p2, cantidad: 1 },
        { bodegaId: b, productoId: p1, cantidad: 3 },
      ]),
    );
    expect(err).toBeInstanceOf(FailedPreconditionError);
    expect(err.reason).toBe('STOCK_INSUFICIENTE');
    expect(JSON.parse(String(err.datos!.lineas))).toEqual([
      { bodegaId: b, productoId: p1, solicitado: 6, disponible: 5 },
    ]);
    expect((await h.existencias.get(b, p1)).reservada).toBe(0);
    expect((await h.existencias.get(b, p2)).reservada).toBe(0);
    const ok = await reservar(ref(), [
      { bodegaId: b, productoId: p1, cantidad: 2 },
      { bodegaId: b, productoId: p1, cantidad: 3 },
    ]);
    expect(ok.lineas).toMatchObject([{ productoId: p1, cantidad: 5, retenida: 5 }]);
    // A level with no units is disponible 0, a warehouse that does not exist a 404 naming the line.
    const sin = await refusal(reservar(ref(), [{ bodegaId: b, productoId: producto(), cantidad: 1 }]));
    expect(sin.reason).toBe('STOCK_INSUFICIENTE');
    const noBodega = await refusal(reservar(ref(), [{ bodegaId: 999_999, productoId: p1, cantidad: 1 }]));
    expect(noBodega.code).toBe('NOT_FOUND');
  });

  it('allows one active reservation per referencia; a due one does not block a new one', async () => {
    const b = await bodega();
    const p = producto();
    await nivel(b, p, 10);
    const referencia = ref();
    const primera = await reservar(referencia, [{ bodegaId: b, productoId: p, cantidad: 1 }], 10);
    const err = await refusal(reservar(referencia, [{ bodegaId: b, productoId: p, cantidad: 1 }]));
    expect(err.reason).toBe('RESERVA_ACTIVA_EXISTENTE');
    expect(err.datos).toMatchObject({ reservaId: primera.id });
    await h.avanzar(10_000_000);
    const segunda = await reservar(referencia, [{ bodegaId: b, productoId: p, cantidad: 1 }]);
    expect(segunda.estado).toBe('ACTIVA');
    expect((await h.reservas.get(primera.id)).estado).toBe('EXPIRADA');
    expect((await h.existencias.get(b, p)).reservada).toBe(1);
  });
});

describe('expiry is exact', () => {
  it('a consume one microsecond before the expiry succeeds; at the expiry it is refused RESERVA_EXPIRADA, unswept', async () => {
    const b = await bodega();
    const p = producto();
    await nivel(b, p, 10);
    const a = await reservar(ref(), [{ bodegaId: b, productoId: p, cantidad: 2 }], 30);
    const c = await reservar(ref(), [{ bodegaId: b, productoId: p, cantidad: 2 }], 30);
    await h.fijarReloj('2030-01-01 00:00:29.999999');
    expect((await h.existencias.get(b, p)).reservada).toBe(4);
    const antes = await h.reservas.consumir(a.id, { lineas: [], liberarResto: false, comentario: null }, USUARIO, {});
    expect(antes.reserva.estado).toBe('CONSUMIDA');
    await h.avanzar(1);
    const err = await refusal(
      h.reservas.consumir(c.id, { lineas: [], liberarResto: false, comentario: null }, USUARIO, {}),
    );
    expect(err.reason).toBe('RESERVA_EXPIRADA');
    // Not swept yet, it already holds nothing: reads and writes see every unit available.
    expect(await h.existencias.get(b, p)).toMatchObject({ cantidad: 8, reservada: 0 });
    expect((await h.reservas.get(c.id)).estado).toBe('EXPIRADA');
    const op = await h.existencias.registrarMovimiento(
      { bodegaId: b, productoId: p, tipo: 'SALIDA', motivo: 'VENTA', cantidad: 8, comentario: null },
      USUARIO,
      {},
    );
    expect(op.movimientos[0]).toMatchObject({ cantidadPosterior: 0 });
    // The sweeper records it once, with one event.
    expect(await h.reservas.barrer(100)).toBeGreaterThanOrEqual(1);
    expect(await h.reservas.barrer(100)).toBe(0);
    const eventos = (await eventosDeReserva(h.db)).filter((e) => e.reservaId === c.id).map((e) => e.tipo);
    expect(eventos).toEqual(['creada', 'expirada']);
    // Extending is refused once due.
    const ext = await refusal(h.reservas.extender(c.id, new Date('2030-01-01T00:10:00Z'), USUARIO, {}));
    expect(ext.reason).toBe('RESERVA_EXPIRADA');
  });

  it('extends an active hold under its version, later and within the maximum only', async () => {
    const b = await bodega();
    const p = producto();
    await nivel(b, p, 3);
    const r = await reservar(ref(), [{ bodegaId: b, productoId: p, cantidad: 3 }], 30);
    expect(
      (await refusal(h.reservas.extender(r.id, new Date('2030-01-01T00:10:00Z'), USUARIO, { expectedVersion: 7 })))
        .code,
    ).toBe('ABORTED');
    expect(await refusal(h.reservas.extender(r.id, new Date('2030-01-01T00:00:10Z'), USUARIO, {}))).toBeInstanceOf(
      InvalidArgumentError,
    );
    expect(await refusal(h.reservas.extender(r.id, new Date('2030-01-09T00:00:00Z'), USUARIO, {}))).toBeInstanceOf(
      InvalidArgumentError,
    );
    const ext = await h.reservas.extender(r.id, new Date('2030-01-01T00:10:00Z'), USUARIO, { expectedVersion: 1 });
    expect(ext).toMatchObject({ version: 2, estado: 'ACTIVA' });
    await h.fijarReloj('2030-01-01 00:05:00');
    expect((await h.existencias.get(b, p)).reservada).toBe(3);
    await h.reservas.liberar(r.id, USUARIO, {});
  });
});

describe('release', () => {
  it('is one transition: a repeat answers LIBERADA without a second event; consuming it after is 409 RESERVA_LIBERADA', async () => {
    const b = await bodega();
    const p = producto();
    await nivel(b, p, 5);
    const r = await reservar(ref(), [{ bodegaId: b, productoId: p, cantidad: 5 }]);
    const uno = await h.reservas.liberar(r.id, USUARIO, {});
    const dos = await h.reservas.liberar(r.id, USUARIO, {});
    expect(uno).toEqual(dos);
    expect(uno.estado).toBe('LIBERADA');
    expect(
      (await refusal(h.reservas.consumir(r.id, { lineas: [], liberarResto: false, comentario: null }, USUARIO, {})))
        .reason,
    ).toBe('RESERVA_LIBERADA');
    expect((await eventosDeReserva(h.db)).filter((e) => e.reservaId === r.id).map((e) => e.tipo)).toEqual([
      'creada',
      'liberada',
    ]);
    expect((await h.existencias.get(b, p)).reservada).toBe(0);
    // A consumed reservation is not released: 409 naming its state.
    const c = await reservar(ref(), [{ bodegaId: b, productoId: p, cantidad: 1 }]);
    await h.reservas.consumir(c.id, { lineas: [], liberarResto: false, comentario: null }, USUARIO, {});
    expect((await refusal(h.reservas.liberar(c.id, USUARIO, {}))).reason).toBe('RESERVA_CONSUMIDA');
  });
});

describe('every other write respects the holds', () => {
  it('an unreserved exit, a transfer out and a level removal that would take held units are 409 STOCK_RESERVADO, writing nothing', async () => {
    const b = await bodega();
    const otra = await bodega();
    const p = producto();
    await nivel(b, p, 10);
    await reservar(ref(), [{ bodegaId: b, productoId: p, cantidad: 6 }]);
    const salida = await refusal(
      h.existencias.registrarMovimiento(
        { bodegaId: b, productoId: p, tipo: 'SALIDA', motivo: 'VENTA', cantidad: 5, comentario: null },
        USUARIO,
        {},
      ),
    );
    expect(salida.reason).toBe('STOCK_RESERVADO');
    expect(salida.datos).toMatchObject({ disponible: 4, reservada: 6 });
    const transferencia = await refusal(
      h.existencias.transferir(
        { productoId: p, origenId: b, destinoId: otra, cantidad: 5, comentario: null },
        USUARIO,
        {},
      ),
    );
    expect(transferencia.reason).toBe('STOCK_RESERVADO');
    expect((await refusal(h.existencias.retirar(b, p, USUARIO, {}))).reason).toBe('STOCK_RESERVADO');
    await h.existencias.registrarMovimiento(
      { bodegaId: b, productoId: p, tipo: 'SALIDA', motivo: 'VENTA', cantidad: 4, comentario: null },
      USUARIO,
      {},
    );
    expect(await h.existencias.get(b, p)).toMatchObject({ cantidad: 6, reservada: 6 });
  });

  it('a count below the reserved figure is never blocked: the newest holds become DESCUBIERTA with their faltante', async () => {
    const b = await bodega();
    const p = producto();
    await nivel(b, p, 10);
    const vieja = await reservar(ref(), [{ bodegaId: b, productoId: p, cantidad: 4 }]);
    const nueva = await reservar(ref(), [{ bodegaId: b, productoId: p, cantidad: 4 }]);
    await h.existencias.registrarMovimiento(
      { bodegaId: b, productoId: p, tipo: 'AJUSTE', motivo: 'CONTEO', cantidad: 5, comentario: null },
      USUARIO,
      {},
    );
    expect(await h.existencias.get(b, p)).toMatchObject({ cantidad: 5, reservada: 4 });
    expect((await h.reservas.get(vieja.id)).estado).toBe('ACTIVA');
    expect((await h.reservas.get(nueva.id)).estado).toBe('DESCUBIERTA');
    const ev = (await eventosDeReserva(h.db)).filter((e) => e.reservaId === nueva.id);
    expect(ev.map((e) => e.tipo)).toEqual(['creada', 'descubierta']);
    expect(ev[1]!.faltante).toEqual([{ bodegaId: b, productoId: p, unidades: 3 }]);
  });

  it("a product's deletion ends the holds it touches, on every level of those reservations", async () => {
    const b = await bodega();
    const p = producto();
    const q = producto();
    await nivel(b, p, 3);
    await nivel(b, q, 3);
    const r = await reservar(ref(), [
      { bodegaId: b, productoId: p, cantidad: 2 },
      { bodegaId: b, productoId: q, cantidad: 2 },
    ]);
    await h.existencias.retirarProductoEliminado(p);
    expect((await h.reservas.get(r.id)).estado).toBe('DESCUBIERTA');
    expect((await h.existencias.get(b, q)).reservada).toBe(0);
  });

  it('a forced warehouse delete ends the holds in it', async () => {
    const b = await bodega();
    const p = producto();
    await nivel(b, p, 3);
    const r = await reservar(ref(), [{ bodegaId: b, productoId: p, cantidad: 3 }]);
    await h.bodegas.delete(b, USUARIO, { retirarExistencias: true });
    expect((await h.reservas.get(r.id)).estado).toBe('DESCUBIERTA');
  });
});
