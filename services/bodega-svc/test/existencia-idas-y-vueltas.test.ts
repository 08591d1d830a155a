/**
 * Round trips of a movement and a transfer, on the stores as app.ts builds them (issue 23: each one is a
 * socket write, a wake-up and a parse in bodega-svc). Counted with knex's `query` event: every statement
 * and every multi-statement query is one, BEGIN and COMMIT included. A command refused after its locking
 * reads (whose query now carries its operation's row) leaves no row and no event.
 */
import { startReservasHarness, USUARIO, type ReservasHarness } from './support/reservas-harness';

let h: ReservasHarness;
let seq = 0;

beforeAll(async () => {
  h = await startReservasHarness('existencia_idas');
});

afterAll(async () => {
  await h?.close();
});

async function bodega(): Promise<number> {
  seq += 1;
  return (await h.bodegas.create({ nombre: `Idas ${seq}`, ubicacion: null, capacidad: 1000 }, USUARIO)).id;
}

function producto(): number {
  seq += 1;
  return 9000 + seq;
}

async function idasYVueltas(call: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const contar = () => {
    n += 1;
  };
  h.db.on('query', contar);
  try {
    await call();
  } finally {
    h.db.off('query', contar);
  }
  return n;
}

const filas = async (tabla: string) => Number((await h.db(tabla).count({ n: '*' }).first())?.n);

/** A SALIDA of one unit, the command both round-trip cases send. */
const salidaDeUno = (bodegaId: number, productoId: number) =>
  ({ bodegaId, productoId, tipo: 'SALIDA', motivo: 'VENTA', cantidad: 1, comentario: null }) as const;

describe('a stock command', () => {
  it('sends a SALIDA in 5 round trips: BEGIN, locks and its operation row, its line, the rest, COMMIT', async () => {
    const b = await bodega();
    const p = producto();
    await h.existencias.asignar({ bodegaId: b, productoId: p, cantidad: 10, umbralMinimo: undefined }, USUARIO, {});
    const salida = salidaDeUno(b, p);
    expect(await idasYVueltas(() => h.existencias.registrarMovimiento(salida, USUARIO, {}))).toBe(5);
  });

  it("sends a transfer between two levels in 6 round trips (its lines' ids checked consecutive)", async () => {
    const [origen, destino] = [await bodega(), await bodega()];
    const p = producto();
    for (const bodegaId of [origen, destino])
      await h.existencias.asignar({ bodegaId, productoId: p, cantidad: 10, umbralMinimo: undefined }, USUARIO, {});
    const t = { productoId: p, origenId: origen, destinoId: destino, cantidad: 2, comentario: null };
    expect(await idasYVueltas(() => h.existencias.transferir(t, USUARIO, {}))).toBe(6);
  });

  it('refused by its version after the locking reads, leaves no operation, no line and no event', async () => {
    const b = await bodega();
    const p = producto();
    await h.existencias.asignar({ bodegaId: b, productoId: p, cantidad: 10, umbralMinimo: undefined }, USUARIO, {});
    const antes = [await filas('operaciones'), await filas('movimientos'), await filas('outbox')];
    const salida = salidaDeUno(b, p);
    await expect(h.existencias.registrarMovimiento(salida, USUARIO, { expectedVersion: 7 })).rejects.toMatchObject({
      reason: 'VERSION_MISMATCH',
    });
    expect([await filas('operaciones'), await filas('movimientos'), await filas('outbox')]).toEqual(antes);
    const nivel = await h.db('existencias').where({ bodega_id: b, producto_id: p }).first();
    expect(nivel).toMatchObject({ cantidad: 10, version: 1 });
  });
});
