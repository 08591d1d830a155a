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
import type { Principal } from '@inventario/contract';
import type { Bodega } from '../domain/bodega';

/** docs/contract.md §5.3, built as outbox rows in the write's own transaction. */

export interface WriteContext {
  /** `system` for internal work. */
  usuario: string;
  traceparent?: string;
  tracestate?: string;
  /** The call's verified principal (docs/contract.md §12.9), when it carried one. */
  principal?: Principal;
  /** One instant for `fechaActualizacion`, `eventTime` and `data.timestamp`. */
  at: Date;
}

export interface BodegaEventsOptions {
  namespace: string;
  subjectPrefix: string;
}

export interface BodegaEvents {
  creada(bodega: Bodega, ctx: WriteContext): OutboxEvent;
  actualizada(bodega: Bodega, camposModificados: BodegaCampo[], ctx: WriteContext): OutboxEvent;
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
      const data: DeletedEventData = {
        id: bodega.id,
        nombre: bodega.nombre,
        ...eventAudit('DELETE', ctx.usuario, ctx.at),
        version: bodega.version,
      };
      return event('BodegaEliminada', bodega, ctx, data);
    },
  };
}
