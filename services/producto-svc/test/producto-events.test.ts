import { jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { formatLocalUtc } from '@inventario/platform';
import type { Producto } from '@inventario/proto';
import type { StoredEvent } from '@inventario/testkit';
import { rejectionOf, type ProductoApi } from '@inventario/testkit/grpc';
import { startTestService, type TestService } from './support/test-service';

// Every committed write publishes exactly one event (docs/contract.md §5.6),
// through the outbox; a rejected write publishes none.

let svc: TestService;
let api: ProductoApi;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const LOCAL_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

beforeAll(async () => {
  svc = await startTestService('producto_events');
  api = svc.api.as({ usuario: 'ana', traceparent: TRACEPARENT });
  await svc.app.ready;
});

afterAll(async () => {
  await svc?.close();
});

/** The settled events of one product, in stream order. */
async function eventsOf(id: number | undefined): Promise<StoredEvent[]> {
  return (await svc.settledEvents()).filter((e) => e.body.subject === `/productos/${id}`);
}

function expectEnvelope(
  event: StoredEvent | undefined,
  type: string,
  natsSubject: string,
  id: number | undefined,
): void {
  expect(event?.subject).toBe(`${svc.namespace.prefix}.${natsSubject}`);
  expect(event?.body.id).toMatch(UUID);
  expect(event?.headers['Nats-Msg-Id']).toBe(event?.body.id);
  expect(event?.body.eventType).toBe(`Service.Inventario.${type}`);
  expect(event?.body.subject).toBe(`/productos/${id}`);
  expect(event?.body.eventTime).toMatch(LOCAL_UTC);
  expect(event?.body.dataVersion).toBe('1.0');
  expect(event?.body.source).toBe('producto-svc');
}

function stamp(date: Date | undefined): string {
  return formatLocalUtc(date ?? new Date(NaN));
}

describe('events of product writes', () => {
  it('go to the stream the service created with the configured limits (defaults: 720 h, 512 MiB)', async () => {
    const { config } = await (await jetstreamManager(svc.nc)).streams.info(svc.namespace.stream);
    expect(config).toMatchObject({
      subjects: [`${svc.namespace.prefix}.>`],
      max_age: nanos(720 * 3600_000),
      max_bytes: 512 * 1024 * 1024,
    });
  });

  it('CreateProducto publishes one ProductoCreado carrying the stored product, the caller and the trace context', async () => {
    const { producto } = await api.create({
      nombre: 'Teclado',
      descripcion: 'Mecánico',
      precio: '1234.50',
      cantidadEnStock: 5,
      bodegaId: 2,
    });
    const events = await eventsOf(producto?.id);
    expect(events).toHaveLength(1);
    const [event] = events;
    expectEnvelope(event, 'ProductoCreado', 'producto.creado', producto?.id);
    expect(event?.body.eventTime).toBe(stamp(producto?.fechaCreacion));
    expect(event?.headers.traceparent).toBe(TRACEPARENT);
    expect(event?.body.data).toEqual({
      productoId: producto?.id,
      nombre: 'Teclado',
      descripcion: 'Mecánico',
      precio: 1234.5,
      cantidadEnStock: 5,
      cantidad: 5,
      bodegaId: 2,
      timestamp: stamp(producto?.fechaCreacion),
      usuario: 'ana',
      accion: 'CREAR',
      operacion: 'CREATE',
      version: 1,
    });
    expect(event?.body.data).not.toHaveProperty('camposModificados');
  });

  it('publishes precio as the JSON number of the stored decimal, and null for absent optional fields', async () => {
    const { producto } = await api.create({ nombre: 'Clip', precio: '0.10', cantidadEnStock: 100 });
    const [event] = await eventsOf(producto?.id);
    expect(event?.body.data).toMatchObject({ precio: 0.1, descripcion: null, bodegaId: null });
  });

  it("names 'system' as usuario when the call carries no user", async () => {
    const { producto } = await svc.api.as({}).create({ nombre: 'Anónimo', precio: '1.00', cantidadEnStock: 1 });
    const [event] = await eventsOf(producto?.id);
    expect(event?.body.data.usuario).toBe('system');
    expect(event?.headers.traceparent).toBeUndefined();
  });

  it('UpdateProducto publishes one ProductoActualizado with the product after the change and the fields it changed', async () => {
    const { producto: created } = await api.create({
      nombre: 'Monitor',
      descripcion: '27 pulgadas',
      precio: '300.00',
      cantidadEnStock: 3,
      bodegaId: 4,
    });
    const { producto } = await svc.api.as({ usuario: 'beto' }).update({
      producto: { id: created?.id, precio: '279.99' },
      updateMask: ['precio', 'descripcion', 'bodega_id'],
    });
    const events = await eventsOf(created?.id);
    expect(events.map((e) => e.body.eventType)).toEqual([
      'Service.Inventario.ProductoCreado',
      'Service.Inventario.ProductoActualizado',
    ]);
    const event = events[1];
    expectEnvelope(event, 'ProductoActualizado', 'producto.actualizado', created?.id);
    expect(event?.body.eventTime).toBe(stamp(producto?.fechaActualizacion));
    expect(event?.body.data).toEqual({
      productoId: created?.id,
      nombre: 'Monitor',
      descripcion: null,
      precio: 279.99,
      cantidadEnStock: 3,
      cantidad: 3,
      bodegaId: null,
      timestamp: stamp(producto?.fechaActualizacion),
      usuario: 'beto',
      accion: 'ACTUALIZAR',
      operacion: 'UPDATE',
      // Cleared fields count as changed; the order is the REST form's, not the mask's.
      camposModificados: ['descripcion', 'precio', 'bodegaId'],
      version: 2,
    });
  });

  it('lists in camposModificados only the fields whose value the update changed', async () => {
    const { producto } = await api.create({
      nombre: 'Lámpara',
      descripcion: 'LED',
      precio: '45.00',
      cantidadEnStock: 7,
      bodegaId: 5,
    });
    const id = producto?.id;
    // nombre, precio (written differently, same decimal) and bodegaId are set to what they already were.
    await api.update({
      producto: { id, nombre: 'Lámpara', precio: '45.0', cantidadEnStock: 8, bodegaId: 5 },
      updateMask: ['nombre', 'precio', 'cantidad_en_stock', 'bodega_id'],
    });
    await api.update({
      producto: { id, nombre: 'Lámpara', descripcion: 'LED' },
      updateMask: ['nombre', 'descripcion'],
    });
    const updates = (await eventsOf(id)).filter((e) => e.body.eventType.endsWith('ProductoActualizado'));
    expect(updates.map((e) => e.body.data.camposModificados)).toEqual([['cantidadEnStock'], []]);
    expect(updates[0]?.body.data).toMatchObject({ cantidadEnStock: 8, cantidad: 8, precio: 45 });
  });

  it('DeleteProducto publishes one ProductoEliminado with id, nombre and the audit fields', async () => {
    const { producto } = await api.create({ nombre: 'Ratón', precio: '15.00', cantidadEnStock: 9 });
    await api.delete(producto?.id ?? 0);
    const events = await eventsOf(producto?.id);
    expect(events).toHaveLength(2);
    const event = events[1];
    expectEnvelope(event, 'ProductoEliminado', 'producto.eliminado', producto?.id);
    expect(event?.body.data).toEqual({
      id: producto?.id,
      nombre: 'Ratón',
      timestamp: event?.body.eventTime,
      usuario: 'ana',
      accion: 'ELIMINAR',
      operacion: 'DELETE',
      version: 1,
    });
  });

  it('a ProductoEliminado carries no descripcion, so a deletion event stays small whatever the product held (contract §5.3)', async () => {
    const { producto } = await api.create({
      nombre: 'Manual',
      descripcion: 'ñ'.repeat(30_000),
      precio: '2.00',
      cantidadEnStock: 1,
    });
    await api.delete(producto?.id ?? 0);
    const deleted = (await eventsOf(producto?.id)).find((e) => e.body.eventType.endsWith('ProductoEliminado'));
    expect(Object.keys(deleted?.body.data ?? {}).sort()).toEqual([
      'accion',
      'id',
      'nombre',
      'operacion',
      'timestamp',
      'usuario',
      'version',
    ]);
    expect(Buffer.byteLength(JSON.stringify(deleted?.body))).toBeLessThan(1024);
  });

  it('rejected writes publish nothing', async () => {
    const { producto: existing } = await api.create({ nombre: 'Fijo', precio: '1.00', cantidadEnStock: 1 });
    const before = await svc.settledEvents();

    await rejectionOf(api.create({ nombre: '', precio: '1.00', cantidadEnStock: 1 }));
    await rejectionOf(api.create({ nombre: 'Caro', precio: '100000000.00', cantidadEnStock: 1 }));
    await rejectionOf(api.update({ producto: { id: existing?.id, precio: '-1' }, updateMask: ['precio'] }));
    await rejectionOf(api.update({ producto: { id: existing?.id }, updateMask: [] }));
    await rejectionOf(api.update({ producto: { id: 999_999, nombre: 'x' }, updateMask: ['nombre'] }));
    await rejectionOf(api.delete(999_999));
    // The relay publishes in commit order: once this marker's event is in the
    // stream, an event of any earlier write would be there too.
    const { producto: marker } = await api.create({ nombre: 'Marcador', precio: '1.00', cantidadEnStock: 1 });

    const after = await svc.settledEvents();
    expect(after.slice(before.length).map((e) => e.body.subject)).toEqual([`/productos/${marker?.id}`]);
  });

  it('UnassignBodega publishes one ProductoActualizado per unassigned product, and nothing when repeated', async () => {
    const ids: Array<number | undefined> = [];
    for (const nombre of ['Caja 1', 'Caja 2']) {
      ids.push((await api.create({ nombre, precio: '2.00', cantidadEnStock: 1, bodegaId: 77 })).producto?.id);
    }
    const before = await svc.settledEvents();
    const { productos } = await api.unassignBodega(77);
    const published = (await svc.settledEvents()).slice(before.length);
    expect(published.map((e) => [e.body.eventType, e.body.subject])).toEqual(
      ids.map((id) => ['Service.Inventario.ProductoActualizado', `/productos/${id}`]),
    );
    published.forEach((event, i) => {
      const producto: Producto | undefined = productos[i];
      expect(event.body.data).toMatchObject({
        productoId: producto?.id,
        bodegaId: null,
        usuario: 'ana',
        accion: 'ACTUALIZAR',
        camposModificados: ['bodegaId'],
      });
    });

    const settled = (await svc.settledEvents()).length;
    expect((await api.unassignBodega(77)).productos).toEqual([]);
    const { producto: marker } = await api.create({ nombre: 'Marcador 2', precio: '1.00', cantidadEnStock: 1 });
    expect((await svc.settledEvents()).slice(settled).map((e) => e.body.subject)).toEqual([`/productos/${marker?.id}`]);
  });

  it('concurrent updates of one product publish their events in commit order', async () => {
    const { producto } = await api.create({ nombre: 'Disputado', precio: '1.00', cantidadEnStock: 0 });
    const id = producto?.id;
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.update({ producto: { id, cantidadEnStock: i + 1 }, updateMask: ['cantidad_en_stock'] }),
      ),
    );
    const final = (await api.get(id ?? 0)).producto;
    const updates = (await eventsOf(id)).filter((e) => e.body.eventType.endsWith('ProductoActualizado'));
    expect(updates).toHaveLength(8);
    // The last event describes the state that won; a consumer replaying them ends where the table is.
    expect(updates.at(-1)?.body.data.cantidadEnStock).toBe(final?.cantidadEnStock);
    expect(new Set(updates.map((e) => e.body.data.cantidadEnStock)).size).toBe(8);
  });
});
