import { deletedDataSchema } from '../events/envelope';
import { defineHandler } from './event-handler';
import { deletedRecord } from './records';

/** One "Producto Eliminado" email per ProductoEliminado event; durable consumer `ProductoDeletedHandler` (docs/contract.md §6.1). */
export const productoDeletedHandler = defineHandler({
  name: 'ProductoDeletedHandler',
  eventType: 'ProductoEliminado',
  emailSubject: 'Producto Eliminado',
  template: 'producto-eliminado',
  data: deletedDataSchema,
  record: deletedRecord,
});
