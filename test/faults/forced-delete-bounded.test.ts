/**
 * Issue 21, items 6 and 7 (built processes, a private nats-server, the
 * suite's private mariadbd): the forced warehouse delete at the volumes
 * that broke it.
 *
 * Item 6. `DELETE /api/bodegas/{id}?force=true` with the current ETag on a
 * warehouse of 4,000 products, and a PUT of its `ubicacion` while the
 * unassignment runs: the tag was checked once early, the unassignment
 * committed chunk after chunk, the PUT moved the version, bodega-svc's final
 * check failed, and the client got 412 while 4,000 products had lost their
 * warehouse (with 4,000 events and emails). Now the version is checked where
 * it is kept, as the warehouse is marked "being deleted", before anything
 * changes; from then on the warehouse refuses writes (409
 * BODEGA_ELIMINANDOSE), so the delete completes under the version it
 * checked.
 *
 * Item 7. A warehouse of 60,000 stock levels was written out in one
 * transaction of bodega-svc under the 5 s deadline: 504 and rollback on
 * every try, and parallel tries answered 503. Now it is written out 500
 * levels per transaction, a few transactions per call, the progress kept
 * with the warehouse and the row deleted last: the delete completes; cut
 * half-way (bodega-svc killed), the warehouse stays, marked and consistent,
 * and a retry with the same key resumes it and reports the whole deletion;
 * a repeat replays; concurrent tries do not fail with a 5xx.
 *
 * The rows are written by SQL as the API writes them (products as
 * CreateProducto stores them; per level one ENTRADA line from 0 to its
 * units, version 1, and the warehouse's occupancy), and the verification
 * (`GET /api/existencias/verificacion`) proves them consistent before the
 * tests act.
 */
import { createDb, type Knex } from '@inventario/platform';
import { startPrivateNatsServer, waitFor, type PrivateNatsServer } from '@inventario/testkit';
import { seedProductos } from '@inventario/testkit';
import { killAllServiceProcesses, startProcessStack, type ProcessStack } from './support/processes';

const PRODUCTOS = 4_000;
const NIVELES = 60_000;
const UNIDADES = 2;
const FECHA = '2026-05-06 07:08:09';

let nats: PrivateNatsServer;
let stack: ProcessStack;
let productosDb: Knex;
let bodegasDb: Knex;
/** The warehouse of 4,000 products (item 6), and two of 60,000 levels (item 7). */
let conProductos: number;
let conNiveles: number;
let paraConcurrentes: number;

interface Verificacion {
  consistente: boolean;
  diferencias: unknown[];
  verificadoEn: string;
}

/** A completed verification begun at or after `desde` (whole seconds), polling the route. */
async function verificacionDesde(desde: Date, timeoutMs = 300_000): Promise<Verificacion> {
  const enSegundos = Math.floor(desde.getTime() / 1000) * 1000;
  return waitFor(
    async () => {
      const res = await stack.request('GET', '/api/existencias/verificacion');
      if (res.status !== 200) return undefined;
      const body = res.body as Verificacion;
      return Date.parse(`${body.verificadoEn}Z`) >= enSegundos ? body : undefined;
    },
    `a verification begun after ${desde.toISOString()}`,
    timeoutMs,
    500,
  );
}

async function count(db: Knex, table: string, where: Record<string, unknown>): Promise<number> {
  const row = await db(table).where(where).count<{ n: number | string }[]>({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

async function crearBodega(nombre: string, capacidad: number): Promise<number> {
  const res = await stack.request('POST', '/api/bodegas', { body: { nombre, ubicacion: 'Madrid', capacidad } });
  expect(res.status).toBe(201);
  return Number(res.body.id);
}

/** NIVELES levels of UNIDADES units in the warehouse, of products `primero`.., as bodega-svc writes them. */
async function sembrarNiveles(bodegaId: number, primero: number): Promise<void> {
  const porOperacion = 1_000;
  const [primeraOperacion] = await bodegasDb('operaciones').insert<number[]>(
    Array.from({ length: NIVELES / porOperacion }, () => ({ tipo: 'ENTRADA', usuario: 'seed', fecha: FECHA })),
  );
  await bodegasDb.raw(
    `INSERT INTO movimientos (operacion_id, bodega_id, producto_id, tipo, motivo, cantidad, cantidad_anterior, cantidad_posterior, version, usuario, fecha)
     SELECT ? + (seq - 1) DIV ${porOperacion}, ?, ? + seq - 1, 'ENTRADA', 'RECEPCION', ?, 0, ?, 1, 'seed', ? FROM seq_1_to_${NIVELES}`,
    [Number(primeraOperacion), bodegaId, primero, UNIDADES, UNIDADES, FECHA],
  );
  await bodegasDb.raw(
    `INSERT INTO existencias (bodega_id, producto_id, cantidad, umbral_minimo, version, fecha_creacion, fecha_actualizacion)
     SELECT ?, ? + seq - 1, ?, NULL, 1, ?, ? FROM seq_1_to_${NIVELES}`,
    [bodegaId, primero, UNIDADES, FECHA, FECHA],
  );
  await bodegasDb('bodegas')
    .where({ id: bodegaId })
    .update({ ocupacion: NIVELES * UNIDADES });
}

/** Waits until the warehouse answers a read again (after bodega-svc came back and the breaker let calls through). */
async function bodegaLegible(bodegaId: number): Promise<void> {
  await waitFor(
    async () => (await stack.request('GET', `/api/bodegas/${bodegaId}`)).status === 200 || undefined,
    `warehouse ${bodegaId} readable`,
    60_000,
    250,
  );
}

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  stack = await startProcessStack({ label: 'f_fdel', natsUrl: nats.url });
  productosDb = createDb(stack.databaseUrls['producto-svc'], { poolMax: 2 });
  bodegasDb = createDb(stack.databaseUrls['bodega-svc'], { poolMax: 2 });

  conProductos = await crearBodega('Con productos', 1_000);
  expect(
    await seedProductos(productosDb, {
      count: PRODUCTOS,
      bodegaId: conProductos,
      descripcion: 'Producto sembrado para la prueba',
    }),
  ).toHaveLength(PRODUCTOS);

  // The stocked products exist, unassigned; both big warehouses hold a level of each.
  const at = new Date(Math.floor(Date.now() / 1000) * 1000);
  await productosDb.raw(
    `INSERT INTO productos (nombre, descripcion, precio, cantidad_en_stock, bodega_id, fecha_creacion, fecha_actualizacion, version)
     SELECT CONCAT('Con existencias ', seq), NULL, '1.50', ?, NULL, ?, ?, 1 FROM seq_1_to_${NIVELES}`,
    [2 * UNIDADES, at, at],
  );
  const primero = Number(
    (await productosDb('productos').min<{ id: number }[]>({ id: 'id' }).whereNull('bodega_id').first())?.id,
  );
  conNiveles = await crearBodega('Con niveles', NIVELES * UNIDADES);
  paraConcurrentes = await crearBodega('Para concurrentes', NIVELES * UNIDADES);
  const seeded = new Date();
  await sembrarNiveles(conNiveles, primero);
  await sembrarNiveles(paraConcurrentes, primero);

  const antes = await verificacionDesde(seeded);
  expect(antes).toMatchObject({ consistente: true, diferencias: [] });
}, 600_000);

afterAll(async () => {
  await productosDb?.destroy();
  await bodegasDb?.destroy();
  await stack?.close();
  await killAllServiceProcesses();
  await nats?.dispose();
});

test(`item 6: a PUT while a conditional forced delete of ${PRODUCTOS} products runs is refused (409), and the delete completes (200)`, async () => {
  const leida = await stack.request('GET', `/api/bodegas/${conProductos}`);
  const etag = leida.headers.get('etag')!;
  expect(etag).toBeTruthy();

  const borrado = stack.request('DELETE', `/api/bodegas/${conProductos}?force=true`, { headers: { 'if-match': etag } });
  // The unassignment is under way: some products have lost the warehouse, not all.
  await waitFor(
    async () => {
      const left = await count(productosDb, 'productos', { bodega_id: conProductos });
      return (left > 0 && left < PRODUCTOS) || undefined;
    },
    'the unassignment under way',
    60_000,
    5,
  );
  const put = await stack.request('PUT', `/api/bodegas/${conProductos}`, { body: { ubicacion: 'Sevilla' } });
  const res = await borrado;

  expect({ status: put.status, error: put.body.error }).toEqual({ status: 409, error: 'BODEGA_ELIMINANDOSE' });
  expect(res.status).toBe(200);
  expect(res.body.productosAfectados).toBe(PRODUCTOS);
  expect((await stack.request('GET', `/api/bodegas/${conProductos}`)).status).toBe(404);
  expect(await count(productosDb, 'productos', { bodega_id: conProductos })).toBe(0);
}, 300_000);

test(`item 7: ${NIVELES} levels cut half-way by a crash: the warehouse stays marked and consistent; the keyed retry resumes and completes, a repeat replays`, async () => {
  const key = `borrar-${conNiveles}`;
  const primero = stack.request('DELETE', `/api/bodegas/${conNiveles}?force=true`, {
    headers: { 'idempotency-key': key },
  });
  await waitFor(
    async () => (await count(bodegasDb, 'existencias', { bodega_id: conNiveles })) <= NIVELES - 5_000 || undefined,
    'the write-out under way',
    120_000,
    20,
  );
  await stack.process('bodega-svc').kill();
  const cortado = await primero;
  expect(cortado.status).toBeGreaterThanOrEqual(500);
  await stack.restart('bodega-svc');
  await bodegaLegible(conNiveles);

  // Half-way: the warehouse is there, refusing writes, its stock consistent with its ledger.
  const quedan = await count(bodegasDb, 'existencias', { bodega_id: conNiveles });
  expect(quedan).toBeGreaterThan(0);
  expect(quedan).toBeLessThan(NIVELES);
  const put = await stack.request('PUT', `/api/bodegas/${conNiveles}`, { body: { ubicacion: 'Sevilla' } });
  expect({ status: put.status, error: put.body.error }).toEqual({ status: 409, error: 'BODEGA_ELIMINANDOSE' });
  const entrada = await stack.request('POST', `/api/bodegas/${conNiveles}/movimientos`, {
    body: { productoId: 1, tipo: 'ENTRADA', cantidad: 1, motivo: 'RECEPCION' },
  });
  expect({ status: entrada.status, error: entrada.body.error }).toEqual({ status: 409, error: 'BODEGA_ELIMINANDOSE' });
  const mitad = await verificacionDesde(new Date());
  expect(mitad).toMatchObject({ consistente: true, diferencias: [] });

  const started = Date.now();
  const res = await stack.request('DELETE', `/api/bodegas/${conNiveles}?force=true`, {
    headers: { 'idempotency-key': key },
  });
  const elapsedMs = Date.now() - started;
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    existenciasRetiradas: NIVELES,
    unidadesRetiradas: NIVELES * UNIDADES,
    productosAfectados: NIVELES,
  });
  process.stdout.write(
    `forced-delete-bounded: ${quedan} of ${NIVELES} levels left after the crash, written out and deleted in ${elapsedMs} ms\n`,
  );
  expect((await stack.request('GET', `/api/bodegas/${conNiveles}`)).status).toBe(404);
  expect(await count(bodegasDb, 'existencias', { bodega_id: conNiveles })).toBe(0);

  // Every level written out once, by operations of at most 500 lines (one per transaction).
  const porOperacion = await bodegasDb('movimientos')
    .where({ bodega_id: conNiveles, motivo: 'BODEGA_ELIMINADA' })
    .groupBy('operacion_id')
    .select<{ n: number | string }[]>(bodegasDb.raw('COUNT(*) AS n'));
  expect(porOperacion.reduce((sum, o) => sum + Number(o.n), 0)).toBe(NIVELES);
  expect(Math.max(...porOperacion.map((o) => Number(o.n)))).toBeLessThanOrEqual(500);

  const repeat = await stack.request('DELETE', `/api/bodegas/${conNiveles}?force=true`, {
    headers: { 'idempotency-key': key },
  });
  expect(repeat.status).toBe(200);
  expect(repeat.headers.get('idempotent-replayed')).toBe('true');
  expect(repeat.body).toEqual(res.body);
  expect(await verificacionDesde(new Date())).toMatchObject({ consistente: true, diferencias: [] });
}, 600_000);

test(`item 7: three concurrent forced deletes of ${NIVELES} levels: one completes (200), the others find it gone (404), none fails with a 5xx`, async () => {
  await bodegaLegible(paraConcurrentes);
  const answers = await Promise.all([
    stack.request('DELETE', `/api/bodegas/${paraConcurrentes}?force=true`, {
      headers: { 'idempotency-key': `concurrente-${paraConcurrentes}` },
    }),
    stack.request('DELETE', `/api/bodegas/${paraConcurrentes}?force=true`),
    stack.request('DELETE', `/api/bodegas/${paraConcurrentes}?force=true`),
  ]);
  expect(answers.map((a) => a.status).sort()).toEqual([200, 404, 404]);
  const completed = answers.find((a) => a.status === 200)!;
  expect(completed.body).toMatchObject({ existenciasRetiradas: NIVELES, unidadesRetiradas: NIVELES * UNIDADES });
  expect(await count(bodegasDb, 'existencias', { bodega_id: paraConcurrentes })).toBe(0);
  expect(await count(bodegasDb, 'movimientos', { bodega_id: paraConcurrentes, motivo: 'BODEGA_ELIMINADA' })).toBe(
    NIVELES,
  );
  expect(await verificacionDesde(new Date())).toMatchObject({ consistente: true, diferencias: [] });
  const health = await stack.request('GET', '/actuator/health', { auth: false });
  expect(health.body.components.bodegaSvc.details.breaker).toBe('closed');
}, 600_000);
