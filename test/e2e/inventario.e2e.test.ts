/**
 * End to end: all four services (producto-svc, bodega-svc, the BFF and the
 * notifier) against the real MariaDB and NATS JetStream, and a real SMTP
 * server as the sink. Every write made through the public surface (REST or
 * GraphQL) ends as exactly one email with the contract's subject; a forced
 * warehouse delete ends as `Bodega Eliminada` with its products kept and
 * unassigned.
 */
import { waitFor } from '@inventario/testkit';
import type { TestStack } from '@inventario/testkit/stack';
import type { ReceivedEmail, SmtpSink } from '@inventario/testkit/smtp-sink';
import {
  E2E_RECIPIENT as RECIPIENT,
  E2E_SENDER as SENDER,
  emailedEvents,
  startE2eSystem,
  waitForNotifierSettled,
  type E2eSystem,
} from './support/system';

let system: E2eSystem;
let stack: TestStack;
let sink: SmtpSink;

beforeAll(async () => {
  system = await startE2eSystem('e2e', { notifierEnv: { NOTIFIER_BACKOFF_MS: '200' } });
  ({ stack, sink } = system);
});

afterAll(async () => {
  await system?.close();
});

/** The emails received so far whose subject is this title and a name, about the record with this id (the text part's `Id:` line). */
function emailsAbout(subject: string, id: number | string): ReceivedEmail[] {
  const idLine = new RegExp(`^Id: ${id}$`, 'm');
  return sink.received.filter((e) => e.subject.startsWith(`${subject}: `) && idLine.test(e.text));
}

/** Waits for the email of one write and checks its sender, recipient, name and id. */
async function expectOneEmail(subject: string, id: number | string, nombre?: string): Promise<ReceivedEmail> {
  const [email] = await waitFor(() => {
    const found = emailsAbout(subject, id);
    return found.length > 0 ? found : undefined;
  }, `the "${subject}" email about ${id}`);
  expect(email!.from).toBe(SENDER);
  expect(email!.to).toEqual([RECIPIENT]);
  // Every subject names its record (docs/contract.md §6.1): the contract's title, then the name.
  if (nombre !== undefined)
    expect([email!.subject, email!.html.includes(nombre)]).toEqual([`${subject}: ${nombre}`, true]);
  expect(email!.html).toContain(`>${id}</td>`);
  return email!;
}

/**
 * Once the outboxes drained and every consumer has acked everything (so no
 * redelivery can still add a copy): exactly one email per event.
 */
async function expectEmailPerEvent(): Promise<void> {
  const events = await stack.settledEvents();
  await waitForNotifierSettled(system, events);
  const ids = sink.received.map((e) => e.messageId);
  expect(new Set(ids).size).toBe(ids.length);
  // A product created with units also records them in the ledger (MovimientoRegistrado), which is not emailed.
  expect(sink.received).toHaveLength(emailedEvents(stack, events).length);
}

test('REST creates, updates and deletes of a product and a warehouse each produce their email', async () => {
  const bodega = await stack.request('POST', '/api/bodegas', {
    body: { nombre: 'Almacén Sevilla', ubicacion: 'Sevilla', capacidad: 500 },
  });
  expect(bodega.status).toBe(201);
  const bodegaId = bodega.body.id as number;
  await expectOneEmail('Nueva Bodega Creada', bodegaId, 'Almacén Sevilla');

  const producto = await stack.request('POST', '/api/productos', {
    body: { nombre: 'Taladro percutor', precio: 89.9, cantidadEnStock: 4, bodegaId },
  });
  expect(producto.status).toBe(201);
  const productoId = producto.body.id as number;
  const creado = await expectOneEmail('Nuevo Producto Creado', productoId, 'Taladro percutor');
  // The event's usuario is the Basic-auth user of the call.
  expect(creado.html).toContain('tester');

  expect((await stack.request('PUT', `/api/productos/${productoId}`, { body: { cantidadEnStock: 7 } })).status).toBe(
    200,
  );
  await expectOneEmail('Producto Actualizado', productoId, 'Taladro percutor');

  expect((await stack.request('PUT', `/api/bodegas/${bodegaId}`, { body: { capacidad: 650 } })).status).toBe(200);
  await expectOneEmail('Bodega Actualizada', bodegaId, 'Almacén Sevilla');

  expect((await stack.request('DELETE', `/api/productos/${productoId}`)).status).toBe(204);
  await expectOneEmail('Producto Eliminado', productoId, 'Taladro percutor');

  expect((await stack.request('DELETE', `/api/bodegas/${bodegaId}`)).status).toBe(204);
  await expectOneEmail('Bodega Eliminada', bodegaId, 'Almacén Sevilla');

  await expectEmailPerEvent();
});

test('a GraphQL mutation produces its email like a REST call', async () => {
  const res = await stack.request('POST', '/api/graphql', {
    body: {
      query:
        'mutation Crear($input: ProductoInput!) { crearProducto(input: $input) { success producto { id nombre } } }',
      variables: { input: { nombre: 'Llave inglesa <grande>', precio: 12.5, cantidad: 3 } },
    },
  });
  expect(res.status).toBe(200);
  expect(res.body.data.crearProducto.success).toBe(true);
  const id = res.body.data.crearProducto.producto.id as string;
  const email = await expectOneEmail('Nuevo Producto Creado', id);
  // The subject names it as written (a header, not markup); the body HTML-escaped, never as markup.
  expect(email.subject).toBe('Nuevo Producto Creado: Llave inglesa <grande>');
  expect(email.html).toContain('Llave inglesa &lt;grande&gt;');
  expect(email.html).not.toContain('<grande>');
  await expectEmailPerEvent();
});

test('a forced warehouse delete emails "Bodega Eliminada" and leaves its products kept and unassigned', async () => {
  const bodega = await stack.request('POST', '/api/bodegas', {
    body: { nombre: 'Almacén Bilbao', ubicacion: 'Bilbao', capacidad: 100 },
  });
  const bodegaId = bodega.body.id as number;
  const ids: number[] = [];
  for (const nombre of ['Martillo', 'Destornillador']) {
    const p = await stack.request('POST', '/api/productos', {
      body: { nombre, precio: 5, cantidadEnStock: 1, bodegaId },
    });
    ids.push(p.body.id as number);
  }

  const refused = await stack.request('DELETE', `/api/bodegas/${bodegaId}`);
  expect(refused.status).toBe(409);

  const forced = await stack.request('DELETE', `/api/bodegas/${bodegaId}?force=true`);
  expect(forced.status).toBe(200);
  expect(forced.body.productosAfectados).toBe(2);
  await expectOneEmail('Bodega Eliminada', bodegaId);

  for (const id of ids) {
    const p = await stack.request('GET', `/api/productos/${id}`);
    expect(p.status).toBe(200);
    expect(p.body.bodegaId).toBeNull();
    // Each unassignment is a product update, and says so by email.
    await expectOneEmail('Producto Actualizado', id);
  }
  expect((await stack.request('GET', `/api/bodegas/${bodegaId}`)).status).toBe(404);
  await expectEmailPerEvent();
});
