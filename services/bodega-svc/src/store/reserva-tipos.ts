// What the reservation store (reserva-store.ts) takes and depends on: its options, its query, its dependencies.

import type { EstadoReserva, LimitesReserva } from '../domain/reserva';
import type { ExistenciaStore } from './existencia-store';
import type { RelojReservas } from './reservas-en-niveles';

export interface ReservaOptions {
  expectedVersion?: number;
  claveIdempotencia?: string;
}

export interface ReservaQuery {
  pageSize: number;
  /** Newest first. */
  beforeId: number | null;
  referencia?: string;
  estado?: EstadoReserva;
  bodegaId?: number;
  productoId?: number;
  /**
   * A scoped principal's warehouses (docs/contract.md §12.9): only holds whose every line is in one of them (a hold
   * is read only where all its warehouses are visible).
   */
  bodegasVisibles?: number[];
}

export interface ReservaStoreDeps extends RelojReservas {
  existencias: ExistenciaStore;
  limites: LimitesReserva;
  onCommitted?: () => void;
  idempotencyTtlSeconds: number;
  /** The pool takes several statements in one query: a write's last statements go together (sentencias.ts). */
  sentenciasJuntas?: boolean;
}
