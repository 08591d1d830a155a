import { productoDataSchema } from '../events/envelope';
import { defineHandler } from './event-handler';
import { productoRecord } from './records';

/** One "Nuevo Producto Creado" email per ProductoCreado event; durable consumer `ProductoCreatedHandler` (docs/contract.md §6.1). */
export const productoCreatedHandler = defineHandler({
  name: 'ProductoCreatedHandler',
  eventType: 'ProductoCreado',
  emailSubject: 'Nuevo Producto Creado',
  template: 'producto-creado',
  data: productoDataSchema,
  record: productoRecord,
});
