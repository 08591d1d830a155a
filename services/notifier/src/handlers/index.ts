import {
  bodegaDataSchema,
  deletedDataSchema,
  productoDataSchema,
  reservaDescubiertaDataSchema,
  stockUmbralDataSchema,
} from '../events/envelope';
import { defineHandler, type EmailedEventType, type EventHandler } from './event-handler';
import {
  bodegaAbout,
  bodegaRecord,
  deletedAbout,
  deletedRecord,
  productoAbout,
  productoPorBuscar,
  productoRecord,
  reservaAbout,
  reservaDescubiertaRecord,
  stockAbout,
  stockPorBuscar,
  stockRecord,
} from './records';

export { EVENT_TYPES_WITHOUT_EMAIL } from './event-handler';
export type {
  EmailedEventType,
  EmailModel,
  EventHandler,
  HandlerName,
  Nombres,
  NombresPorBuscar,
  PreparedEvent,
} from './event-handler';

/**
 * One durable consumer each: docs/contract.md §6.1 in its order, then StockBajo (§10.4), ReservaDescubierta (§13.8).
 */
export const HANDLERS: readonly EventHandler[] = [
  defineHandler({
    name: 'ProductoCreatedHandler',
    eventType: 'ProductoCreado',
    emailSubject: 'Nuevo Producto Creado',
    template: 'producto-creado',
    data: productoDataSchema,
    record: productoRecord,
    about: productoAbout,
    porBuscar: productoPorBuscar,
  }),
  defineHandler({
    name: 'ProductoUpdatedHandler',
    eventType: 'ProductoActualizado',
    emailSubject: 'Producto Actualizado',
    template: 'producto-actualizado',
    data: productoDataSchema,
    record: productoRecord,
    about: productoAbout,
    porBuscar: productoPorBuscar,
  }),
  defineHandler({
    name: 'ProductoDeletedHandler',
    eventType: 'ProductoEliminado',
    emailSubject: 'Producto Eliminado',
    template: 'producto-eliminado',
    data: deletedDataSchema,
    record: deletedRecord,
    about: deletedAbout('producto'),
  }),
  defineHandler({
    name: 'BodegaCreatedHandler',
    eventType: 'BodegaCreada',
    emailSubject: 'Nueva Bodega Creada',
    template: 'bodega-creada',
    data: bodegaDataSchema,
    record: bodegaRecord,
    about: bodegaAbout,
  }),
  defineHandler({
    name: 'BodegaUpdatedHandler',
    eventType: 'BodegaActualizada',
    emailSubject: 'Bodega Actualizada',
    template: 'bodega-actualizada',
    data: bodegaDataSchema,
    record: bodegaRecord,
    about: bodegaAbout,
  }),
  defineHandler({
    name: 'BodegaDeletedHandler',
    eventType: 'BodegaEliminada',
    emailSubject: 'Bodega Eliminada',
    template: 'bodega-eliminada',
    data: deletedDataSchema,
    record: deletedRecord,
    about: deletedAbout('bodega'),
  }),
  defineHandler({
    name: 'StockBajoHandler',
    eventType: 'StockBajo',
    emailSubject: 'Stock Bajo',
    template: 'stock-bajo',
    data: stockUmbralDataSchema,
    record: stockRecord,
    about: stockAbout,
    porBuscar: stockPorBuscar,
  }),
  defineHandler({
    name: 'ReservaDescubiertaHandler',
    eventType: 'ReservaDescubierta',
    emailSubject: 'Reserva Descubierta',
    template: 'reserva-descubierta',
    data: reservaDescubiertaDataSchema,
    record: reservaDescubiertaRecord,
    about: reservaAbout,
  }),
];

export function handlerFor(eventType: EmailedEventType): EventHandler {
  const handler = HANDLERS.find((candidate) => candidate.eventType === eventType);
  if (!handler) throw new Error(`no handler for ${eventType}`);
  return handler;
}
