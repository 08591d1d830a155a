import { deletedDataSchema } from '../events/envelope';
import { defineHandler } from './event-handler';
import { deletedRecord } from './records';

/** One "Bodega Eliminada" email per BodegaEliminada event; durable consumer `BodegaDeletedHandler` (docs/contract.md §6.1). */
export const bodegaDeletedHandler = defineHandler({
  name: 'BodegaDeletedHandler',
  eventType: 'BodegaEliminada',
  emailSubject: 'Bodega Eliminada',
  template: 'bodega-eliminada',
  data: deletedDataSchema,
  record: deletedRecord,
});
