import { randomUUID } from 'node:crypto';
import { eventTraceHeaders, formatLocalUtc, type OutboxEvent } from '@inventario/platform';
import type { EstadoReserva, LineaReserva } from '../domain/reserva';
import type { BodegaEventsOptions, WriteContext } from './bodega-events';

/**
 * Reservation events (docs/contract.md §13.4): exactly one per transition, as outbox rows in the
 * transition's own transaction, in the envelope of §5.2, under `<prefix>.reserva.<estado>`.
 * Only ReservaDescubierta is in platform's EVENT_TYPES (the list the notifier must e-mail or
 * silence; it e-mails that one, §13.8); the other four stay out, as identidad-svc's do.
 */
export const TIPOS_EVENTO_RESERVA = {
  ReservaCreada: 'reserva.creada',
  ReservaConsumida: 'reserva.consumida',
  ReservaLiberada: 'reserva.liberada',
  ReservaExpirada: 'reserva.expirada',
  ReservaDescubierta: 'reserva.descubierta',
} as const;
export type TipoEventoReserva = keyof typeof TIPOS_EVENTO_RESERVA;

/** What every reservation event carries: the reservation after the transition. */
export interface ReservaEventData {
  reservaId: number;
  referencia: string;
  estado: EstadoReserva;
  expiraEn: string;
  version: number;
  lineas: LineaReserva[];
  /** ReservaConsumida: the SALIDA operation written. */
  operacionId?: number;
  /** ReservaDescubierta: per level, the units promised that are not there. */
  faltante?: { bodegaId: number; productoId: number; unidades: number }[];
  usuario: string;
  timestamp: string;
}

export interface ReservaEvents {
  evento(
    type: TipoEventoReserva,
    data: Omit<ReservaEventData, 'usuario' | 'timestamp'>,
    ctx: WriteContext,
  ): OutboxEvent;
}

export function createReservaEvents(options: BodegaEventsOptions): ReservaEvents {
  return {
    evento(type, data, ctx) {
      const envelope = {
        id: randomUUID(),
        eventType: `${options.namespace}.Inventario.${type}`,
        subject: `/reservas/${data.reservaId}`,
        eventTime: formatLocalUtc(ctx.at),
        dataVersion: '1.0',
        source: 'bodega-svc',
        data: { ...data, usuario: ctx.usuario, timestamp: formatLocalUtc(ctx.at) },
      };
      // The outbox stores any envelope of §5.2; platform's type lists only the stock's own data forms.
      return {
        subject: `${options.subjectPrefix}.${TIPOS_EVENTO_RESERVA[type]}`,
        envelope: envelope as unknown as OutboxEvent['envelope'],
        headers: eventTraceHeaders(ctx),
      };
    },
  };
}
