import { bodegaCreatedHandler } from './bodega-created-handler';
import { bodegaDeletedHandler } from './bodega-deleted-handler';
import { bodegaUpdatedHandler } from './bodega-updated-handler';
import type { EventHandler } from './event-handler';
import { productoCreatedHandler } from './producto-created-handler';
import { productoDeletedHandler } from './producto-deleted-handler';
import { productoUpdatedHandler } from './producto-updated-handler';
import { stockBajoHandler } from './stock-bajo-handler';

export { EVENT_TYPES_WITHOUT_EMAIL } from './event-handler';
export type { EmailedEventType, EmailModel, EventHandler, HandlerName, PreparedEvent } from './event-handler';

/**
 * The handlers, one durable consumer each: the spec's six in its order, then
 * the stock ledger's StockBajo. Every event type but EVENT_TYPES_WITHOUT_EMAIL
 * has one.
 */
export const HANDLERS: readonly EventHandler[] = [
  productoCreatedHandler,
  productoUpdatedHandler,
  productoDeletedHandler,
  bodegaCreatedHandler,
  bodegaUpdatedHandler,
  bodegaDeletedHandler,
  stockBajoHandler,
];
