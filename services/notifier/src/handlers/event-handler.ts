import type { z } from 'zod';
import type { EventType } from '@inventario/platform';
import { formatFecha, formatIsoUtc, orElse } from '../email/format';
import { parseEvent } from '../events/envelope';

/**
 * One handler per emailed event type (docs/contract.md §6.1): it names its
 * durable consumer, the email's subject (docs/contract.md §6.1) and template, and
 * turns an event into what the template shows. Delivery (ack, retry, dead
 * letter, de-duplication) is the same for all of them and lives in
 * events/delivery.ts.
 */

/**
 * The event types the notifier sends no email for, so it has no consumer
 * for them and never receives them: the ledger's MovimientoRegistrado (one
 * per stock operation, far too many to mail) and StockRepuesto (the good
 * news after a StockBajo). They are for other consumers (docs/decisions.md).
 */
export const EVENT_TYPES_WITHOUT_EMAIL = ['MovimientoRegistrado', 'StockRepuesto'] as const satisfies readonly EventType[];

/** The event types the notifier emails: every other one, each with its handler. */
export type EmailedEventType = Exclude<EventType, (typeof EVENT_TYPES_WITHOUT_EMAIL)[number]>;

/** The durable consumer names, fixed by the contract. */
export type HandlerName =
  | 'ProductoCreatedHandler'
  | 'ProductoUpdatedHandler'
  | 'ProductoDeletedHandler'
  | 'BodegaCreatedHandler'
  | 'BodegaUpdatedHandler'
  | 'BodegaDeletedHandler'
  | 'StockBajoHandler';

/**
 * What a template renders. Every value is already a display string, so the
 * templates hold no logic and Handlebars escapes each one the same way.
 */
export interface EmailModel {
  /** The heading; the email subject too. */
  heading: string;
  event: {
    id: string;
    /** `Service.Inventario.ProductoCreado` */
    type: string;
    /** `22 de noviembre de 2026, 14:03:07 UTC` */
    fecha: string;
    /** `2026-11-22T14:03:07Z` */
    fechaIso: string;
    /** Who made the change (`system` for internal work). */
    usuario: string;
  };
  /** The record's fields as the template names them (`id`, `nombre`, ...). */
  record: Record<string, string>;
}

/** An event ready to be emailed. */
export interface PreparedEvent {
  eventId: string;
  /** `/productos/12`, for logs. */
  subject: string;
  model: EmailModel;
}

export type Preparation = { ok: true; prepared: PreparedEvent } | { ok: false; reason: string };

export interface EventHandler {
  name: HandlerName;
  eventType: EmailedEventType;
  /** Subject and heading of the email (spec, "Email notifications"). */
  emailSubject: string;
  /** Base name of `templates/<template>.html.hbs` and `.txt.hbs`. */
  template: string;
  /** Parses a message body of this type; the reason says why it cannot be emailed. */
  prepare(payload: string, namespace: string): Preparation;
}

export interface HandlerSpec<D extends { usuario?: string | undefined }> {
  name: HandlerName;
  eventType: EmailedEventType;
  emailSubject: string;
  template: string;
  data: z.ZodType<D>;
  /** The record's display fields, from the event's data. */
  record(data: D): Record<string, string>;
}

export function defineHandler<D extends { usuario?: string | undefined }>(spec: HandlerSpec<D>): EventHandler {
  return {
    name: spec.name,
    eventType: spec.eventType,
    emailSubject: spec.emailSubject,
    template: spec.template,
    prepare(payload, namespace) {
      const parsed = parseEvent(payload, { type: spec.eventType, namespace }, spec.data);
      if (!parsed.ok) return parsed;
      const { event } = parsed;
      return {
        ok: true,
        prepared: {
          eventId: event.id,
          subject: event.subject,
          model: {
            heading: spec.emailSubject,
            event: {
              id: event.id,
              type: event.eventType,
              fecha: formatFecha(event.eventTime),
              fechaIso: formatIsoUtc(event.eventTime),
              usuario: orElse(event.data.usuario, 'desconocido'),
            },
            record: spec.record(event.data),
          },
        },
      };
    },
  };
}
