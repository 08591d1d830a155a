/** Reservations as the gateway answers them (docs/contract.md §13); bodega-svc owns every rule. */

import type { EstadoReserva } from '@inventario/contract';

export { ESTADOS_RESERVA, type EstadoReserva } from '@inventario/contract';

export interface LineaReserva {
  id: number;
  bodegaId: number;
  productoId: number;
  cantidad: number;
  consumida: number;
  /** Units still held; 0 once the reservation is no longer active. */
  retenida: number;
}

export interface Reserva {
  id: number;
  referencia: string;
  /** At the database clock of the answer: an active hold past expiraEn is EXPIRADA, swept or not. */
  estado: EstadoReserva;
  /** UTC, no zone, to the second (the exact instant is bodega-svc's, to the microsecond; this one is never later). */
  expiraEn: string;
  lineas: LineaReserva[];
  version: number;
  /** Who made it: today the gateway's authenticated `usuario` (identidad-svc's scopes are not applied yet). */
  usuario: string;
  comentario: string | null;
  fechaCreacion: string;
  fechaActualizacion: string;
}

export interface ReservaInput {
  referencia: string;
  ttlSegundos?: number;
  lineas: { bodegaId: number; productoId: number; cantidad: number }[];
  comentario?: string | null;
}

export interface ConsumoInput {
  lineas?: { lineaId: number; cantidad: number }[];
  liberarResto?: boolean;
  comentario?: string | null;
}

export interface ReservaFilter {
  referencia?: string;
  estado?: EstadoReserva;
  bodegaId?: number;
  productoId?: number;
}
