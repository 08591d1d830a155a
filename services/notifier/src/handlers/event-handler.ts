import type { z } from 'zod';
import type { EventType } from '@inventario/platform';
import { formatFecha, formatIsoUtc, orElse } from '../email/format';
import { parseEvent } from '../events/envelope';

/** One handler per emailed event type (docs/contract.md §6.1); delivery is common to all (events/delivery.ts). */

/**
 * No consumer at all: MovimientoRegistrado is far too frequent to mail, StockRepuesto is good news (docs/decisions.md).
 */
export const EVENT_TYPES_WITHOUT_EMAIL = [
  'MovimientoRegistrado',
  'StockRepuesto',
] as const satisfies readonly EventType[];

export type EmailedEventType = Exclude<EventType, (typeof EVENT_TYPES_WITHOUT_EMAIL)[number]>;

/** Durable consumer names, fixed by the contract. */
export type HandlerName =
  | 'ProductoCreatedHandler'
  | 'ProductoUpdatedHandler'
  | 'ProductoDeletedHandler'
  | 'BodegaCreatedHandler'
  | 'BodegaUpdatedHandler'
  | 'BodegaDeletedHandler'
  | 'StockBajoHandler'
  | 'ReservaDescubiertaHandler';

/** Display strings only, so templates hold no logic and Handlebars escapes each value the same way. */
export interface EmailModel {
  /** The contract's title of the email (docs/contract.md §6.1), its heading. */
  heading: string;
  /**
   * The heading and what it is about, by name: `Nuevo Producto Creado: Tornillo M6`. Each record's email has its own.
   */
  subject: string;
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

/** Names looked up for ids the event does not name (names/name-lookup.ts); absent when unknown. */
export interface Nombres {
  producto?: string | undefined;
  bodega?: string | undefined;
}

/** The ids, by kind, whose names an email shows and its event does not carry. */
export type NombresPorBuscar = { producto?: number; bodega?: number };

export interface PreparedEvent {
  eventId: string;
  /** For logs. */
  subject: string;
  /** The email with what the event names, ids where it names nothing. */
  model: EmailModel;
  /** The ids to look names up for before sending ({} when the event names everything). */
  porBuscar: NombresPorBuscar;
  /** The email again with the names found. */
  withNombres(nombres: Nombres): EmailModel;
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
  record(data: D, nombres: Nombres): Record<string, string>;
  /** What the email is about, after the heading in the subject: the record's name. */
  about(data: D, nombres: Nombres): string;
  /** The ids the email shows whose names the event does not carry. */
  porBuscar?(data: D): NombresPorBuscar;
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
      const modelWith = (nombres: Nombres): EmailModel => ({
        heading: spec.emailSubject,
        subject: `${spec.emailSubject}: ${spec.about(event.data, nombres)}`,
        event: {
          id: event.id,
          type: event.eventType,
          fecha: formatFecha(event.eventTime),
          fechaIso: formatIsoUtc(event.eventTime),
          usuario: orElse(event.data.usuario, 'desconocido'),
        },
        record: spec.record(event.data, nombres),
      });
      return {
        ok: true,
        prepared: {
          eventId: event.id,
          subject: event.subject,
          model: modelWith({}),
          porBuscar: spec.porBuscar?.(event.data) ?? {},
          withNombres: modelWith,
        },
      };
    },
  };
}
