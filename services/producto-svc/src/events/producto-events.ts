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

/** Outbox rows of product writes (docs/contract.md §5.3), added inside the write's transaction. */
export interface ProductoEvents {
  created(producto: Producto, context: WriteContext): OutboxEvent;
  updated(producto: Producto, camposModificados: ProductoCampo[], context: WriteContext): OutboxEvent;
  deleted(producto: Pick<Producto, 'id' | 'nombre' | 'version'>, context: WriteContext, at: Date): OutboxEvent;
}

export interface ProductoEventsOptions {
  namespace: string;
  prefix: string;
}

/** Both historical variants' names; precio is converted from the stored decimal, never computed. */
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
  function event<D extends EventData>(
    type: EventType,
    id: number,
    data: D,
    at: Date,
    context: WriteContext,
  ): OutboxEvent {
    return {
      subject: eventSubject(options.prefix, type),
      envelope: buildEnvelope({
        namespace: options.namespace,
        type,
        source: 'producto-svc',
        subject: `/productos/${id}`,
        data,
        at,
      }),
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
