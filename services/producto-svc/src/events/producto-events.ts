import {
  buildEnvelope,
  eventAudit,
  eventSubject,
  eventTraceHeaders,
  type DeletedEventData,
  type EventData,
  type EventType,
  type Operacion,
  type OutboxEvent,
  type ProductoCampo,
  type ProductoEventData,
} from '@inventario/platform';
import type { Producto, WriteContext } from '../domain/producto';

/**
 * Builds the outbox rows of product writes (docs/contract.md §5.3). The store
 * adds them inside the write's transaction; the relay publishes them after
 * commit.
 */
export interface ProductoEvents {
  /** ProductoCreado, data = the stored product. */
  created(producto: Producto, context: WriteContext): OutboxEvent;
  /**
   * ProductoActualizado, data = the product after the change plus
   * `camposModificados`, the fields whose value it changed (PRODUCTO_CAMPOS order).
   */
  updated(producto: Producto, camposModificados: ProductoCampo[], context: WriteContext): OutboxEvent;
  /** ProductoEliminado, data = `{id, nombre, version}` plus the audit block. */
  deleted(producto: Pick<Producto, 'id' | 'nombre' | 'version'>, context: WriteContext, at: Date): OutboxEvent;
}

export interface ProductoEventsOptions {
  /** Prefix of every eventType, e.g. `Service` (EVENT_TYPE_NAMESPACE). */
  namespace: string;
  /** First subject token(s), e.g. `inventario` (NATS_SUBJECT_PREFIX). */
  prefix: string;
}

/**
 * `data` of ProductoCreado / ProductoActualizado: both historical variants'
 * names. precio goes out as a JSON number converted from the stored decimal
 * string; no arithmetic touches it, so it keeps its two decimals' value.
 */
export function productoEventData(producto: Producto, operacion: Operacion, usuario: string): ProductoEventData {
  return {
    productoId: producto.id,
    nombre: producto.nombre,
    descripcion: producto.descripcion,
    precio: Number(producto.precio),
    cantidadEnStock: producto.cantidadEnStock,
    cantidad: producto.cantidadEnStock,
    bodegaId: producto.bodegaId,
    ...eventAudit(operacion, usuario, producto.fechaActualizacion),
    version: producto.version,
  };
}

export function createProductoEvents(options: ProductoEventsOptions): ProductoEvents {
  function event<D extends EventData>(type: EventType, id: number, data: D, at: Date, context: WriteContext): OutboxEvent {
    return {
      subject: eventSubject(options.prefix, type),
      envelope: buildEnvelope({ namespace: options.namespace, type, source: 'producto-svc', subject: `/productos/${id}`, data, at }),
      // The write's trace context (traceparent, and tracestate with it), or none.
      headers: eventTraceHeaders(context),
    };
  }

  return {
    created: (producto, context) =>
      event(
        'ProductoCreado',
        producto.id,
        productoEventData(producto, 'CREATE', context.usuario),
        producto.fechaActualizacion,
        context,
      ),
    updated: (producto, camposModificados, context) =>
      event(
        'ProductoActualizado',
        producto.id,
        { ...productoEventData(producto, 'UPDATE', context.usuario), camposModificados },
        producto.fechaActualizacion,
        context,
      ),
    deleted: (producto, context, at) => {
      const data: DeletedEventData = {
        id: producto.id,
        nombre: producto.nombre,
        ...eventAudit('DELETE', context.usuario, at),
        version: producto.version,
      };
      return event('ProductoEliminado', producto.id, data, at, context);
    },
  };
}
