import type { z } from 'zod';
import type { EventType } from '@inventario/platform';
import { formatFecha, formatIsoUtc, orElse } from '../email/format';
import { parseEvent } from '../events/envelope';

/** One handler per emailed event type (docs/contract.md §6.1); delivery is common to all (events/delivery.ts). */

/** No consumer at all: MovimientoRegistrado is far too frequent to mail, StockRepuesto is good news (docs/decisions.md). */
export const EVENT_TYPES_WITHOUT_EMAIL = ['MovimientoRegistrado', 'StockRepuesto'] as const satisfies readonly EventType[];

export type EmailedEventType = Exclude<EventType, (typeof EVENT_TYPES_WITHOUT_EMAIL)[number]>;

/** Durable consumer names, fixed by the contract. */
export type HandlerName =
  | 'ProductoCreatedHandler'
  | 'ProductoUpdatedHandler'
  | 'ProductoDeletedHandler'
  | 'BodegaCreatedHandler'
  | 'BodegaUpdatedHandler'
  | 'BodegaDeletedHandler'
  | 'StockBajoHandler';

/** Display strings only, so templates hold no logic and Handlebars escapes each value the same way. */
export interface EmailModel {
  /** Also the email subject. */
  heading: string;
  event: {
    id: string;
    /** `Service.Inventario.ProductoCreado` */
    type: string;
    /** `22 de noviembre de 2026, 14:03:07 UTC` */
    fecha: string;
    /** `2026-11-22T14:03:07Z` */
    fechaIso: string;
    usuario: string;
  };
  record: Record<string, string>;
}

export interface PreparedEvent {
  eventId: string;
  /** For logs. */
  subject: string;
  model: EmailModel;
}

export type Preparation = { ok: true; prepared: PreparedEvent } | { ok: false; reason: string };

export interface EventHandler {
  name: HandlerName;
  eventType: EmailedEventType;
  /** docs/contract.md §6.1. */
  emailSubject: string;
  template: string;
  prepare(payload: string, namespace: string): Preparation;
}

export interface HandlerSpec<D extends { usuario?: string | undefined }> {
  name: HandlerName;
  eventType: EmailedEventType;
  emailSubject: string;
  template: string;
  data: z.ZodType<D>;
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
