/**
 * Issue 24 (built processes, a private nats-server, the suite's private mariadbd): bodega-svc is
 * SIGKILLed in the middle of its sweep of many due reservations. Each expiry is its own
 * transaction (state, terminal row, the level's `reservada`, the outbox row), so the kill can only
 * cut between two of them or roll one back: after the restart every hold is recorded EXPIRADA
 * exactly once, each with exactly one `ReservaExpirada` in the stream, the level holds nothing,
 * and the stock verification (GET /api/existencias/verificacion), reservations included, is
 * consistent.
 */
import { createDb, type Knex } from '@inventario/platform';
import { startPrivateNatsServer, waitFor, type PrivateNatsServer } from '@inventario/testkit';
import { killAllServiceProcesses, startProcessStack, type ProcessStack } from './support/processes';

/** Six sweeps' worth (the sweep records at most 100 per round). */
const RESERVAS = 600;
const CONCURRENCIA = 12;

let nats: PrivateNatsServer;
let stack: ProcessStack;
let db: Knex;
let bodegaId: number;
let productoId: number;

async function contar(sql: string, bindings: string[] = []): Promise<number> {
  const [[row]] = (await db.raw(sql, bindings)) as [[{ n: number | string }]];
  return Number(row.n);
}

const expiradas = () => contar(`SELECT COUNT(*) AS n FROM reserva_terminales WHERE estado = 'EXPIRADA'`);

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  stack = await startProcessStack({
    label: 'f_rsweep',
    natsUrl: nats.url,
    // A sweep round every 300 ms; the verification every second, so the route answers a recent one.
    env: { 'bodega-svc': { RESERVA_BARRIDO_INTERVAL_MS: '300', EXISTENCIAS_VERIFICACION_INTERVAL_MS: '1000' } },
  });
  db = createDb(stack.databaseUrls['bodega-svc'], { poolMax: 2 });
  const bodega = await stack.request('POST', '/api/bodegas', {
    body: { nombre: 'Central', ubicacion: 'Madrid', capacidad: 100_000 },
  });
  expect(bodega.status).toBe(201);
  bodegaId = Number(bodega.body.id);
  const producto = await stack.request('POST', '/api/productos', {
    body: { nombre: 'Tornillo', precio: 1.5, cantidadEnStock: 0 },
  });
  expect(producto.status).toBe(201);
  productoId = Number(producto.body.id);
  const nivel = await stack.request('POST', `/api/bodegas/${bodegaId}/productos`, {
    body: { productoId, cantidad: RESERVAS },
  });
  expect(nivel.status).toBe(200);
}, 300_000);

afterAll(async () => {
  await db?.destroy();
  await stack?.close();
  await killAllServiceProcesses();
  await nats?.dispose();
});

test(`killed mid-sweep of ${RESERVAS} due holds: after the restart each expires once, with one event, and the verification is consistent`, async () => {
  // One unit each, through the API, with a life far longer than the test.
  let siguiente = 0;
  const crear = async () => {
    while (siguiente < RESERVAS) {
      const i = siguiente++;
      const res = await stack.request('POST', '/api/reservas', {
        body: { referencia: `pedido-${i}`, ttlSegundos: 3600, lineas: [{ bodegaId, productoId, cantidad: 1 }] },
      });
      if (res.status !== 201) throw new Error(`reservation ${i} answered ${res.status}: ${res.text}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCIA }, crear));
  expect((await stack.request('GET', `/api/bodegas/${bodegaId}/existencias/${productoId}`)).body).toMatchObject({
    cantidad: RESERVAS,
    reservada: RESERVAS,
    disponible: 0,
  });

  // A built process reads the real clock, so the hour cannot pass: the holds' expiry is moved back instead, all at
  // once, as if it had. From here every sweep round finds 100 due holds.
  await db.raw(`UPDATE reservas SET expira_en = UTC_TIMESTAMP(6) - INTERVAL 1 SECOND WHERE estado = 'ACTIVA'`);

  // Killed in the middle of a round after the first: more than one round recorded, not a whole number of rounds.
  const alMatar = await waitFor(
    async () => {
      const n = await expiradas();
      return n > 100 && n < RESERVAS - 100 && n % 100 !== 0 ? n : undefined;
    },
    'the sweep to have begun',
    60_000,
    5,
  );
  expect(await stack.process('bodega-svc').kill()).toMatchObject({ signal: 'SIGKILL' });
  const trasMatar = await expiradas();
  process.stdout.write(`killed with ${trasMatar} of ${RESERVAS} expiries recorded (seen ${alMatar} just before)\n`);
  expect(trasMatar).toBeGreaterThan(100);
  expect(trasMatar).toBeLessThan(RESERVAS);

  const reinicio = new Date();
  await stack.restart('bodega-svc');
  await waitFor(
    async () => (await expiradas()) === RESERVAS,
    'the restarted sweep to record every expiry',
    120_000,
    200,
  );

  // No expiry lost or doubled, in the database.
  expect(await contar(`SELECT COUNT(*) AS n FROM reservas WHERE estado = 'EXPIRADA'`)).toBe(RESERVAS);
  expect(await contar(`SELECT COUNT(*) AS n FROM reserva_lineas WHERE retenida > 0`)).toBe(0);
  expect(
    await contar(`SELECT COUNT(*) AS n FROM outbox WHERE subject = ?`, [`${stack.namespace.prefix}.reserva.expirada`]),
  ).toBe(RESERVAS);
  expect((await stack.request('GET', `/api/bodegas/${bodegaId}/existencias/${productoId}`)).body).toMatchObject({
    cantidad: RESERVAS,
    reservada: 0,
    disponible: RESERVAS,
  });

  // No event lost or doubled, in the stream: one ReservaExpirada per reservation, and one ReservaCreada each.
  const eventos = await stack.settledEvents(120_000);
  const porReserva = (sufijo: string) => {
    const cuenta = new Map<string, number>();
    for (const e of eventos.filter((ev) => ev.subject.endsWith(sufijo)))
      cuenta.set(e.body.subject, (cuenta.get(e.body.subject) ?? 0) + 1);
    return cuenta;
  };
  for (const sufijo of ['.reserva.expirada', '.reserva.creada']) {
    const cuenta = porReserva(sufijo);
    expect([sufijo, cuenta.size, [...new Set(cuenta.values())]]).toEqual([sufijo, RESERVAS, [1]]);
  }
  expect(new Set(eventos.map((e) => e.body.id)).size).toBe(eventos.length);

  // The invariants, as an operator sees them: a verification begun after the restart, reservations included.
  const verificacion = await waitFor(
    async () => {
      const res = await stack.request('GET', '/api/existencias/verificacion');
      expect(res.status).toBe(200);
      const body = res.body as { verificadoEn: string };
      return Date.parse(`${body.verificadoEn}Z`) >= Math.floor(reinicio.getTime() / 1000) * 1000 ? body : undefined;
    },
    'a verification begun after the restart',
    60_000,
    500,
  );
  expect(verificacion).toMatchObject({ consistente: true, diferencias: [], diferenciasReservas: [] });
}, 600_000);
