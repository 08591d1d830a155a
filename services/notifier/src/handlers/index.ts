import { bodegaCreatedHandler } from './bodega-created-handler';
import { bodegaDeletedHandler } from './bodega-deleted-handler';
import { bodegaUpdatedHandler } from './bodega-updated-handler';
import type { EventHandler } from './event-handler';
import { productoCreatedHandler } from './producto-created-handler';
import { productoDeletedHandler } from './producto-deleted-handler';
import { productoUpdatedHandler } from './producto-updated-handler';

export type { EmailModel, EventHandler, HandlerName, PreparedEvent } from './event-handler';

/** The six handlers, one durable consumer each, in the spec's order. */
export const HANDLERS: readonly EventHandler[] = [
  productoCreatedHandler,
  productoUpdatedHandler,
  productoDeletedHandler,
  bodegaCreatedHandler,
  bodegaUpdatedHandler,
  bodegaDeletedHandler,
];
