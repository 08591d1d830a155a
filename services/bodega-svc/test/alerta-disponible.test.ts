/**
 * Thresholds watching `disponible` (docs/contract.md §13.9) against a real MariaDB, the database clock held by the
 * test: a reservation that brings `disponible` to the threshold raises StockBajo once; letting the units go (release,
 * expiry recorded by the sweep, consumption and restock) ends it with StockRepuesto once; a level left watching
 * `cantidad` (the default) is not alerted by holds at all; switching what a level watches crosses the edge at once.
 */
import { validateNuevaReserva, LIMITES_RESERVA, type LineaSolicitada } from '../src/domain/reserva';
import { problemasDeReservas, startReservasHarness, USUARIO, type ReservasHarness } from './support/reservas-harness';

let h: ReservasHarness;
let seq = 0;

beforeAll(async () => {
  h = await startReservasHarness('alerta_disponible');
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

async function nivel(cantidad: number, umbralMinimo: number): Promise<{ b: number; p: number }> {
  seq += 1;
  const b = (await h.bodegas.create({ nombre: `Alertas ${seq}`, ubicacion: null, capacidad: 1000 }, USUARIO)).id;
  const p = 8000 + seq;
  await h.existencias.asignar({ bodegaId: b, productoId: p, cantidad, umbralMinimo }, USUARIO, {});
  return { b, p };
}

const vigilarDisponible = (b: number, p: number, umbralMinimo: number) =>
  h.existencias.cambiarUmbral({ bodegaId: b, productoId: p, umbralMinimo, alertaSobre: 'DISPONIBLE' }, USUARIO, {});

const reservar = (lineas: LineaSolicitada[], ttlSegundos = 60) =>
  h.reservas.crear(
    validateNuevaReserva({ referencia: `pedido-${++seq}`, ttlSegundos, lineas }, LIMITES_RESERVA),
    USUARIO,
  );

interface Alerta {
  tipo: string;
  cantidad: number;
  umbralMinimo: number | null;
  alertaSobre?: string;
  reservada?: number;
  disponible?: number;
  operacionId: number | null;
}

/** The outbox's stock alerts of one level, oldest first. */
async function alertas(b: number, p: number): Promise<Alerta[]> {
  const rows = await h
    .db('outbox')
    .where('subject', 'like', '%.stock.%')
    .orderBy('id')
    .select<{ subject: string; payload: string }[]>('subject', 'payload');
  return rows
    .map((r) => ({ tipo: r.subject.split('.').slice(-1)[0]!, data: (JSON.parse(r.payload) as { data: never }).data }))
    .filter(
      ({ data }) => (data as { bodegaId: number }).bodegaId === b && (data as { productoId: number }).productoId === p,
    )
    .map(({ tipo, data }) => {
      const d = data as Alerta;
      return {
        tipo,
        cantidad: d.cantidad,
        umbralMinimo: d.umbralMinimo,
        operacionId: d.operacionId,
        ...(d.alertaSobre === undefined
          ? {}
          : { alertaSobre: d.alertaSobre, reservada: d.reservada, disponible: d.disponible }),
      };
    });
}

describe('a threshold watching disponible', () => {
  it('is raised once by the reservation that brings disponible to it, and ended once when disponible is back above it', async () => {
    const { b, p } = await nivel(10, 3);
    expect(await vigilarDisponible(b, p, 3)).toMatchObject({ alertaSobre: 'DISPONIBLE', umbralMinimo: 3 });
    expect(await alertas(b, p)).toEqual([]);

    await reservar([{ bodegaId: b, productoId: p, cantidad: 6 }]);
    expect(await alertas(b, p)).toEqual([]);
    const r = await reservar([{ bodegaId: b, productoId: p, cantidad: 1 }]);
    const bajo = {
      tipo: 'bajo',
      cantidad: 10,
      umbralMinimo: 3,
      operacionId: null,
      alertaSobre: 'DISPONIBLE',
      reservada: 7,
      disponible: 3,
    };
    expect(await alertas(b, p)).toEqual([bajo]);
    // Staying low publishes nothing more.
    await reservar([{ bodegaId: b, productoId: p, cantidad: 2 }]);
    expect(await alertas(b, p)).toHaveLength(1);

    await h.reservas.liberar(r.id, USUARIO, {});
    expect(await alertas(b, p)).toHaveLength(1);
    // Units leave unreserved: an exit judged on disponible, with its operation.
    const op = await h.existencias.registrarMovimiento(
      { bodegaId: b, productoId: p, tipo: 'ENTRADA', motivo: 'RECEPCION', cantidad: 5, comentario: null },
      USUARIO,
      {},
    );
    expect(await alertas(b, p)).toEqual([
      bajo,
      {
        tipo: 'repuesto',
        cantidad: 15,
        umbralMinimo: 3,
        operacionId: op.id,
        alertaSobre: 'DISPONIBLE',
        reservada: 8,
        disponible: 7,
      },
    ]);
  });

  it('is ended by the sweep that records the expiry of the hold that caused it, once', async () => {
    const { b, p } = await nivel(5, 2);
    await vigilarDisponible(b, p, 2);
    await reservar([{ bodegaId: b, productoId: p, cantidad: 4 }], 30);
    expect((await alertas(b, p)).map((a) => a.tipo)).toEqual(['bajo']);

    await h.avanzar(30_000_000);
    expect(await h.reservas.barrer(100)).toBeGreaterThanOrEqual(1);
    expect(await h.reservas.barrer(100)).toBe(0);
    const todas = await alertas(b, p);
    expect(todas.map((a) => a.tipo)).toEqual(['bajo', 'repuesto']);
    expect(todas[1]).toMatchObject({ cantidad: 5, reservada: 0, disponible: 5, operacionId: null });
  });

  it('is raised by an unreserved exit with its operation, and a consumption of held units does not cross it again', async () => {
    const { b, p } = await nivel(10, 4);
    await vigilarDisponible(b, p, 4);
    const r = await reservar([{ bodegaId: b, productoId: p, cantidad: 5 }]);
    const op = await h.existencias.registrarMovimiento(
      { bodegaId: b, productoId: p, tipo: 'SALIDA', motivo: 'VENTA', cantidad: 1, comentario: null },
      USUARIO,
      {},
    );
    expect(await alertas(b, p)).toEqual([
      {
        tipo: 'bajo',
        cantidad: 9,
        umbralMinimo: 4,
        operacionId: op.id,
        alertaSobre: 'DISPONIBLE',
        reservada: 5,
        disponible: 4,
      },
    ]);
    // Consuming held units lowers cantidad and reservada alike: disponible stays 4.
    await h.reservas.consumir(r.id, { lineas: [], liberarResto: false, comentario: null }, USUARIO, {});
    expect(await h.existencias.get(b, p)).toMatchObject({ cantidad: 4, reservada: 0, alertaSobre: 'DISPONIBLE' });
    expect(await alertas(b, p)).toHaveLength(1);
  });

  it('switching what a level watches crosses the edge at once; back to cantidad ends it', async () => {
    const { b, p } = await nivel(10, 5);
    await reservar([{ bodegaId: b, productoId: p, cantidad: 6 }]);
    // Watching cantidad (the default), holds raise nothing.
    expect(await alertas(b, p)).toEqual([]);
    expect(await h.existencias.get(b, p)).toMatchObject({ alertaSobre: 'CANTIDAD', reservada: 6 });

    await vigilarDisponible(b, p, 5);
    expect(await alertas(b, p)).toEqual([
      {
        tipo: 'bajo',
        cantidad: 10,
        umbralMinimo: 5,
        operacionId: null,
        alertaSobre: 'DISPONIBLE',
        reservada: 6,
        disponible: 4,
      },
    ]);
    await h.existencias.cambiarUmbral(
      { bodegaId: b, productoId: p, umbralMinimo: 5, alertaSobre: 'CANTIDAD' },
      USUARIO,
      {},
    );
    expect((await alertas(b, p)).map((a) => [a.tipo, a.alertaSobre])).toEqual([
      ['bajo', 'DISPONIBLE'],
      ['repuesto', undefined],
    ]);
    // Without alertaSobre, a threshold change keeps what the level watches.
    expect(
      await h.existencias.cambiarUmbral({ bodegaId: b, productoId: p, umbralMinimo: 4 }, USUARIO, {}),
    ).toMatchObject({
      alertaSobre: 'CANTIDAD',
    });
  });
});

describe('a threshold watching cantidad (the default)', () => {
  it('alerts on the units as before, whatever is reserved', async () => {
    const { b, p } = await nivel(10, 3);
    const r = await reservar([{ bodegaId: b, productoId: p, cantidad: 9 }]);
    await reservar([{ bodegaId: b, productoId: p, cantidad: 1 }]);
    expect(await alertas(b, p)).toEqual([]);
    const { operacionId } = await h.reservas.consumir(
      r.id,
      { lineas: [], liberarResto: false, comentario: null },
      USUARIO,
      {},
    );
    expect(await alertas(b, p)).toEqual([{ tipo: 'bajo', cantidad: 1, umbralMinimo: 3, operacionId }]);
  });
});
