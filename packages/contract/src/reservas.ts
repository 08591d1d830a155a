/**
 * A reservation's states (docs/contract.md §13), as bodega-svc records them and the gateway answers them:
 * ACTIVA while it holds units; then exactly one terminal state. bodega-svc owns every rule of the transitions.
 */
export const ESTADOS_RESERVA = ['ACTIVA', 'CONSUMIDA', 'LIBERADA', 'EXPIRADA', 'DESCUBIERTA'] as const;
export type EstadoReserva = (typeof ESTADOS_RESERVA)[number];

/** One line of a reservation: one level (warehouse, product), lines of one level aggregated. */
export interface LineaReserva {
  id: number;
  bodegaId: number;
  productoId: number;
  cantidad: number;
  consumida: number;
  /** Units still held; 0 once the reservation is no longer active. */
  retenida: number;
}

/**
 * A reservation, its instants of type `Fecha`: bodega-svc's domain holds `Date`s (the exact instant, to the
 * microsecond); the gateway answers strings, UTC without zone, to the second (never later than bodega-svc's).
 */
export interface ReservaDe<Fecha> {
  id: number;
  referencia: string;
  /** At the database clock of the answer: ACTIVA past `expiraEn` is EXPIRADA even before it is swept. */
  estado: EstadoReserva;
  expiraEn: Fecha;
  lineas: LineaReserva[];
  version: number;
  /** Who made it: today the gateway's authenticated `usuario` (identidad-svc's scopes are not applied yet). */
  usuario: string;
  comentario: string | null;
  fechaCreacion: Fecha;
  fechaActualizacion: Fecha;
}
