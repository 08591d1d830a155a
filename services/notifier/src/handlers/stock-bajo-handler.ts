import { stockUmbralDataSchema } from '../events/envelope';
import { defineHandler } from './event-handler';
import { stockRecord } from './records';

/** One "Stock Bajo" email per StockBajo event; durable consumer `StockBajoHandler` (docs/contract.md §10.4). */
export const stockBajoHandler = defineHandler({
  name: 'StockBajoHandler',
  eventType: 'StockBajo',
  emailSubject: 'Stock Bajo',
  template: 'stock-bajo',
  data: stockUmbralDataSchema,
  record: stockRecord,
});
