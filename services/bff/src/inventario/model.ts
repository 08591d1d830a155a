import type {
  AsignacionInput,
  Bodega,
  BodegaDeleteResult,
  BodegaInput,
  BodegaPatch,
  CursorPage,
  Existencia,
  ExistenciaFilter,
  ExistenciasDeProducto,
  MovimientoFilter,
  MovimientoInput,
  PaginaConCursor,
  Principal,
  Producto,
  ProductoDeBodega,
  ProductoInput,
  ProductoPatch,
  TipoOperacion,
  TransferenciaInput,
  UmbralCambio,
  VerificacionExistencias,
} from '@inventario/contract';
import type { MovimientoData } from '@inventario/platform';

/**
 * The BFF's use cases, shared by REST and GraphQL, and what they take beside the records. The records' REST form
 * (docs/contract.md §2.3, §10) is @inventario/contract's, imported from there. Generated proto types never leave
 * src/downstream.
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

export interface ExistenciasDeBodega {
  bodega: Bodega;
  pages: AsyncIterable<Existencia[]>;
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
