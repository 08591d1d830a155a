/**
 * The event contract of docs/contract.md §5: one past-tense subject per type,
 * the contract's envelope, and the audit block of every `data`.
 */
import {
  buildEnvelope,
  EVENT_TYPES,
  eventAudit,
  eventSubject,
  type BodegaEventData,
  type EventType,
  type Operacion,
} from '@inventario/platform';
import { ACCION, eventTypeOfSubject } from '../src/events';

const SUBJECTS: Array<[EventType, string]> = [
  ['ProductoCreado', 'inventario.producto.creado'],
  ['ProductoActualizado', 'inventario.producto.actualizado'],
  ['ProductoEliminado', 'inventario.producto.eliminado'],
  ['BodegaCreada', 'inventario.bodega.creada'],
  ['BodegaActualizada', 'inventario.bodega.actualizada'],
  ['BodegaEliminada', 'inventario.bodega.eliminada'],
  ['MovimientoRegistrado', 'inventario.movimiento.registrado'],
  ['StockBajo', 'inventario.stock.bajo'],
  ['StockRepuesto', 'inventario.stock.repuesto'],
  ['ReservaDescubierta', 'inventario.reserva.descubierta'],
];

describe('event subjects', () => {
  it('covers every event type, each once', () => {
    expect(SUBJECTS.map(([type]) => type).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it.each(SUBJECTS)('publishes %s on %s', (type, subject) => {
    expect(eventSubject('inventario', type)).toBe(subject);
  });

  it.each(SUBJECTS)('reads %s back from %s', (type, subject) => {
    expect(eventTypeOfSubject('inventario', subject)).toBe(type);
  });

  it.each(SUBJECTS)('puts %s under a test prefix of several tokens', (type, subject) => {
    const prefixed = eventSubject('t_run.a1', type);
    expect(prefixed).toBe(subject.replace(/^inventario\./, 't_run.a1.'));
    expect(eventTypeOfSubject('t_run.a1', prefixed)).toBe(type);
  });

  it.each([
    ['inventario', 'inventario.producto.borrado'],
    ['inventario', 'inventario.producto'],
    ['inventario', 'otro.producto.creado'],
    ['otro', 'inventario.producto.creado'],
    ['inventario', 'inventario.producto.creado.extra'],
  ])('knows no event type under prefix %s for %s', (prefix, subject) => {
    expect(eventTypeOfSubject(prefix, subject)).toBeUndefined();
  });
});

describe('eventAudit', () => {
  const at = new Date('2026-11-22T14:03:07.456Z');

  it.each<[Operacion, string]>([
    ['CREATE', 'CREAR'],
    ['UPDATE', 'ACTUALIZAR'],
    ['DELETE', 'ELIMINAR'],
  ])('pairs operacion %s with accion %s', (operacion, accion) => {
    expect(eventAudit(operacion, 'admin', at)).toEqual({
      timestamp: '2026-11-22T14:03:07',
      usuario: 'admin',
      accion,
      operacion,
    });
    expect(ACCION[operacion]).toBe(accion);
  });

  it('records internal work as done by system', () => {
    expect(eventAudit('UPDATE', 'system', at).usuario).toBe('system');
  });
});

describe('buildEnvelope', () => {
  const at = new Date('2026-11-22T14:03:07.999Z');
  const data: BodegaEventData = {
    bodegaId: 7,
    nombre: 'Bodega Central',
    ubicacion: 'Santiago',
    capacidad: 500,
    ...eventAudit('CREATE', 'admin', at),
    version: 1,
  };

  it('wraps data in the contract envelope', () => {
    const envelope = buildEnvelope({
      namespace: 'Service',
      type: 'BodegaCreada',
      source: 'bodega-svc',
      subject: '/bodegas/7',
      data,
      at,
    });
    expect(envelope).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      eventType: 'Service.Inventario.BodegaCreada',
      subject: '/bodegas/7',
      eventTime: '2026-11-22T14:03:07',
      dataVersion: '1.0',
      source: 'bodega-svc',
      data,
    });
    expect(Object.keys(envelope)).toEqual(['id', 'eventType', 'subject', 'eventTime', 'dataVersion', 'source', 'data']);
  });

  it('puts the configured namespace in front of the event type', () => {
    const envelope = buildEnvelope({
      namespace: 'Acme.Prod',
      type: 'ProductoEliminado',
      source: 'producto-svc',
      subject: '/productos/3',
      data,
      at,
    });
    expect(envelope.eventType).toBe('Acme.Prod.Inventario.ProductoEliminado');
  });

  it('gives every event its own id, the de-duplication key', () => {
    const ids = new Set(
      Array.from(
        { length: 50 },
        () =>
          buildEnvelope({
            namespace: 'Service',
            type: 'BodegaCreada',
            source: 'bodega-svc',
            subject: '/bodegas/7',
            data,
            at,
          }).id,
      ),
    );
    expect(ids.size).toBe(50);
  });
});
