/**
 * Issue 21, items 2 and 3 (built processes, a private nats-server, the
 * suite's private mariadbd): the stock verification completes at any ledger
 * size, and an expensive request is the request's outcome, not the service's.
 * Before the fix, six concurrent `GET /api/existencias/verificacion` on a
 * ledger of 2.12 million lines each ran one statement over every line, each
 * was killed at the 4 s statement limit, answered UNAVAILABLE ("reintente en
 * 10 s"), and opened bodega-svc's breaker: every warehouse and stock route
 * then answered 503 to everyone. The periodic verification hit the same
 * limit, logged it at debug level and left its gauge at 0, so a level
 * corrupted by hand was never reported.
 *
 * Here 2,000,000 lines (20,000 levels of 100 lines each, written by SQL as
 * the API writes them: each line continues its level's last one) are
 * verified off the request path in bounded slices; the request reads the
 * last completed verification. Six concurrent requests all answer 200 and
 * leave the breaker closed; a level corrupted by hand is reported (and the
 * occupancy it no longer matches) with the gauge, and the last-success
 * timestamp moves on.
 */
import { createDb, type Knex } from '@inventario/platform';
import {
  freePort,
  metricSample,
  scrapeMetrics,
  startPrivateNatsServer,
  waitFor,
  type PrivateNatsServer,
} from '@inventario/testkit';
import { killAllServiceProcesses, startProcessStack, type ProcessStack } from './support/processes';

const NIVELES = 20_000;
const LINEAS_POR_NIVEL = 100;
const LINEAS = NIVELES * LINEAS_POR_NIVEL;
const CORROMPIDO = 12_345;

let nats: PrivateNatsServer;
let stack: ProcessStack;
let bodegaMetricsPort: number;
let bffMetricsPort: number;
let bodegaId: number;
let db: Knex;

interface Verificacion {
  consistente: boolean;
  diferencias: { tipo: string; bodegaId: number; productoId: number | null; registrado: number; calculado: number }[];
  nivelesVerificados: number;
  bodegasVerificadas: number;
  verificadoEn: string;
}

const enSegundos = (fecha: Date) => Math.floor(fecha.getTime() / 1000) * 1000;

async function verificacion(): Promise<{ status: number; body: Verificacion }> {
  const res = await stack.request('GET', '/api/existencias/verificacion');
  return { status: res.status, body: res.body as Verificacion };
}

/** Waits for a verification begun at or after `desde` (a verification of now), polling the route. */
async function verificacionDesde(desde: Date, timeoutMs: number): Promise<Verificacion> {
  return waitFor(
    async () => {
      const { status, body } = await verificacion();
      expect(status).toBe(200);
      // verificadoEn is the start, shown to the second: one shown in `desde`'s own second may have begun
      // before it (and read the ledger before a corruption made then), so only a later second counts.
      return Date.parse(`${body.verificadoEn}Z`) > enSegundos(desde) ? body : undefined;
    },
    `a verification begun after ${desde.toISOString()}`,
    timeoutMs,
    500,
  );
}

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  bodegaMetricsPort = await freePort();
  bffMetricsPort = await freePort();
  stack = await startProcessStack({
    label: 'f_ledger',
    natsUrl: nats.url,
    env: { 'bodega-svc': { METRICS_PORT: String(bodegaMetricsPort) }, bff: { METRICS_PORT: String(bffMetricsPort) } },
  });
  const bodega = await stack.request('POST', '/api/bodegas', {
    body: { nombre: 'Central', ubicacion: 'Madrid', capacidad: 5_000_000 },
  });
  expect(bodega.status).toBe(201);
  bodegaId = Number(bodega.body.id);

  // As bodega-svc writes them: version v of each level by one ENTRADA of 1 unit, its line going from v - 1 to v,
  // versions one after another in time (ids), 20 operations per version. No statement limit on this connection.
  db = createDb(stack.databaseUrls['bodega-svc'], { poolMax: 1 });
  const fecha = '2026-05-06 07:08:09';
  await db.raw(
    `INSERT INTO operaciones (id, tipo, usuario, fecha) SELECT seq, 'ENTRADA', 'seed', ? FROM seq_1_to_${LINEAS_POR_NIVEL * 20}`,
    [fecha],
  );
  for (let v = 1; v <= LINEAS_POR_NIVEL; v++) {
    await db.raw(
      `INSERT INTO movimientos (operacion_id, bodega_id, producto_id, tipo, motivo, cantidad, cantidad_anterior, cantidad_posterior, version, usuario, fecha)
       SELECT ? + (seq - 1) DIV 1000, ?, seq, 'ENTRADA', 'RECEPCION', 1, ?, ?, ?, 'seed', ? FROM seq_1_to_${NIVELES}`,
      [(v - 1) * 20 + 1, bodegaId, v - 1, v, v, fecha],
    );
  }
  await db.raw(
    `INSERT INTO existencias (bodega_id, producto_id, cantidad, umbral_minimo, version, fecha_creacion, fecha_actualizacion)
     SELECT ?, seq, ?, NULL, ?, ?, ? FROM seq_1_to_${NIVELES}`,
    [bodegaId, LINEAS_POR_NIVEL, LINEAS_POR_NIVEL, fecha, fecha],
  );
  await db('bodegas').where({ id: bodegaId }).update({ ocupacion: LINEAS });
  const [[{ n }]] = (await db.raw('SELECT COUNT(*) AS n FROM movimientos')) as [[{ n: number }]];
  expect(Number(n)).toBe(LINEAS);
}, 600_000);

afterAll(async () => {
  await db?.destroy();
  await stack?.close();
  await killAllServiceProcesses();
  await nats?.dispose();
});

test(`a ledger of ${LINEAS} lines is verified whole and consistent, off the request path`, async () => {
  const started = new Date();
  const v = await verificacionDesde(started, 300_000);
  process.stdout.write(`verified ${LINEAS} lines in about ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s\n`);
  expect(v).toEqual({
    consistente: true,
    diferencias: [],
    diferenciasReservas: [],
    nivelesVerificados: NIVELES,
    bodegasVerificadas: 1,
    verificadoEn: expect.any(String),
  });
}, 360_000);

test('six concurrent requests all answer 200, the breaker stays closed and the other routes keep answering', async () => {
  const answers = await Promise.all(Array.from({ length: 6 }, () => verificacion()));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
  for (const { body } of answers) expect(body).toMatchObject({ consistente: true, nivelesVerificados: NIVELES });
  const bff = await scrapeMetrics(bffMetricsPort);
  expect(metricSample(bff, 'inventario_circuit_breaker_state', { breaker: 'bodega-svc' })).toBe(0);
  expect((await stack.request('GET', `/api/bodegas/${bodegaId}`)).status).toBe(200);
  expect((await stack.request('GET', `/api/bodegas/${bodegaId}/existencias/1`)).status).toBe(200);
}, 120_000);

test('a level corrupted by hand is reported with the occupancy it no longer matches; gauge and last-success timestamp follow', async () => {
  await db('existencias').where({ bodega_id: bodegaId, producto_id: CORROMPIDO }).increment('cantidad', 5);
  const corrupted = new Date();
  try {
    const v = await verificacionDesde(corrupted, 300_000);
    expect(v.consistente).toBe(false);
    expect(v.diferencias).toEqual([
      {
        tipo: 'NIVEL',
        bodegaId,
        productoId: CORROMPIDO,
        registrado: LINEAS_POR_NIVEL + 5,
        calculado: LINEAS_POR_NIVEL,
      },
      { tipo: 'OCUPACION', bodegaId, productoId: null, registrado: LINEAS, calculado: LINEAS + 5 },
    ]);
    const metrics = await scrapeMetrics(bodegaMetricsPort);
    expect(metricSample(metrics, 'inventario_existencias_diferencias')).toBe(2);
    expect(
      metricSample(metrics, 'inventario_existencias_verificacion_ultimo_exito_timestamp_seconds'),
    ).toBeGreaterThanOrEqual(enSegundos(corrupted) / 1000);
  } finally {
    await db('existencias').where({ bodega_id: bodegaId, producto_id: CORROMPIDO }).decrement('cantidad', 5);
  }
}, 360_000);
