/**
 * End to end, the "Reserva Descubierta" email (docs/contract.md §13.3, §13.8) through the public
 * REST API, across all four services on the real MariaDB, NATS JetStream and an SMTP sink: a
 * count (AJUSTE) below what an order holds ends its reservation DESCUBIERTA, bodega-svc publishes
 * one ReservaDescubierta, and the recipients get exactly one email naming the order and the
 * units missing; a second count publishes and sends nothing more.
 */
import { crearBodega, crearProducto, waitFor, type StackResponse } from '@inventario/testkit';
import type { TestStack } from '@inventario/testkit/stack';
import type { SmtpSink } from '@inventario/testkit/smtp-sink';
import { startE2eSystem, waitForNotifierSettled, type E2eSystem } from './support/system';

let system: E2eSystem;
let stack: TestStack;
let sink: SmtpSink;

beforeAll(async () => {
  system = await startE2eSystem('e2e_reservas', { notifierEnv: { NOTIFIER_BACKOFF_MS: '200' } });
  ({ stack, sink } = system);
});

afterAll(async () => {
  await system?.close();
});

async function call(method: string, path: string, status: number, body?: unknown, headers?: Record<string, string>) {
  const res: StackResponse = await stack.request(method, path, { body, headers });
  if (res.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${res.status} ${res.text}`);
  return res;
}

/** A count of the level to `cantidad`, under its current version (an AJUSTE requires If-Match). */
async function contar(bodegaId: number, productoId: number, cantidad: number): Promise<void> {
  const nivel = await call('GET', `/api/bodegas/${bodegaId}/existencias/${productoId}`, 200);
  await call(
    'POST',
    `/api/bodegas/${bodegaId}/movimientos`,
    201,
    { productoId, tipo: 'AJUSTE', cantidad },
    {
      'if-match': nivel.headers.get('etag')!,
    },
  );
}

test('a count below what an order holds sends one "Reserva Descubierta" email naming the order and what is missing', async () => {
  const bodegaId = await crearBodega(stack, { capacidad: 1000 });
  const { id: productoId } = await crearProducto(stack, { cantidadEnStock: 0 });
  await call('POST', `/api/bodegas/${bodegaId}/productos`, 200, { productoId, cantidad: 5 });
  const referencia = `pedido-e2e-${Date.now().toString(36)}`;
  const reserva = await call('POST', '/api/reservas', 201, {
    referencia,
    lineas: [{ bodegaId, productoId, cantidad: 4 }],
  });

  await contar(bodegaId, productoId, 1);
  expect((await call('GET', `/api/reservas/${reserva.body.id}`, 200)).body).toMatchObject({ estado: 'DESCUBIERTA' });

  const deLaReserva = () => sink.received.filter((e) => e.subject === `Reserva Descubierta: ${referencia}`);
  const [email] = await waitFor(() => (deLaReserva().length > 0 ? deLaReserva() : undefined), 'the email', 60_000);
  expect(email!.text.split('\n')).toEqual(
    expect.arrayContaining([
      `Reserva: ${reserva.body.id}`,
      `Referencia: ${referencia}`,
      `Faltan: 3 unidades del producto ${productoId} en la bodega ${bodegaId}`,
      `Reservado: 4 unidades del producto ${productoId} en la bodega ${bodegaId}`,
    ]),
  );

  // A second count finds no hold left to uncover: nothing more is published or sent.
  await contar(bodegaId, productoId, 0);
  const events = await stack.settledEvents();
  await waitForNotifierSettled(system, events);
  const descubiertas = events.filter(
    (e) => e.subject.endsWith('.reserva.descubierta') && e.body.subject === `/reservas/${reserva.body.id}`,
  );
  expect(descubiertas).toHaveLength(1);
  expect(deLaReserva()).toHaveLength(1);
  expect(deLaReserva()[0]!.headers.get('x-inventario-event-id')).toBe(descubiertas[0]!.body.id);
});
