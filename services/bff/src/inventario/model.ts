import type {
  MotivoMovimiento,
  MovimientoData,
  TipoMovimiento,
  TipoMovimientoRegistrable,
  TipoOperacion,
} from '@inventario/platform';
import type { Principal } from '@inventario/contract';

/**
 * The BFF's own model: the REST form of docs/contract.md §2.3, shared by REST and GraphQL.
 * Generated proto types never leave src/downstream.
 */

/** The Basic-auth user, and the public request's W3C trace context. */
export interface Caller {
  usuario: string;
  traceparent?: string;
  tracestate?: string;
  /** Who is calling, as identidad-svc vouched for it (issue 26); authorization decides on its permisos. */
  principal?: Principal;
  /** Its signed form (compact JWS), sent downstream in `x-inventario-principal`. */
  principalFirmado?: string;
  /** Without a principal: the caller's own API token, sent as `authorization: Bearer` (the seed's SERVICE_TOKEN). */
  tokenDeServicio?: string;
  /**
   * Epoch ms by which a call made for this caller must answer, when it continues a command whose own deadline
   * already runs (a create's follow-up read of its ledger total): the command answers within one deadline.
   */
  deadline?: number;
}

export interface Producto {
  id: number;
  nombre: string;
  descripcion: string | null;
  /** DECIMAL(10,2) as exact decimal text, e.g. "19.90"; never a binary float on the way to storage. */
  precio: string;
  cantidadEnStock: number;
  bodegaId: number | null;
  /** `YYYY-MM-DDTHH:mm:ss`, UTC, no zone (docs/contract.md §2.1). */
  fechaCreacion: string;
  fechaActualizacion: string;
  /** 1 at creation, +1 on each write; the REST ETag is this number in quotes. */
  version: number;
}

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

/** Without any filter, the whole list. */
export interface ProductoFilter {
  limit?: number;
  /** Skip this many products, in id order. */
  offset?: number;
  bodegaIds?: number[];
  /** Name contains (case- and accent-insensitive). */
  q?: string;
  /** Only products with a greater id: a keyset cursor, the last id the client saw (GraphQL's `after`). */
  afterId?: number;
  /**
   * A read for GraphQL fields that do not include `descripcion`: it comes null. Never cached nor reused as a whole
   * product.
   */
  sinDescripcion?: boolean;
  /** Aborted: no further page is read (the reading rejects with its reason). */
  signal?: AbortSignal;
}

/** Products' REST JSON texts joined by commas, as producto-svc wrote them; the REST list passes them through. */
export interface ProductosJson {
  json: Uint8Array;
  count: number;
}

/** A page in id order (GraphQL's `first`/`after`); `afterId` is the last id the client saw. */
export interface ListPage {
  limit?: number;
  afterId?: number;
  /** As ProductoFilter.signal. */
  signal?: AbortSignal;
}

export interface ProductosDeBodegasPage {
  perBodega?: number;
  afterId?: number;
  /**
   * Stop reading once this many are held in all (the node cap), so a huge warehouse is not read
   * whole only to be refused: a caller that sets it must fail when it receives that many.
   */
  maxTotal?: number;
  /** As ProductoFilter's. */
  sinDescripcion?: boolean;
  signal?: AbortSignal;
}

/** docs/contract.md §9: If-Match / GraphQL `version`, and Idempotency-Key / `idempotencyKey`. */
export interface WriteOptions {
  /** `*`: only while the record exists. Absent: unconditional. */
  ifMatch?: number | '*';
  idempotencyKey?: string;
  /** Called when a service answered from the key's record instead of executing. */
  onReplay?: () => void;
}

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

// The ledger's closed lists are the contract's, defined once in platform for every service.
export {
  MOTIVOS_DE_CLIENTE,
  MOTIVOS_MOVIMIENTO,
  MOTIVOS_POR_TIPO,
  TIPOS_MOVIMIENTO,
  TIPOS_MOVIMIENTO_REGISTRABLES,
  TIPOS_OPERACION,
  type MotivoMovimiento,
  type TipoMovimiento,
  type TipoMovimientoRegistrable,
  type TipoOperacion,
} from '@inventario/platform';

/** The stock of one product in one warehouse (a level); its version is its ETag. */
export interface Existencia {
  bodegaId: number;
  productoId: number;
  cantidad: number;
  /** A level at or below it is low (StockBajo); null: no alert. */
  umbralMinimo: number | null;
  version: number;
  fechaCreacion: string;
  fechaActualizacion: string;
  /**
   * Units held by unexpired reservations (added, docs/contract.md §13); disponible = cantidad - reservada. Absent: none
   * held.
   */
  reservada?: number;
  disponible?: number;
  /** What umbralMinimo watches (added, docs/contract.md §13.9); absent: CANTIDAD. */
  alertaSobre?: AlertaSobre;
}

/** What a level's low-stock threshold watches (docs/contract.md §13.9). */
export const ALERTAS_SOBRE = ['CANTIDAD', 'DISPONIBLE'] as const;
export type AlertaSobre = (typeof ALERTAS_SOBRE)[number];

/** A threshold change: the threshold (null removes it) and, when given, what it watches from now on. */
export interface UmbralCambio {
  umbralMinimo: number | null;
  alertaSobre?: AlertaSobre;
}

/** Append-only, never changed. */
export type Movimiento = MovimientoData;

/** One command and the lines it wrote, committed together. */
export interface Operacion {
  id: number;
  tipo: TipoOperacion;
  usuario: string;
  comentario: string | null;
  fecha: string;
  /** For a reversal: the operation it reversed. */
  revierteA: number | null;
  /** For an operation that was reversed: the reversal. */
  revertidaPor: number | null;
  movimientos: Movimiento[];
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

export interface AsignacionResult {
  existencia: Existencia;
  operacion: Operacion;
}

export interface RetiroResult {
  bodegaId: number;
  productoId: number;
  cantidadRetirada: number;
  /** Whether the product's bodegaId named this warehouse and was cleared. */
  desasignado: boolean;
  /** Null when there was no level. */
  operacion: Operacion | null;
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

export interface ExistenciasDeBodega {
  bodega: Bodega;
  pages: AsyncIterable<Existencia[]>;
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

/** The use cases, shared by REST and GraphQL. Failures are the platform's DomainErrors and ./errors'. */
export interface InventarioApi extends ExistenciasApi, ExistenciasPorLoteApi {
  listProductos(caller: Caller, filter?: ProductoFilter): Promise<Producto[]>;
  /** One downstream page at a time; stopping the iteration stops the reading. */
  productoPages(caller: Caller, filter?: ProductoFilter): AsyncIterable<Producto[] | ProductosJson>;
  getProducto(caller: Caller, id: number): Promise<Producto>;
  /** One downstream call per page, for DataLoader batches. */
  productosDeBodegas(caller: Caller, bodegaIds: readonly number[], page?: ProductosDeBodegasPage): Promise<Producto[]>;
  /** bodegaId, when given, must name an existing warehouse (producto-svc's InvalidArgumentError naming `bodegaId`). */
  createProducto(caller: Caller, input: ProductoInput, write?: WriteOptions): Promise<Producto>;
  /** InvalidArgumentError when the patch has no updatable field. */
  updateProducto(caller: Caller, id: number, patch: ProductoPatch, write?: WriteOptions): Promise<Producto>;
  deleteProducto(caller: Caller, id: number, write?: WriteOptions): Promise<void>;

  listBodegas(caller: Caller, page?: ListPage): Promise<Bodega[]>;
  bodegaPages(caller: Caller): AsyncIterable<Bodega[]>;
  getBodega(caller: Caller, id: number): Promise<Bodega>;
  /** Missing ids are simply absent. */
  bodegasPorIds(caller: Caller, ids: readonly number[]): Promise<Bodega[]>;
  createBodega(caller: Caller, input: BodegaInput, write?: WriteOptions): Promise<Bodega>;
  updateBodega(caller: Caller, id: number, patch: BodegaPatch, write?: WriteOptions): Promise<Bodega>;
  /** Safe delete: without force, BodegaConProductosError when it holds products. */
  deleteBodega(
    caller: Caller,
    id: number,
    options: { force: boolean },
    write?: WriteOptions,
  ): Promise<BodegaDeleteResult>;
}

/**
 * The stock use cases (docs/contract.md §10). A missing record is a NoExisteError naming the
 * request's field; bodega-svc's rules are FailedPreconditionErrors with its reason and figures.
 */
export interface ExistenciasApi {
  /** Assigned or stocked there; NotFoundError, before the first page, when the warehouse does not exist. */
  productoPagesOfBodega(caller: Caller, bodegaId: number): AsyncIterable<ProductoDeBodega[]>;
  /** An AJUSTE line, reason ASIGNACION. */
  asignarExistencia(
    caller: Caller,
    bodegaId: number,
    input: AsignacionInput,
    write?: WriteOptions,
  ): Promise<AsignacionResult>;
  /**
   * Sets (a number) or removes (null) the low-stock threshold of an existing level: no line, the level's version + 1.
   */
  cambiarUmbralMinimo(
    caller: Caller,
    bodegaId: number,
    productoId: number,
    umbral: UmbralCambio,
    write?: WriteOptions,
  ): Promise<Existencia>;
  /** RETIRO of its units and its level, and its bodegaId cleared if it named the warehouse. */
  retirarProducto(caller: Caller, bodegaId: number, productoId: number, write?: WriteOptions): Promise<RetiroResult>;
  /** ENTRADA, SALIDA or AJUSTE on one level; an AJUSTE requires `write.ifMatch` (PreconditionRequiredError). */
  registrarMovimiento(
    caller: Caller,
    bodegaId: number,
    input: MovimientoInput,
    write?: WriteOptions,
  ): Promise<Operacion>;
  transferir(caller: Caller, input: TransferenciaInput, write?: WriteOptions): Promise<Operacion>;
  /** Reverses an operation with compensating lines, once. */
  revertirOperacion(
    caller: Caller,
    operacionId: number,
    input?: { comentario?: string | null },
    write?: WriteOptions,
  ): Promise<Operacion>;
  getOperacion(caller: Caller, id: number): Promise<Operacion>;
  /** One level; NoExisteError when the warehouse (id) or its level of the product (productoId) does not exist. */
  getExistencia(caller: Caller, bodegaId: number, productoId: number): Promise<Existencia>;
  existenciasDeBodega(caller: Caller, bodegaId: number): Promise<ExistenciasDeBodega>;
  /** A product's levels in every warehouse and their sum; NoExisteError (id) when the product does not exist. */
  existenciasDeProducto(caller: Caller, productoId: number): Promise<ExistenciasDeProducto>;
  listExistencias(caller: Caller, filter: ExistenciaFilter, page?: CursorPage): Promise<PaginaConCursor<Existencia>>;
  /** A page of the ledger, newest first; a malformed cursor is an InvalidArgumentError naming `cursor`. */
  listMovimientos(caller: Caller, filter: MovimientoFilter, page?: CursorPage): Promise<PaginaConCursor<Movimiento>>;
  verificarExistencias(caller: Caller): Promise<VerificacionExistencias>;
}

/** A page of the levels of each parent of a batch (GraphQL's `Bodega.existencias`, `Producto.existencias`). */
export interface ExistenciasPorLotePage {
  perParent?: number;
  /** Only levels whose other id (a warehouse's: the product; a product's: the warehouse) is greater. */
  afterId?: number;
  /** As ProductosDeBodegasPage.maxTotal. */
  maxTotal?: number;
  /** As ProductoFilter.signal. */
  signal?: AbortSignal;
}

/** GraphQL's DataLoaders: one downstream call per page for a whole batch of parents, however many. */
export interface ExistenciasPorLoteApi {
  existenciasDeBodegas(
    caller: Caller,
    bodegaIds: readonly number[],
    page?: ExistenciasPorLotePage,
  ): Promise<Existencia[]>;
  existenciasDeProductos(
    caller: Caller,
    productoIds: readonly number[],
    page?: ExistenciasPorLotePage,
  ): Promise<Existencia[]>;
  /** Missing ids are simply absent. */
  productosPorIds(caller: Caller, ids: readonly number[]): Promise<Producto[]>;
}
