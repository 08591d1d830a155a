import {
  buildEnvelope,
  EVENT_SOURCE,
  eventAudit,
  type BodegaEventData,
  type DeletedEventData,
  type EventEnvelope,
  type EventType,
  type Operacion,
  type ProductoEventData,
} from '@inventario/platform';

/**
 * Realistic events of every type, shaped exactly as producto-svc and
 * bodega-svc publish them, for the template preview and the tests. The
 * update samples carry `camposModificados` (the stock, the capacity), as
 * current producers send it.
 */

export interface SampleOptions {
  /** EVENT_TYPE_NAMESPACE (default `Service`). */
  namespace?: string;
  /** Event time (default 2026-11-22T14:03:07Z). */
  at?: Date;
  /** Name of the record (e.g. a hostile one, to check escaping). */
  nombre?: string;
  /** Record id (default 12 for products, 3 for warehouses). */
  id?: number;
  usuario?: string;
}

const DEFAULT_AT = new Date('2026-11-22T14:03:07Z');

const OPERACION: Record<EventType, Operacion> = {
  ProductoCreado: 'CREATE',
  ProductoActualizado: 'UPDATE',
  ProductoEliminado: 'DELETE',
  BodegaCreada: 'CREATE',
  BodegaActualizada: 'UPDATE',
  BodegaEliminada: 'DELETE',
};

/** One envelope of `type`, as our producers build it (fresh UUID id). */
export function sampleEnvelope(type: EventType, options: SampleOptions = {}): EventEnvelope {
  const at = options.at ?? DEFAULT_AT;
  const audit = eventAudit(OPERACION[type], options.usuario ?? 'ana', at);
  const producto = type.startsWith('Producto');
  const id = options.id ?? (producto ? 12 : 3);
  const nombre = options.nombre ?? (producto ? 'Tornillo M6 inoxidable' : 'Bodega Central');
  let data: ProductoEventData | BodegaEventData | DeletedEventData;
  const version = audit.operacion === 'CREATE' ? 1 : 2;
  if (audit.operacion === 'DELETE') {
    data = { id, nombre, ...audit, version };
  } else if (producto) {
    const stock = audit.operacion === 'CREATE' ? 500 : 480;
    data = { productoId: id, nombre, descripcion: 'Caja de 100 unidades', precio: 1234.5, cantidadEnStock: stock, cantidad: stock, bodegaId: 3, ...audit, version };
    if (audit.operacion === 'UPDATE') data.camposModificados = ['cantidadEnStock'];
  } else {
    data = { bodegaId: id, nombre, ubicacion: 'Calle de Alcalá 45, Madrid', capacidad: audit.operacion === 'CREATE' ? 1000 : 1200, ...audit, version };
    if (audit.operacion === 'UPDATE') data.camposModificados = ['capacidad'];
  }
  return buildEnvelope({
    namespace: options.namespace ?? 'Service',
    type,
    source: EVENT_SOURCE[type],
    subject: producto ? `/productos/${id}` : `/bodegas/${id}`,
    data,
    at,
  });
}
