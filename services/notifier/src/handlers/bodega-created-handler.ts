import { bodegaDataSchema } from '../events/envelope';
import { defineHandler } from './event-handler';
import { bodegaRecord } from './records';

/** One "Nueva Bodega Creada" email per BodegaCreada event; durable consumer `BodegaCreatedHandler` (docs/contract.md §6.1). */
export const bodegaCreatedHandler = defineHandler({
  name: 'BodegaCreatedHandler',
  eventType: 'BodegaCreada',
  emailSubject: 'Nueva Bodega Creada',
  template: 'bodega-creada',
  data: bodegaDataSchema,
  record: bodegaRecord,
});
