import { bodegaDataSchema } from '../events/envelope';
import { defineHandler } from './event-handler';
import { bodegaRecord } from './records';

/** One "Bodega Actualizada" email per BodegaActualizada event; durable consumer `BodegaUpdatedHandler` (docs/contract.md §6.1). */
export const bodegaUpdatedHandler = defineHandler({
  name: 'BodegaUpdatedHandler',
  eventType: 'BodegaActualizada',
  emailSubject: 'Bodega Actualizada',
  template: 'bodega-actualizada',
  data: bodegaDataSchema,
  record: bodegaRecord,
});
