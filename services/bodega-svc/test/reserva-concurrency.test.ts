/**
 * Reservations under concurrency against the real MariaDB (docs/contract.md §13): many writes at
 * once, each on its own pooled connection, then every answer and the holds' invariants checked
 * in SQL. No oversell, one transition per reservation, no deadlock reaching a caller, and the
 * sweeper and a consumer never both applying at the instant of expiry.
 */
import type { DomainError } from '@inventario/platform';
import { validateNuevaReserva, LIMITES_RESERVA, type LineaSolicitada } from '../src/domain/reserva';
import {
  eventosDeReserva,
  problemasDeReservas,
  startReservasHarness,
  USUARIO,
  type ReservasHarness,
} from './support/reservas-harness';

const CLIENTES = 50;
let h: ReservasHarness;
let seq = 0;

beforeAll(async () => {
  h = await startReservasHarness('reserva_conc', 40);
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

/** What one call got: `ok`, or its error's reason (or code). */
async function resultado(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (err) {
    const e = err as DomainError & { reason?: string };
    if (typeof e.code !== 'string') throw err;
    return e.reason ?? e.code;
  }
}

function cuenta(resultados: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of resultados) out[r] = (out[r] ?? 0) + 1;
  return out;
}

async function bodega(): Promise<number> {
  seq += 1;
  return (await h.bodegas.create({ nombre: `Concurrente ${seq}`, ubicacion: null, capacidad: 100_000 }, USUARIO)).id;
}

const producto = () => 9000 + ++seq;
const ref = () => `conc-${++seq}`;
const reservar = (lineas: LineaSolicitada[], ttlSegundos = 600, referencia = ref()) =>
  h.reservas.crear(validateNuevaReserva({ referencia, ttlSegundos, lineas }, LIMITES_RESERVA), USUARIO);
const todo = { lineas: [], liberarResto: false, comentario: null };

async function nivel(bodegaId: number, productoId: number, cantidad: number): Promise<void> {
  await h.existencias.asignar({ bodegaId, productoId, cantidad, umbralMinimo: undefined }, USUARIO, {});
}

describe('concurrent reservations', () => {
  it('stock 10: 50 reservations of 1 at once → exactly 10 active, 40 STOCK_INSUFICIENTE, reservada 10, disponible 0', async () => {
    const b = await bodega();
    const p = producto();
    await nivel(b, p, 10);
    const resultados = await Promise.all(
      Array.from({ length: CLIENTES }, () => resultado(reservar([{ bodegaId: b, productoId: p, cantidad: 1 }]))),
    );
    expect(cuenta(resultados)).toEqual({ ok: 10, STOCK_INSUFICIENTE: 40 });
    const e = await h.existencias.get(b, p);
    expect({ cantidad: e.cantidad, reservada: e.reservada, disponible: e.cantidad - e.reservada! }).toEqual({
      cantidad: 10,
      reservada: 10,
      disponible: 0,
    });
    expect(
      await h
        .db('reservas')
        .where({ estado: 'ACTIVA' })
        .whereIn('id', h.db('reserva_lineas').where({ producto_id: p }).select('reserva_id'))
        .count({ n: '*' }),
    ).toEqual([{ n: 10 }]);
  });

  it('stock 10 with 6 reserved: 20 unreserved exits of 1 at once → exactly 4 succeed; the 6 reserved stay consumable', async () => {
    const b = await bodega();
    const p = producto();
    await nivel(b, p, 10);
    const holds = await Promise.all(
      Array.from({ length: 6 }, () => reservar([{ bodegaId: b, productoId: p, cantidad: 1 }])),
    );
    const salidas = await Promise.all(
      Array.from({ length: 20 }, () =>
        resultado(
          h.existencias.registrarMovimiento(
            { bodegaId: b, productoId: p, tipo: 'SALIDA', motivo: 'VENTA', cantidad: 1, comentario: null },
            USUARIO,
            {},
          ),
        ),
      ),
    );
    expect(cuenta(salidas)).toEqual({ ok: 4, STOCK_RESERVADO: 16 });
    const consumos = await Promise.all(holds.map((r) => resultado(h.reservas.consumir(r.id, todo, USUARIO, {}))));
    expect(cuenta(consumos)).toEqual({ ok: 6 });
    expect(await h.existencias.get(b, p)).toMatchObject({ cantidad: 0, reservada: 0 });
  });

  it('20 releases of one reservation at once → one transition, one event, reservada lowered once', async () => {
    const b = await bodega();
    const p = producto();
    await nivel(b, p, 10);
    const r = await reservar([{ bodegaId: b, productoId: p, cantidad: 4 }]);
    await reservar([{ bodegaId: b, productoId: p, cantidad: 3 }]);
    const resultados = await Promise.all(Array.from({ length: 20 }, () => h.reservas.liberar(r.id, USUARIO, {})));
    expect(new Set(resultados.map((x) => `${x.estado} v${x.version}`))).toEqual(new Set(['LIBERADA v2']));
    expect((await eventosDeReserva(h.db)).filter((e) => e.reservaId === r.id).map((e) => e.tipo)).toEqual([
      'creada',
      'liberada',
    ]);
    expect((await h.existencias.get(b, p)).reservada).toBe(3);
    expect(await h.db('reserva_terminales').where({ reserva_id: r.id }).count({ n: '*' })).toEqual([{ n: 1 }]);
  });

  it('50 release-versus-consume races: exactly one wins each, the other gets 409 naming the winner’s state', async () => {
    const b = await bodega();
    const p = producto();
    await nivel(b, p, 50);
    const reservas = await Promise.all(
      Array.from({ length: 50 }, () => reservar([{ bodegaId: b, productoId: p, cantidad: 1 }])),
    );
    const carreras = await Promise.all(
      reservas.map(async (r, i) => {
        const [liberar, consumir] = await Promise.all(
          i % 2 === 0
            ? [
                resultado(h.reservas.liberar(r.id, USUARIO, {})),
                resultado(h.reservas.consumir(r.id, todo, USUARIO, {})),
              ]
            : [
                resultado(h.reservas.liberar(r.id, USUARIO, {})),
                resultado(h.reservas.consumir(r.id, todo, USUARIO, {})),
              ].reverse(),
        );
        return i % 2 === 0 ? `${liberar}/${consumir}` : `${consumir}/${liberar}`;
      }),
    );
    for (const c of carreras) expect(['ok/RESERVA_LIBERADA', 'RESERVA_CONSUMIDA/ok']).toContain(c);
    const consumidas = carreras.filter((c) => c === 'RESERVA_CONSUMIDA/ok').length;
    expect(await h.existencias.get(b, p)).toMatchObject({ cantidad: 50 - consumidas, reservada: 0 });
    const eventos = (await eventosDeReserva(h.db)).filter(
      (e) => reservas.some((r) => r.id === e.reservaId) && e.tipo !== 'creada',
    );
    expect(eventos).toHaveLength(50);
  });

  it('at the instant of expiry the sweeper and consumers racing never both apply; one microsecond before, every consume applies and nothing is swept', async () => {
    const b = await bodega();
    const p = producto();
    await nivel(b, p, 40);
    const vencen = await Promise.all(
      Array.from({ length: 10 }, () => reservar([{ bodegaId: b, productoId: p, cantidad: 1 }], 30)),
    );
    const antes = await Promise.all(
      Array.from({ length: 10 }, () => reservar([{ bodegaId: b, productoId: p, cantidad: 1 }], 60)),
    );
    await h.fijarReloj('2030-01-01 00:00:30.000000');
    const [barridas, ...consumos] = await Promise.all([
      h.reservas.barrer(100),
      ...vencen.map((r) => resultado(h.reservas.consumir(r.id, todo, USUARIO, {}))),
    ]);
    expect(cuenta(consumos)).toEqual({ RESERVA_EXPIRADA: 10 });
    expect(barridas).toBeGreaterThanOrEqual(10);
    await h.fijarReloj('2030-01-01 00:00:59.999999');
    const [nada, ...ok] = await Promise.all([
      h.reservas.barrer(100),
      ...antes.map((r) => resultado(h.reservas.consumir(r.id, todo, USUARIO, {}))),
    ]);
    expect(nada).toBe(0);
    expect(cuenta(ok)).toEqual({ ok: 10 });
    const porReserva = await eventosDeReserva(h.db);
    for (const r of vencen)
      expect(porReserva.filter((e) => e.reservaId === r.id).map((e) => e.tipo)).toEqual(['creada', 'expirada']);
    expect(await h.existencias.get(b, p)).toMatchObject({ cantidad: 30, reservada: 0 });
  });

  it('200 multi-line reservations over overlapping levels in random line order all finish: no deadlock reaches a caller, none oversells', async () => {
    const bodegas = [await bodega(), await bodega()];
    const productos = [producto(), producto(), producto()];
    for (const b of bodegas) for (const p of productos) await nivel(b, p, 60);
    let semilla = 24;
    const azar = (n: number) => {
      semilla = (semilla * 1103515245 + 12345) % 2 ** 31;
      return semilla % n;
    };
    const pedidos = Array.from({ length: 200 }, () => {
      const lineas: LineaSolicitada[] = [];
      for (let i = 0; i < 1 + azar(4); i++)
        lineas.push({ bodegaId: bodegas[azar(2)]!, productoId: productos[azar(3)]!, cantidad: 1 + azar(3) });
      return lineas;
    });
    const resultados = await Promise.all(pedidos.map((lineas) => resultado(reservar(lineas))));
    expect(Object.keys(cuenta(resultados)).filter((k) => k !== 'ok' && k !== 'STOCK_INSUFICIENTE')).toEqual([]);
    expect(cuenta(resultados).ok).toBeGreaterThan(0);
    const [niveles] = (await h.db.raw(
      'SELECT cantidad, reservada FROM existencias WHERE bodega_id IN (?, ?)',
      bodegas,
    )) as [{ cantidad: number; reservada: number }[]];
    for (const n of niveles) expect(n.reservada).toBeLessThanOrEqual(n.cantidad);
    expect(niveles.some((n) => n.reservada > 40)).toBe(true);
  });
});

describe('two replicas', () => {
  it('sweeping the same due reservations at once, while a third caller consumes them, record each EXPIRADA once with one event', async () => {
    const otra = h.replica();
    try {
      const b = await bodega();
      const p = producto();
      await nivel(b, p, 60);
      const vencen = await Promise.all(
        Array.from({ length: 30 }, () => reservar([{ bodegaId: b, productoId: p, cantidad: 2 }], 10)),
      );
      await h.fijarReloj('2030-01-01 00:00:10.000000');
      const [a, c, ...consumos] = await Promise.all([
        h.reservas.barrer(100),
        otra.reservas.barrer(100),
        ...vencen.slice(0, 10).map((r) => resultado(otra.reservas.consumir(r.id, todo, USUARIO, {}))),
      ]);
      expect(cuenta(consumos)).toEqual({ RESERVA_EXPIRADA: 10 });
      const ids = new Set(vencen.map((r) => r.id));
      const expiradas = (await eventosDeReserva(h.db)).filter((e) => ids.has(e.reservaId) && e.tipo === 'expirada');
      expect(expiradas).toHaveLength(30);
      expect(new Set(expiradas.map((e) => e.reservaId)).size).toBe(30);
      expect(a + c).toBe(30);
      expect(await h.existencias.get(b, p)).toMatchObject({ cantidad: 60, reservada: 0 });
    } finally {
      await otra.close();
    }
  });
});
