import { productoDataSchema } from '../events/envelope';
import { defineHandler } from './event-handler';
import { productoRecord } from './records';

/** One "Producto Actualizado" email per ProductoActualizado event; durable consumer `ProductoUpdatedHandler` (docs/contract.md §6.1). */
export const productoUpdatedHandler = defineHandler({
  name: 'ProductoUpdatedHandler',
  eventType: 'ProductoActualizado',
  emailSubject: 'Producto Actualizado',
  template: 'producto-actualizado',
  data: productoDataSchema,
  record: productoRecord,
});
