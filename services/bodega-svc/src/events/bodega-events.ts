import {
  buildEnvelope,
  eventAudit,
  eventSubject,
  eventTraceHeaders,
  type BodegaCampo,
  type BodegaEventData,
  type DeletedEventData,
  type EventData,
  type EventType,
  type OutboxEvent,
} from '@inventario/platform';
import type { Bodega } from '../domain/bodega';

/**
 * The warehouse events of docs/contract.md §5.3, built as outbox rows. The
 * store enqueues them in the write's own transaction; the relay publishes them.
 */

/** Who made a write, when, and its trace context. */
export interface WriteContext {
  /** Basic-auth user of the public call, or `system`. */
  usuario: string;
  /** W3C traceparent of the call, forwarded as a NATS header. */
  traceparent?: string;
  /** W3C tracestate of the call, forwarded with its traceparent. */
  tracestate?: string;
  /** The instant of the write: `fechaActualizacion`, `eventTime` and `data.timestamp`. */
  at: Date;
}

export interface BodegaEventsOptions {
  /** `EVENT_TYPE_NAMESPACE`: eventType is `<namespace>.Inventario.BodegaCreada`. */
  namespace: string;
  /** `NATS_SUBJECT_PREFIX`: the NATS subject is `<prefix>.bodega.creada`. */
  subjectPrefix: string;
}

export interface BodegaEvents {
  /** BodegaCreada: data is the warehouse record (accion CREAR, operacion CREATE). */
  creada(bodega: Bodega, ctx: WriteContext): OutboxEvent;
  /**
   * BodegaActualizada: data is the record after the update (ACTUALIZAR,
   * UPDATE) plus `camposModificados`, the fields whose value it changed
   * (BODEGA_CAMPOS order).
   */
  actualizada(bodega: Bodega, camposModificados: BodegaCampo[], ctx: WriteContext): OutboxEvent;
  /** BodegaEliminada: data is `{id, nombre}` of the deleted warehouse (ELIMINAR, DELETE). */
  eliminada(bodega: Bodega, ctx: WriteContext): OutboxEvent;
}

export function createBodegaEvents(options: BodegaEventsOptions): BodegaEvents {
  function event(type: EventType, bodega: Bodega, ctx: WriteContext, data: EventData): OutboxEvent {
    const envelope = buildEnvelope({
      namespace: options.namespace,
      type,
      source: 'bodega-svc',
      subject: `/bodegas/${bodega.id}`,
      data,
      at: ctx.at,
    });
    return {
      subject: eventSubject(options.subjectPrefix, type),
      envelope,
      // The write's trace context (traceparent, and tracestate with it), or none.
      headers: eventTraceHeaders(ctx),
    };
  }

  function record(bodega: Bodega, ctx: WriteContext, operacion: 'CREATE' | 'UPDATE'): BodegaEventData {
    return {
      bodegaId: bodega.id,
      nombre: bodega.nombre,
      ubicacion: bodega.ubicacion,
      capacidad: bodega.capacidad,
      ...eventAudit(operacion, ctx.usuario, ctx.at),
      version: bodega.version,
    };
  }

  return {
    creada: (bodega, ctx) => event('BodegaCreada', bodega, ctx, record(bodega, ctx, 'CREATE')),
    actualizada: (bodega, camposModificados, ctx) =>
      event('BodegaActualizada', bodega, ctx, { ...record(bodega, ctx, 'UPDATE'), camposModificados }),
    eliminada: (bodega, ctx) => {
      const data: DeletedEventData = { id: bodega.id, nombre: bodega.nombre, ...eventAudit('DELETE', ctx.usuario, ctx.at), version: bodega.version };
      return event('BodegaEliminada', bodega, ctx, data);
    },
  };
}
