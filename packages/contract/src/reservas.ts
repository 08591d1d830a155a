/**
 * A reservation's states (docs/contract.md §13), as bodega-svc records them and the gateway answers them:
 * ACTIVA while it holds units; then exactly one terminal state. bodega-svc owns every rule of the transitions.
 */
export const ESTADOS_RESERVA = ['ACTIVA', 'CONSUMIDA', 'LIBERADA', 'EXPIRADA', 'DESCUBIERTA'] as const;
export type EstadoReserva = (typeof ESTADOS_RESERVA)[number];
