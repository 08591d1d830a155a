import type { EventType } from '@inventario/platform';

/** The spec's subject table ("Email notifications"), written out independently of the handlers. */
export const SPEC_SUBJECTS: Readonly<Record<EventType, string>> = {
  ProductoCreado: 'Nuevo Producto Creado',
  ProductoActualizado: 'Producto Actualizado',
  ProductoEliminado: 'Producto Eliminado',
  BodegaCreada: 'Nueva Bodega Creada',
  BodegaActualizada: 'Bodega Actualizada',
  BodegaEliminada: 'Bodega Eliminada',
};
