import type { MotivoMovimiento, TipoMovimiento, TipoMovimientoRegistrable } from './existencias';

/**
 * The records as every surface answers them (docs/contract.md §2.3, §10), the inputs their commands
 * take, and the pages and reports of the stock reads: pure shapes, no rule. The BFF's REST and
 * GraphQL answer these; the services' own forms are their protos.
 */

/**
 * A product, its instants of type `Fecha`: producto-svc's domain holds `Date`s (UTC, whole seconds); every surface
 * answers `YYYY-MM-DDTHH:mm:ss`, UTC, no zone (docs/contract.md §2.1).
 */
export interface ProductoDe<Fecha> {
  id: number;
  nombre: string;
  descripcion: string | null;
  /** DECIMAL(10,2) as exact decimal text, e.g. "19.90"; never a binary float on the way to storage. */
  precio: string;
  cantidadEnStock: number;
  /** The warehouse holding the product (owned by bodega-svc); null when unassigned. */
  bodegaId: number | null;
  fechaCreacion: Fecha;
  /** Equals fechaCreacion on creation. */
  fechaActualizacion: Fecha;
  /** 1 at creation, +1 on each write: what a conditional write compares (the REST ETag is this number in quotes). */
  version: number;
}

export type Producto = ProductoDe<string>;

export interface Bodega {
  id: number;
  nombre: string;
  ubicacion: string | null;
  capacidad: number;
  /** Units held in all: the sum of its stock levels, never above capacidad (docs/contract.md §10). */
  ocupacion: number;
  fechaCreacion: string;
  fechaActualizacion: string;
  version: number;
}

/** The services validate the rules. */
export interface ProductoInput {
  nombre: string;
  descripcion?: string | null;
  precio: string;
  cantidadEnStock: number;
  bodegaId?: number | null;
}

/** Only present keys change; null clears a nullable field. */
export type ProductoPatch = Partial<ProductoInput>;

export interface BodegaInput {
  nombre: string;
  ubicacion?: string | null;
  capacidad: number;
}

export type BodegaPatch = Partial<BodegaInput>;

/** docs/contract.md §2.7, §10.2; `productos` are the first affected by id, at most PRODUCTO_SAMPLE_LIMITS. */
export type BodegaDeleteResult =
  | { kind: 'deleted' }
  | {
      kind: 'forced';
      bodegaId: number;
      productos: Producto[];
      total: number;
      existenciasRetiradas: number;
      unidadesRetiradas: number;
    };

/**
 * The stock of one product in one warehouse (a level), its instants of type `Fecha`: bodega-svc's domain holds
 * `Date`s; every surface answers strings as for products. Its version (that of its last line) is its ETag.
 */
export interface ExistenciaDe<Fecha> {
  bodegaId: number;
  productoId: number;
  cantidad: number;
  /** A level at or below it is low (StockBajo); null: no alert. */
  umbralMinimo: number | null;
  version: number;
  fechaCreacion: Fecha;
  fechaActualizacion: Fecha;
  /**
   * Units held by unexpired active reservations (added, docs/contract.md §13); disponible = cantidad - reservada.
   * Absent: none held.
   */
  reservada?: number;
  /** What umbralMinimo watches (added, docs/contract.md §13.9); absent: CANTIDAD. */
  alertaSobre?: AlertaSobre;
}

/** A level as every surface answers it: `disponible` beside `reservada` (docs/contract.md §13). */
export interface Existencia extends ExistenciaDe<string> {
  disponible?: number;
}

/**
 * What a level's low-stock threshold watches (docs/contract.md §13.9): its units (`CANTIDAD`, the default and the
 * behaviour before reservations) or the units no reservation holds (`DISPONIBLE` = cantidad - reservada).
 */
export const ALERTAS_SOBRE = ['CANTIDAD', 'DISPONIBLE'] as const;
export type AlertaSobre = (typeof ALERTAS_SOBRE)[number];

/** A threshold change: the threshold (null removes it) and, when given, what it watches from now on. */
export interface UmbralCambio {
  umbralMinimo: number | null;
  alertaSobre?: AlertaSobre;
}

/** `cantidad`: its units there when stocked, else its cantidadEnStock. */
export interface ProductoDeBodega {
  id: number;
  nombre: string;
  precio: string;
  cantidad: number;
}

export interface AsignacionInput {
  productoId: number;
  /** The units the warehouse holds afterwards. */
  cantidad: number;
  /** Null clears it; absent keeps it. */
  umbralMinimo?: number | null;
}

/** A movement on one level: ENTRADA / SALIDA move `cantidad` units, AJUSTE sets the counted quantity. */
export interface MovimientoInput {
  productoId: number;
  tipo: TipoMovimientoRegistrable;
  cantidad: number;
  /** One MOTIVOS_POR_TIPO allows for the tipo; absent: its default. */
  motivo?: MotivoMovimiento;
  comentario?: string | null;
}

export interface TransferenciaInput {
  productoId: number;
  origenId: number;
  destinoId: number;
  cantidad: number;
  comentario?: string | null;
}

/** Absent means "any". */
export interface MovimientoFilter {
  bodegaId?: number;
  productoId?: number;
  tipo?: TipoMovimiento;
  /** Lines at or after this instant. */
  desde?: Date;
  /** Lines before this instant. */
  hasta?: Date;
  operacionId?: number;
}

/** Absent or empty means "any". */
export interface ExistenciaFilter {
  bodegaIds?: readonly number[];
  productoIds?: readonly number[];
}

export interface CursorPage {
  /** 1..1000; default 100. */
  limit?: number;
  /** The `siguienteCursor` of the previous page, with the same filters. */
  cursor?: string;
}

export interface PaginaConCursor<T> {
  items: T[];
  siguienteCursor: string | null;
}

export interface ExistenciasDeProducto {
  productoId: number;
  /** Every unit of the product: its levels in `porBodega` plus `sinUbicar` (docs/contract.md §10.6). */
  total: number;
  porBodega: Existencia[];
  /** Units in no warehouse (the unlocated level); additive. */
  sinUbicar?: number;
}

/** A level, or a warehouse's occupancy, that differs from what its history says. */
export interface DiferenciaExistencia {
  tipo: 'NIVEL' | 'OCUPACION';
  bodegaId: number;
  /** null for OCUPACION. */
  productoId: number | null;
  /** What is stored. */
  registrado: number;
  /** What the ledger (or the levels) say. */
  calculado: number;
}

/** A reservations' check that failed: `tipo` names it (docs/contract.md §13). */
export interface DiferenciaReserva {
  tipo: string;
  reservaId: number | null;
  bodegaId: number | null;
  productoId: number | null;
  registrado: number;
  calculado: number;
}

/** The ledger's verification: never corrects anything. */
export interface VerificacionExistencias {
  consistente: boolean;
  /** At most 1000. */
  diferencias: DiferenciaExistencia[];
  nivelesVerificados: number;
  bodegasVerificadas: number;
  /** The reservations' checks that failed (docs/contract.md §13); absent from a bodega-svc without reservations. */
  diferenciasReservas?: DiferenciaReserva[];
  /**
   * When the verification began (`YYYY-MM-DDTHH:mm:ss`, UTC): it is run off the request path, this may be a while ago.
   */
  verificadoEn?: string;
}
