/**
 * Component tests of the events: each committed write publishes exactly one
 * envelope to JetStream (through the outbox); a rejected write publishes none.
 */
import { status } from '@grpc/grpc-js';
import { formatLocalUtc } from '@inventario/platform';
import type { StoredEvent } from '@inventario/testkit';
import { asUser, grpcError, startTestService, type TestService } from './support/test-service';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService('bodega_events');
});

afterAll(async () => {
  await svc?.close();
});

/** The published events of one warehouse, in stream order. */
async function eventsOf(id: number): Promise<StoredEvent[]> {
  return (await svc.publishedEvents()).filter((e) => e.body.subject === `/bodegas/${id}`);
}

const LOCAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('events', () => {
  it('publishes BodegaCreada with the envelope, headers and data of the contract', async () => {
    const { bodega } = await svc.rpc.createBodega(
      { nombre: 'Evento Creada', ubicacion: 'Bogotá', capacidad: 300 },
      asUser('ana', TRACEPARENT),
    );
    if (!bodega?.fechaCreacion) throw new Error('CreateBodega answered without a bodega');

    const events = await eventsOf(bodega.id);

    expect(events).toHaveLength(1);
    const [event] = events as [StoredEvent];
    const at = formatLocalUtc(bodega.fechaCreacion);
    expect(event.subject).toBe(`${svc.ns.prefix}.bodega.creada`);
    expect(event.headers['Nats-Msg-Id']).toBe(event.body.id);
    expect(event.headers['traceparent']).toBe(TRACEPARENT);
    expect(event.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      eventType: 'Service.Inventario.BodegaCreada',
      subject: `/bodegas/${bodega.id}`,
      eventTime: at,
      dataVersion: '1.0',
      source: 'bodega-svc',
      data: {
        bodegaId: bodega.id,
        nombre: 'Evento Creada',
        ubicacion: 'Bogotá',
        capacidad: 300,
        timestamp: at,
        usuario: 'ana',
        accion: 'CREAR',
        operacion: 'CREATE',
        version: 1,
      },
    });
    expect(event.body.data).not.toHaveProperty('camposModificados');
    expect(event.body.eventTime).toMatch(LOCAL_ISO);
  });

  it('publishes BodegaActualizada with the record after the update and the fields it changed', async () => {
    const { bodega: creada } = await svc.rpc.createBodega({
      nombre: 'Evento Actualizada',
      ubicacion: 'Lima',
      capacidad: 1,
    });
    if (!creada) throw new Error('CreateBodega answered without a bodega');
    const { bodega } = await svc.rpc.updateBodega(
      { bodega: { version: 0, id: creada.id, nombre: '', capacidad: 0 }, updateMask: ['ubicacion'] },
      asUser('luis'),
    );
    if (!bodega?.fechaActualizacion) throw new Error('UpdateBodega answered without a bodega');

    const events = await eventsOf(creada.id);

    expect(events.map((e) => e.subject)).toEqual([
      `${svc.ns.prefix}.bodega.creada`,
      `${svc.ns.prefix}.bodega.actualizada`,
    ]);
    const updated = events[1] as StoredEvent;
    expect(updated.headers['Nats-Msg-Id']).toBe(updated.body.id);
    expect(updated.headers['traceparent']).toBeUndefined();
    expect(updated.body).toMatchObject({
      eventType: 'Service.Inventario.BodegaActualizada',
      subject: `/bodegas/${creada.id}`,
      eventTime: formatLocalUtc(bodega.fechaActualizacion),
      dataVersion: '1.0',
      source: 'bodega-svc',
    });
    expect(updated.body.data).toEqual({
      bodegaId: creada.id,
      nombre: 'Evento Actualizada',
      ubicacion: null,
      capacidad: 1,
      timestamp: formatLocalUtc(bodega.fechaActualizacion),
      usuario: 'luis',
      accion: 'ACTUALIZAR',
      operacion: 'UPDATE',
      // Clearing a value changes it.
      camposModificados: ['ubicacion'],
      version: 2,
    });
  });

  it('lists in camposModificados only the fields whose value the update changed', async () => {
    const { bodega } = await svc.rpc.createBodega({ nombre: 'Evento Campos', ubicacion: 'Quito', capacidad: 10 });
    if (!bodega) throw new Error('CreateBodega answered without a bodega');
    // nombre and ubicacion are set to what they already were.
    await svc.rpc.updateBodega({
      bodega: { version: 0, id: bodega.id, nombre: 'Evento Campos', ubicacion: 'Quito', capacidad: 20 },
      updateMask: ['nombre', 'ubicacion', 'capacidad'],
    });
    await svc.rpc.updateBodega({
      bodega: { version: 0, id: bodega.id, nombre: 'Evento Campos Norte', capacidad: 20 },
      updateMask: ['nombre', 'capacidad'],
    });
    await svc.rpc.updateBodega({
      bodega: { version: 0, id: bodega.id, nombre: '', capacidad: 20 },
      updateMask: ['capacidad'],
    });

    const updates = (await eventsOf(bodega.id)).slice(1);

    expect(updates.map((e) => e.body.data['camposModificados'])).toEqual([['capacidad'], ['nombre'], []]);
    expect(updates.map((e) => e.body.data['nombre'])).toEqual([
      'Evento Campos',
      'Evento Campos Norte',
      'Evento Campos Norte',
    ]);
  });

  it('publishes BodegaEliminada with the id and name of the deleted warehouse', async () => {
    const { bodega: creada } = await svc.rpc.createBodega({ nombre: 'Evento Eliminada', capacidad: 9 });
    if (!creada) throw new Error('CreateBodega answered without a bodega');
    await svc.rpc.deleteBodega({ id: creada.id }, asUser('marta'));

    const events = await eventsOf(creada.id);

    expect(events.map((e) => e.subject)).toEqual([
      `${svc.ns.prefix}.bodega.creada`,
      `${svc.ns.prefix}.bodega.eliminada`,
    ]);
    const deleted = events[1] as StoredEvent;
    expect(deleted.headers['Nats-Msg-Id']).toBe(deleted.body.id);
    expect(deleted.body).toMatchObject({
      eventType: 'Service.Inventario.BodegaEliminada',
      subject: `/bodegas/${creada.id}`,
      dataVersion: '1.0',
    });
    expect(deleted.body.eventTime).toMatch(LOCAL_ISO);
    expect(deleted.body.data).toEqual({
      id: creada.id,
      nombre: 'Evento Eliminada',
      timestamp: deleted.body.eventTime,
      usuario: 'marta',
      accion: 'ELIMINAR',
      operacion: 'DELETE',
      version: 1,
    });
  });

  it("names the user 'system' when the call carries no user", async () => {
    const { bodega } = await svc.rpc.createBodega({ nombre: 'Evento Sistema', capacidad: 2 });
    if (!bodega) throw new Error('CreateBodega answered without a bodega');
    const [event] = await eventsOf(bodega.id);
    expect(event?.body.data['usuario']).toBe('system');
  });

  it('publishes exactly one event per committed write, each with its own id', async () => {
    const { bodega } = await svc.rpc.createBodega({ nombre: 'Evento Muchas', capacidad: 0 });
    if (!bodega) throw new Error('CreateBodega answered without a bodega');
    for (let capacidad = 1; capacidad <= 5; capacidad++) {
      await svc.rpc.updateBodega({
        bodega: { version: 0, id: bodega.id, nombre: '', capacidad },
        updateMask: ['capacidad'],
      });
    }

    const events = await eventsOf(bodega.id);

    expect(events).toHaveLength(6);
    expect(new Set(events.map((e) => e.body.id)).size).toBe(6);
    expect(events.map((e) => e.body.data['capacidad'])).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('publishes nothing for rejected writes', async () => {
    const { bodega } = await svc.rpc.createBodega({ nombre: 'Evento Rechazos', capacidad: 1 });
    const { bodega: otra } = await svc.rpc.createBodega({ nombre: 'Evento Otra', capacidad: 1 });
    if (!bodega || !otra) throw new Error('CreateBodega answered without a bodega');
    const publishedBefore = (await svc.publishedEvents()).length;
    const outboxBefore = await svc.outboxCount();

    const rejected = [
      await grpcError(svc.rpc.createBodega({ nombre: '', capacidad: 1 })),
      await grpcError(svc.rpc.createBodega({ nombre: 'evento rechazos', capacidad: 1 })),
      await grpcError(
        svc.rpc.updateBodega({
          bodega: { version: 0, id: otra.id, nombre: bodega.nombre, capacidad: 0 },
          updateMask: ['nombre'],
        }),
      ),
      await grpcError(
        svc.rpc.updateBodega({
          bodega: { version: 0, id: bodega.id, nombre: '', capacidad: -1 },
          updateMask: ['capacidad'],
        }),
      ),
      await grpcError(
        svc.rpc.updateBodega({
          bodega: { version: 0, id: 765_432, nombre: '', capacidad: 1 },
          updateMask: ['capacidad'],
        }),
      ),
      await grpcError(svc.rpc.deleteBodega({ id: 765_432 })),
    ];
    // A committed write afterwards: once its event is out, anything enqueued before it would be too.
    const { bodega: testigo } = await svc.rpc.createBodega({ nombre: 'Evento Testigo', capacidad: 1 });

    expect(rejected.map((e) => e.code)).toEqual([
      status.INVALID_ARGUMENT,
      status.ALREADY_EXISTS,
      status.ALREADY_EXISTS,
      status.INVALID_ARGUMENT,
      status.NOT_FOUND,
      status.NOT_FOUND,
    ]);
    expect(await svc.outboxCount()).toBe(outboxBefore + 1);
    const published = await svc.publishedEvents();
    expect(published).toHaveLength(publishedBefore + 1);
    expect(published[published.length - 1]?.body.subject).toBe(`/bodegas/${testigo?.id}`);
  });
});
