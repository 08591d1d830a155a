/**
 * End to end, safe retries reach the inbox: twenty concurrent POSTs of one
 * product with one Idempotency-Key, through the whole system (producto-svc,
 * bodega-svc, the BFF, the notifier and a real SMTP sink), end as exactly one
 * product and exactly one "Nuevo Producto Creado" email.
 */
import { startE2eSystem, waitForNotifierSettled, type E2eSystem } from './support/system';

let system: E2eSystem;

beforeAll(async () => {
  system = await startE2eSystem('e2e_safe', { notifierEnv: { NOTIFIER_BACKOFF_MS: '200' } });
});

afterAll(async () => {
  await system?.close();
});

test('20 concurrent POSTs with one Idempotency-Key: one product, one event, one email', async () => {
  const { stack, sink } = system;
  const nombre = `Una sola vez ${Date.now().toString(36)}`;
  const key = `e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  const body = { nombre, precio: 19.95, cantidadEnStock: 6 };
  const responses = await Promise.all(
    Array.from({ length: 20 }, () =>
      stack.request('POST', '/api/productos', { body, headers: { 'idempotency-key': key } }),
    ),
  );
  const created = responses.filter((r) => r.status === 201);
  expect(responses.filter((r) => r.status !== 201 && r.status !== 409)).toEqual([]);
  expect(created.length).toBeGreaterThanOrEqual(1);
  const id = created[0]!.body.id as number;
  for (const r of created) expect(r.body.id).toBe(id);

  // Everything published and consumed, so no late copy can still arrive.
  const events = await stack.settledEvents();
  expect(
    events
      .filter((e) => e.body.eventType.endsWith('ProductoCreado') && e.body.data.nombre === nombre)
      .map((e) => e.body.subject),
  ).toEqual([`/productos/${id}`]);
  await waitForNotifierSettled(system, events);

  const emails = sink.received.filter((e) => e.subject === `Nuevo Producto Creado: ${nombre}`);
  expect(emails).toHaveLength(1);
  expect(emails[0]!.text).toMatch(new RegExp(`^Id: ${id}$`, 'm'));
  process.stdout.write(
    `safe-writes e2e: ${created.length} x 201, ${20 - created.length} x 409; ${emails.length} email\n`,
  );
});
