import type { EmailedEventType } from '../../src/handlers';

/**
 * The subject table of docs/contract.md
 * §10.4 (StockBajo), §13.8 (ReservaDescubierta), written out independently of the handlers.
 */
export const SPEC_SUBJECTS: Readonly<Record<EmailedEventType, string>> = {
  ProductoCreado: 'Nuevo Producto Creado',
  ProductoActualizado: 'Producto Actualizado',
  ProductoEliminado: 'Producto Eliminado',
  BodegaCreada: 'Nueva Bodega Creada',
  BodegaActualizada: 'Bodega Actualizada',
  BodegaEliminada: 'Bodega Eliminada',
  StockBajo: 'Stock Bajo',
  ReservaDescubierta: 'Reserva Descubierta',
};
