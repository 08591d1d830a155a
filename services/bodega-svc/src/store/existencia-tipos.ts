// What the stock store (existencia-store.ts) takes and answers: its commands' options and inputs, its queries,
// its verification and its dependencies; and a level's row, which its helper modules read.

import type { AlertaSobre, TipoMovimiento } from '@inventario/contract';
import type { Operacion } from '../domain/existencia';
import type { BodegaBloqueada } from './ocupacion';
import type { RelojReservas } from './reservas-en-niveles';
import type { ExistenciaEvents } from '../events/existencia-events';
import type { DiferenciaReserva } from './reserva-verificacion';

export interface StockInicialOptions {
  /**
   * Only as the product's first units (its ProductoCreado, recorded late): a product with a line already (a count,
   * a movement) has said how many there are, so its row is recorded with no operation, and nothing is added later.
   */
  soloSiNuevo?: boolean;
}

export interface StockInicialRegistrado {
  operacion: Operacion;
  total?: number;
}

export interface TotalDeProducto {
  productoId: number;
  total: number;
  sinUbicar: number;
}

export interface StockInicial {
  productoId: number;
  bodegaId: number | null;
  cantidad: number;
  origen: 'STOCK_INICIAL' | 'MIGRACION';
}

export interface ConteoDeProducto {
  productoId: number;
  bodegaId: number | null;
  cantidad: number;
}

export interface CommandOptions {
  expectedVersion?: number;
  /** The level must exist (REST `If-Match: *`); with expectedVersion 0, a condition that never holds. */
  requiereNivel?: boolean;
  /** An assignment: an existing level is set only under expectedVersion (PRECONDITION_REQUIRED). */
  versionRequerida?: boolean;
  claveIdempotencia?: string;
}

/** A warehouse as the request named it: `campo` is the request's field (`bodegaId`, `origenId`, `destinoId`). */
export interface BodegaNombrada {
  campo: string;
  id: number;
}

/** What the store asks producto-svc about a product id it has not seen (producto-lookup.ts). */
export interface ProductoCatalogo {
  /** True when producto-svc has the product now; UnavailableError when it cannot tell. */
  isLive(productoId: number): Promise<boolean>;
}

export interface ExistenciaQuery {
  pageSize: number;
  after: { bodegaId: number; productoId: number } | null;
  bodegaIds: number[];
  productoIds: number[];
}

/**
 * ListExistenciasPorLote: the parents are warehouses (their levels by product) or products (their
 * levels by warehouse, the unlocated one left out). Of each parent the levels whose other id is
 * greater than `afterId`, at most `perParent` (0: all); the page follows (warehouse, product) order.
 */
export interface ExistenciasPorLoteQuery {
  pageSize: number;
  after: { bodegaId: number; productoId: number } | null;
  parents: { bodegaIds: number[] } | { productoIds: number[] };
  perParent: number;
  afterId: number | null;
  /** Only levels of these warehouses (the caller's scope); undefined: any. */
  visibles: number[] | undefined;
}

export interface MovimientoQuery {
  pageSize: number;
  /** Lines are listed newest first. */
  beforeId: number | null;
  bodegaId?: number;
  /** The warehouses a scoped principal may see (docs/contract.md §12.9): lines of others are left out in SQL. */
  bodegaIds?: number[];
  productoId?: number;
  tipo?: TipoMovimiento;
  desde?: Date;
  hasta?: Date;
  operacionId?: number;
}

export interface Diferencia {
  tipo: 'NIVEL' | 'OCUPACION';
  bodegaId: number;
  productoId: number;
  registrado: number;
  calculado: number;
}

export interface Verificacion {
  consistente: boolean;
  diferencias: Diferencia[];
  nivelesVerificados: number;
  bodegasVerificadas: number;
  /** The reservations' checks (reserva-verificacion.ts), when the verification ran them. */
  diferenciasReservas?: DiferenciaReserva[];
}

export interface ExistenciaStoreDeps {
  events: ExistenciaEvents;
  productos: ProductoCatalogo;
  onCommitted?: () => void;
  idempotencyTtlSeconds: number;
  /**
   * The pool opens every connection at REPEATABLE READ (createDb's transactionIsolation), so a stock
   * command starts with BEGIN alone; without it each sets its level first (one more round trip).
   */
  sesionRepeatableRead?: boolean;
  /**
   * The pool takes several statements in one query (createDb's multipleStatements): a write sends its
   * last statements in one round trip (issue 23). Without it, one by one.
   */
  sentenciasJuntas?: boolean;

  /** The holds every write respects (issue 24); absent: levels hold no reservations (tests of the ledger alone). */
  reservas?: RelojReservas;
}

/** A level's row as read from `existencias` (alertas-disponible.ts reads the same columns). */
export interface NivelRow {
  id: number;
  bodega_id: number;
  producto_id: number;
  cantidad: number;
  umbral_minimo: number | null;
  version: number;
  fecha_creacion: Date;
  fecha_actualizacion: Date;
  reservada?: number;
  /** Reads only: what unexpired holds keep (reservadaVigenteSql). */
  reservada_vigente?: number | string;
  /** Added (issue 24): absent before migration 0013 (tests of older schemas). */
  alerta_sobre?: AlertaSobre;
  bajo_disponible?: number;
}

/**
 * The warehouses (shared) and the levels (whole rows, FOR UPDATE) a reservation's consumption locked before its
 * exit, `reservada` as it is after the consumption lowered its holds.
 */
export interface BloqueadosPorReserva {
  bodegas: Map<number, BodegaBloqueada>;
  niveles: NivelRow[];
}
