/**
 * End to end, the stock ledger (docs/contract.md §10) through the public
 * REST API with Basic auth, across all four services on the real MariaDB,
 * NATS JetStream and an SMTP sink: the older gateway's two calls answer
 * exactly as it did; a transfer is published as one MovimientoRegistrado
 * holding both its lines; a threshold crossed sends one "Stock Bajo" email
 * and staying low sends nothing more; a deleted product's stock is written
 * out by bodega-svc; a level corrupted by SQL is reported by the
 * verification and its gauge until it is put back.
 */
import { createDb, type Knex } from '@inventario/platform';
import {
  crearBodega,
  crearProducto,
  metricSample,
  scrapeMetrics,
  waitFor,
  type StackResponse,
  type StoredEvent,
} from '@inventario/testkit';
import { TEST_USER, type TestStack } from '@inventario/testkit/stack';
import type { ReceivedEmail, SmtpSink } from '@inventario/testkit/smtp-sink';
import { startE2eSystem, waitForNotifierSettled, type E2eSystem } from './support/system';

let system: E2eSystem;
let stack: TestStack;
let sink: SmtpSink;
/** A pool on bodega-svc's database, to corrupt a level behind the service's back. */
let bodegaDb: Knex;

beforeAll(async () => {
  system = await startE2eSystem('e2e_stock', { notifierEnv: { NOTIFIER_BACKOFF_MS: '200' } });
  ({ stack, sink } = system);
  bodegaDb = createDb(stack.databaseUrls.bodega);
});

afterAll(async () => {
  await bodegaDb?.destroy();
  await system?.close();
});

/** What these tests read of a ledger line (REST or an event's `movimientos`). */
interface Linea {
  operacionId: number;
  bodegaId: number;
  productoId: number;
  tipo: string;
  motivo: string;
  cantidad: number;
  usuario: string;
}

/** `eventType` without its `<namespace>.Inventario.` prefix. */
const nombreDe = (e: StoredEvent) => e.body.eventType.split('.').pop();

/** The events named `nombre` whose envelope `subject` is `subject`, in stream order. */
const eventosDe = (events: StoredEvent[], nombre: string, subject: string) =>
  events.filter((e) => nombreDe(e) === nombre && e.body.subject === subject);

/** The MovimientoRegistrado events holding a line of this product, in stream order. */
const movimientosDelProducto = (events: StoredEvent[], productoId: number) =>
  events.filter(
    (e) =>
      nombreDe(e) === 'MovimientoRegistrado' &&
      (e.body.data.movimientos as Linea[]).some((l) => l.productoId === productoId),
  );

/** These products get their units from the warehouse calls below: created with none, no initial stock in the ledger (contract §10.6). */
const SIN_UNIDADES = { cantidadEnStock: 0 };

/**
 * Waits until both outboxes are drained and every notifier consumer has
 * acked what it was given, then reads the stream: a late event or a
 * duplicate email would be there by now.
 */
async function settle(): Promise<StoredEvent[]> {
  await waitForNotifierSettled(system, await stack.settledEvents());
  return stack.settledEvents();
}

/** The "Stock Bajo" emails about one level (the text part's Producto and Bodega rows: name and id). */
function stockBajoEmails(bodegaId: number, productoId: number): ReceivedEmail[] {
  const producto = new RegExp(`^Producto: .* \\(${productoId}\\)$`, 'm');
  const bodega = new RegExp(`^Bodega: .* \\(${bodegaId}\\)$`, 'm');
  return sink.received.filter(
    (e) => e.subject.startsWith('Stock Bajo: ') && producto.test(e.text) && bodega.test(e.text),
  );
}

/** A request that must answer `status`; fails the test with the body otherwise. */
async function expectStatus(status: number, method: string, path: string, body?: unknown): Promise<StackResponse> {
  const res = await stack.request(method, path, body === undefined ? {} : { body });
  if (res.status !== status) throw new Error(`${method} ${path} answered ${res.status}, not ${status}: ${res.text}`);
  return res;
}

test("the older gateway's two calls: assign answers 200 {mensaje, productoId, bodegaId, cantidad}, remove 200 {..., cantidadRetirada}", async () => {
  const bodegaId = await crearBodega(stack, { capacidad: 100 });
  const producto = await crearProducto(stack, { precio: 12.5, cantidadEnStock: 0 });
  expect((await expectStatus(200, 'GET', `/api/bodegas/${bodegaId}/productos`)).body).toEqual([]);

  const asignado = await expectStatus(200, 'POST', `/api/bodegas/${bodegaId}/productos`, {
    productoId: producto.id,
    cantidad: 30,
  });
  expect(asignado.body).toEqual({ mensaje: expect.any(String), productoId: producto.id, bodegaId, cantidad: 30 });
  expect(asignado.headers.get('etag')).toBe('"1"');
  expect((await expectStatus(200, 'GET', `/api/bodegas/${bodegaId}/productos`)).body).toEqual([
    { id: producto.id, nombre: producto.nombre, cantidad: 30, precio: 12.5 },
  ]);

  const retirado = await expectStatus(200, 'DELETE', `/api/bodegas/${bodegaId}/productos/${producto.id}`);
  expect(retirado.body).toEqual({
    mensaje: expect.any(String),
    productoId: producto.id,
    bodegaId,
    cantidadRetirada: 30,
  });
  expect((await expectStatus(200, 'GET', `/api/bodegas/${bodegaId}/productos`)).body).toEqual([]);
  expect((await expectStatus(200, 'GET', `/api/bodegas/${bodegaId}`)).body.ocupacion).toBe(0);

  // On NATS: the assignment and the removal, one operation each, by the caller.
  const events = await settle();
  expect(movimientosDelProducto(events, producto.id).map((e) => e.body.data)).toEqual([
    expect.objectContaining({
      tipoOperacion: 'ASIGNACION',
      usuario: TEST_USER,
      movimientos: [expect.objectContaining({ bodegaId, tipo: 'AJUSTE', motivo: 'ASIGNACION', cantidad: 30 })],
    }),
    expect.objectContaining({
      tipoOperacion: 'RETIRO',
      usuario: TEST_USER,
      movimientos: [expect.objectContaining({ bodegaId, tipo: 'SALIDA', motivo: 'RETIRO', cantidad: -30 })],
    }),
  ]);
  // A level with no threshold alerts nobody.
  expect(stockBajoEmails(bodegaId, producto.id)).toEqual([]);
});

test('a transfer publishes exactly one MovimientoRegistrado holding both its lines', async () => {
  const origenId = await crearBodega(stack, { capacidad: 100 });
  const destinoId = await crearBodega(stack, { capacidad: 100 });
  const producto = await crearProducto(stack, SIN_UNIDADES);
  await expectStatus(200, 'POST', `/api/bodegas/${origenId}/productos`, { productoId: producto.id, cantidad: 20 });

  const transferencia = await expectStatus(201, 'POST', '/api/transferencias', {
    productoId: producto.id,
    origenId,
    destinoId,
    cantidad: 8,
  });
  const operacionId = transferencia.body.id as number;

  const events = await settle();
  const publicados = events.filter(
    (e) =>
      e.subject === `${stack.namespace.prefix}.movimiento.registrado` &&
      e.body.subject === `/operaciones/${operacionId}`,
  );
  expect(publicados).toHaveLength(1);
  const [evento] = publicados;
  expect(evento!.body.eventType).toMatch(/\.Inventario\.MovimientoRegistrado$/);
  expect(evento!.body.source).toBe('bodega-svc');
  expect(evento!.body.data).toMatchObject({ operacionId, tipoOperacion: 'TRANSFERENCIA', usuario: TEST_USER });
  const lineas = evento!.body.data.movimientos as Linea[];
  expect(
    lineas
      .map(({ operacionId: op, bodegaId, tipo, cantidad }) => ({ op, bodegaId, tipo, cantidad }))
      .sort((a, b) => a.cantidad - b.cantidad),
  ).toEqual([
    { op: operacionId, bodegaId: origenId, tipo: 'TRANSFERENCIA', cantidad: -8 },
    { op: operacionId, bodegaId: destinoId, tipo: 'TRANSFERENCIA', cantidad: 8 },
  ]);
  // No other event carries a side of it: it is never seen half done.
  expect(
    movimientosDelProducto(events, producto.id).filter((e) =>
      (e.body.data.movimientos as Linea[]).some((l) => l.tipo === 'TRANSFERENCIA'),
    ),
  ).toEqual([evento]);
});

test('crossing the threshold sends one "Stock Bajo" email; staying low sends nothing more; going back above publishes StockRepuesto, no email', async () => {
  const bodegaId = await crearBodega(stack, { capacidad: 100 });
  const producto = await crearProducto(stack, SIN_UNIDADES);
  const nivel = `/bodegas/${bodegaId}/existencias/${producto.id}`;
  const salida = (cantidad: number) =>
    expectStatus(201, 'POST', `/api/bodegas/${bodegaId}/movimientos`, {
      productoId: producto.id,
      tipo: 'SALIDA',
      cantidad,
    });
  const alertas = (events: StoredEvent[]) => ({
    bajo: eventosDe(events, 'StockBajo', nivel).length,
    repuesto: eventosDe(events, 'StockRepuesto', nivel).length,
  });

  await expectStatus(200, 'POST', `/api/bodegas/${bodegaId}/productos`, {
    productoId: producto.id,
    cantidad: 10,
    umbralMinimo: 5,
  });
  expect(alertas(await settle())).toEqual({ bajo: 0, repuesto: 0 });

  // 10 -> 4: crosses the threshold of 5.
  const cruce = await salida(6);
  let events = await settle();
  expect(alertas(events)).toEqual({ bajo: 1, repuesto: 0 });
  expect(eventosDe(events, 'StockBajo', nivel)[0]!.body.data).toMatchObject({
    bodegaId,
    productoId: producto.id,
    cantidad: 4,
    umbralMinimo: 5,
    operacionId: cruce.body.id,
    usuario: TEST_USER,
  });
  const emails = stockBajoEmails(bodegaId, producto.id);
  expect(emails).toHaveLength(1);
  // The event gives ids; the email names both, looked up by the notifier, in its subject and body.
  const bodegaNombre = (await expectStatus(200, 'GET', `/api/bodegas/${bodegaId}`)).body.nombre as string;
  expect(emails[0]!.subject).toBe(`Stock Bajo: ${producto.nombre} en ${bodegaNombre}`);
  const rows = [
    `Producto: ${producto.nombre} (${producto.id})`,
    `Bodega: ${bodegaNombre} (${bodegaId})`,
    'Unidades: 4',
    'Umbral mínimo: 5',
    `Usuario: ${TEST_USER}`,
  ];
  for (const row of rows) expect(emails[0]!.text.split('\n')).toContain(row);
  expect(emails[0]!.html).toContain(`>${producto.nombre} (${producto.id})</td>`);

  // 4 -> 3: still low, an edge already reported.
  await salida(1);
  events = await settle();
  expect(alertas(events)).toEqual({ bajo: 1, repuesto: 0 });
  expect(stockBajoEmails(bodegaId, producto.id)).toHaveLength(1);

  // 3 -> 13: back above; the alert is over, which is for other consumers, not the inbox.
  const emailsAntes = sink.received.length;
  await expectStatus(201, 'POST', `/api/bodegas/${bodegaId}/movimientos`, {
    productoId: producto.id,
    tipo: 'ENTRADA',
    cantidad: 10,
  });
  events = await settle();
  expect(alertas(events)).toEqual({ bajo: 1, repuesto: 1 });
  expect(eventosDe(events, 'StockRepuesto', nivel)[0]!.body.data).toMatchObject({ cantidad: 13, umbralMinimo: 5 });
  expect(sink.received).toHaveLength(emailsAntes);
});

test('deleting a product stocked in two warehouses makes bodega-svc write its stock out (PRODUCTO_ELIMINADO)', async () => {
  const bodegaA = await crearBodega(stack, { capacidad: 100 });
  const bodegaB = await crearBodega(stack, { capacidad: 100 });
  const producto = await crearProducto(stack, SIN_UNIDADES);
  await expectStatus(200, 'POST', `/api/bodegas/${bodegaA}/productos`, { productoId: producto.id, cantidad: 7 });
  await expectStatus(200, 'POST', `/api/bodegas/${bodegaB}/productos`, { productoId: producto.id, cantidad: 3 });

  await expectStatus(204, 'DELETE', `/api/productos/${producto.id}`);
  expect((await stack.request('GET', `/api/productos/${producto.id}/existencias`)).status).toBe(404);

  // bodega-svc hears ProductoEliminado after the delete's answer: the write-out lands later.
  const lineas = await waitFor(
    async () => {
      const res = await expectStatus(200, 'GET', `/api/movimientos?productoId=${producto.id}`);
      const escritas = (res.body.movimientos as Linea[]).filter((l) => l.motivo === 'PRODUCTO_ELIMINADO');
      return escritas.length === 2 ? escritas : undefined;
    },
    `the stock of product ${producto.id} written out`,
    30_000,
  );
  expect(
    lineas
      .map(({ bodegaId, tipo, cantidad }) => ({ bodegaId, tipo, cantidad }))
      .sort((a, b) => a.bodegaId - b.bodegaId),
  ).toEqual([
    { bodegaId: bodegaA, tipo: 'SALIDA', cantidad: -7 },
    { bodegaId: bodegaB, tipo: 'SALIDA', cantidad: -3 },
  ]);
  for (const bodegaId of [bodegaA, bodegaB]) {
    const existencias = (await expectStatus(200, 'GET', `/api/bodegas/${bodegaId}/existencias`)).body;
    expect(existencias).toMatchObject({ bodegaId, ocupacion: 0 });
    expect((existencias.existencias as { productoId: number }[]).map((e) => e.productoId)).not.toContain(producto.id);
  }

  // Published like any operation: its lines in MovimientoRegistrado.
  const events = await settle();
  const escritas = movimientosDelProducto(events, producto.id).filter(
    (e) => e.body.data.tipoOperacion === 'PRODUCTO_ELIMINADO',
  );
  expect(
    escritas.flatMap((e) => (e.body.data.movimientos as Linea[]).map((l) => l.cantidad)).sort((a, b) => a - b),
  ).toEqual([-7, -3]);
});

test('a level corrupted by SQL is reported by the verification and its gauge until it is put back', async () => {
  const gauge = async () =>
    metricSample(await scrapeMetrics(stack.bodegaMetricsPort), 'inventario_existencias_diferencias');
  const bodegaId = await crearBodega(stack, { capacidad: 100 });
  const producto = await crearProducto(stack, SIN_UNIDADES);
  await expectStatus(200, 'POST', `/api/bodegas/${bodegaId}/productos`, { productoId: producto.id, cantidad: 10 });
  const alterar = (delta: number) =>
    bodegaDb.raw('UPDATE existencias SET cantidad = cantidad + ? WHERE bodega_id = ? AND producto_id = ?', [
      delta,
      bodegaId,
      producto.id,
    ]);

  await alterar(5);
  try {
    const verificacion = await expectStatus(200, 'GET', '/api/existencias/verificacion');
    expect(verificacion.body.consistente).toBe(false);
    expect(verificacion.body.diferencias).toEqual([
      { tipo: 'NIVEL', bodegaId, productoId: producto.id, registrado: 15, calculado: 10 },
      { tipo: 'OCUPACION', bodegaId, productoId: null, registrado: 10, calculado: 15 },
    ]);
    expect(await gauge()).toBe(2);
    // Reported, never corrected.
    expect((await expectStatus(200, 'GET', `/api/bodegas/${bodegaId}/existencias/${producto.id}`)).body.cantidad).toBe(
      15,
    );
  } finally {
    await alterar(-5);
  }

  const verificacion = await expectStatus(200, 'GET', '/api/existencias/verificacion');
  expect(verificacion.body).toMatchObject({ consistente: true, diferencias: [] });
  expect(await gauge()).toBe(0);
});
