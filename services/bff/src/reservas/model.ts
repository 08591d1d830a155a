/** Reservations as the gateway answers them (docs/contract.md §13); bodega-svc owns every rule. */

import type { EstadoReserva, ReservaDe } from '@inventario/contract';

export { ESTADOS_RESERVA, type EstadoReserva, type LineaReserva } from '@inventario/contract';

/** Instants as the API writes them: UTC, no zone, to the second. */
export type Reserva = ReservaDe<string>;

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
