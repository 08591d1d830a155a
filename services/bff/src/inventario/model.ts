import type { MotivoMovimiento, MovimientoData, TipoMovimiento, TipoMovimientoRegistrable, TipoOperacion } from '@inventario/platform';

/**
 * The BFF's own model of the inventory: the REST form of docs/contract.md §2.3,
 * shared by the REST routes and the GraphQL resolvers. Generated proto types
 * never leave src/downstream; everything above it speaks these types.
 */

/** Who makes a call: the Basic-auth user, passed to the services as gRPC metadata. */
export interface Caller {
  usuario: string;
  /** W3C traceparent of the public request, when there is one. */
  traceparent?: string;
  /** Its W3C tracestate, when it came with a valid traceparent. */
  tracestate?: string;
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

/** What a product create carries (already shaped; the services validate the rules). */
export interface ProductoInput {
  nombre: string;
  descripcion?: string | null;
  precio: string;
  cantidadEnStock: number;
  bodegaId?: number | null;
}

/** A partial product update: only present keys change; null clears a nullable field. */
export type ProductoPatch = Partial<ProductoInput>;

export interface BodegaInput {
  nombre: string;
  ubicacion?: string | null;
  capacidad: number;
}

export type BodegaPatch = Partial<BodegaInput>;

/** Optional filters of a product list; without any, the whole list. */
export interface ProductoFilter {
  limit?: number;
  /** Skip this many products, in id order. */
  offset?: number;
  bodegaIds?: number[];
  /** Name contains (case- and accent-insensitive). */
  q?: string;
  /** Only products with a greater id: a keyset cursor, the last id the client saw (GraphQL's `after`). */
  afterId?: number;
}

/**
 * A page of products in their REST JSON form as producto-svc wrote it
 * (ListProductos' rest_json): the products' JSON texts joined by commas,
 * UTF-8, and how many there are. The REST list passes it through as is.
 */
export interface ProductosJson {
  json: Uint8Array;
  count: number;
}

/** One page of a list in id order (GraphQL's `first`/`after`); without either, the whole list. */
export interface ListPage {
  limit?: number;
  /** Only items with a greater id (the last id the client saw). */
  afterId?: number;
}

/** A page of each warehouse's products, for a batch of warehouses (GraphQL's `Bodega.productos(first, after)`). */
export interface ProductosDeBodegasPage {
  perBodega?: number;
  afterId?: number;
  /**
   * Stop reading once this many products are held in all: the caller can use
   * no more (GraphQL's result node cap), so a huge warehouse is not read whole
   * only to be refused. Lists may then be cut short: a caller that sets it
   * must fail when it receives that many.
   */
  maxTotal?: number;
}

/**
 * What makes a write safe (docs/contract.md §9): a condition on the version
 * the client last read, and an idempotency key for safe retries.
 */
export interface WriteOptions {
  /**
   * If-Match / GraphQL `version`: the write applies only while the record
   * has this version (VersionMismatchError otherwise); `*`, only while it
   * exists. Absent: unconditional.
   */
  ifMatch?: number | '*';
  /** Idempotency-Key / GraphQL `idempotencyKey`: a repeat replays the first result. */
  idempotencyKey?: string;
  /** Called when a service answered from the key's record instead of executing. */
  onReplay?: () => void;
}

/** The outcome of a warehouse delete (docs/contract.md §2.7, §10.2). */
export type BodegaDeleteResult =
  /** It was empty and is gone (REST 204). */
  | { kind: 'deleted' }
  /**
   * `force=true`: gone; `total` products lost their assignment or their stock
   * there (REST 200 report); `productos` are the first of them by id, as they
   * are afterwards, at most PRODUCTO_SAMPLE_LIMITS. `existenciasRetiradas`
   * levels holding `unidadesRetiradas` units were written out (BODEGA_ELIMINADA).
   */
  | { kind: 'forced'; bodegaId: number; productos: Producto[]; total: number; existenciasRetiradas: number; unidadesRetiradas: number };

// The ledger's closed lists (line types, reasons, operation types) and which reasons a client
// may give are the contract's, defined once in platform (events.ts) for every service.
export {
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
  /** Units held, >= 0. */
  cantidad: number;
  /** A level at or below it is low (StockBajo); null: no alert. */
  umbralMinimo: number | null;
  version: number;
  fechaCreacion: string;
  fechaActualizacion: string;
}

/** One line of the ledger: append-only, never changed (the form events and REST share). */
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

/** A product as GET /bodegas/{id}/productos lists it: `cantidad` is its units there when stocked, else its cantidadEnStock. */
export interface ProductoDeBodega {
  id: number;
  nombre: string;
  precio: string;
  cantidad: number;
}

/** POST /bodegas/{id}/productos: set the units of a product in a warehouse. */
export interface AsignacionInput {
  productoId: number;
  /** The units the warehouse holds afterwards. */
  cantidad: number;
  /** The new low-stock threshold; null clears it; absent keeps it. */
  umbralMinimo?: number | null;
}

/** What an assignment left: the level and the operation that wrote it. */
export interface AsignacionResult {
  existencia: Existencia;
  operacion: Operacion;
}

/** What removing a product from a warehouse did. */
export interface RetiroResult {
  bodegaId: number;
  productoId: number;
  /** Units written out (0 when there was no level, or an empty one). */
  cantidadRetirada: number;
  /** Whether the product's bodegaId named this warehouse and was cleared. */
  desasignado: boolean;
  /** The RETIRO operation; null when there was no level. */
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

/** Units moved from one warehouse to another, in one operation. */
export interface TransferenciaInput {
  productoId: number;
  origenId: number;
  destinoId: number;
  cantidad: number;
  comentario?: string | null;
}

/** Filters of the ledger; absent means "any". */
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

/** Filters of the stock levels; absent or empty means "any". */
export interface ExistenciaFilter {
  bodegaIds?: readonly number[];
  productoIds?: readonly number[];
}

/** A page of a keyset-paginated list: at most `limit` items after the opaque `cursor`. */
export interface CursorPage {
  /** 1..1000; default 100. */
  limit?: number;
  /** The `siguienteCursor` of the previous page, with the same filters. */
  cursor?: string;
}

/** One page and the cursor of the next (null on the last page). */
export interface PaginaConCursor<T> {
  items: T[];
  siguienteCursor: string | null;
}

/** A warehouse with its levels, read a page at a time (GET /bodegas/{id}/existencias). */
export interface ExistenciasDeBodega {
  bodega: Bodega;
  /** Its levels in product id order. */
  pages: AsyncIterable<Existencia[]>;
}

/** A product's stock in every warehouse. */
export interface ExistenciasDeProducto {
  productoId: number;
  total: number;
  /** Its levels, in warehouse id order. */
  porBodega: Existencia[];
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

/** The ledger's verification: never corrects anything. */
export interface VerificacionExistencias {
  consistente: boolean;
  /** At most 1000. */
  diferencias: DiferenciaExistencia[];
  nivelesVerificados: number;
  bodegasVerificadas: number;
}

/**
 * The use cases of the BFF, shared by REST and GraphQL. Failures are the
 * platform's DomainErrors (InvalidArgumentError naming fields, NotFoundError,
 * AlreadyExistsError, FailedPreconditionError, UnavailableError) plus the
 * BFF's own in ./errors (BodegaConProductosError for a safe delete refused,
 * DeadlineExceededError, and an UnavailableError subclass with Retry-After
 * when a breaker is open).
 */
export interface InventarioApi extends ExistenciasApi, ExistenciasPorLoteApi {
  listProductos(caller: Caller, filter?: ProductoFilter): Promise<Producto[]>;
  /**
   * The same list one downstream page at a time, for a consumer that sends
   * each page on before asking for the next (the REST full lists, streamed).
   * Stopping the iteration stops the reading. Each page comes in the REST
   * JSON form producto-svc wrote (ProductosJson), or as products from a
   * producto-svc that does not write it.
   */
  productoPages(caller: Caller, filter?: ProductoFilter): AsyncIterable<Producto[] | ProductosJson>;
  getProducto(caller: Caller, id: number): Promise<Producto>;
  /** Products held by any of these warehouses, in id order, in one downstream call per page (DataLoader batches). */
  productosDeBodegas(caller: Caller, bodegaIds: readonly number[], page?: ProductosDeBodegasPage): Promise<Producto[]>;
  /** bodegaId, when given, must name an existing warehouse (InvalidArgumentError naming `bodegaId`). */
  createProducto(caller: Caller, input: ProductoInput, write?: WriteOptions): Promise<Producto>;
  /** InvalidArgumentError when the patch has no updatable field. */
  updateProducto(caller: Caller, id: number, patch: ProductoPatch, write?: WriteOptions): Promise<Producto>;
  deleteProducto(caller: Caller, id: number, write?: WriteOptions): Promise<void>;

  listBodegas(caller: Caller, page?: ListPage): Promise<Bodega[]>;
  /** Every warehouse, a page at a time (see productoPages). */
  bodegaPages(caller: Caller): AsyncIterable<Bodega[]>;
  getBodega(caller: Caller, id: number): Promise<Bodega>;
  /** Warehouses by id, in one downstream call; missing ids are simply absent. */
  bodegasPorIds(caller: Caller, ids: readonly number[]): Promise<Bodega[]>;
  createBodega(caller: Caller, input: BodegaInput, write?: WriteOptions): Promise<Bodega>;
  updateBodega(caller: Caller, id: number, patch: BodegaPatch, write?: WriteOptions): Promise<Bodega>;
  /** Safe delete: without force, BodegaConProductosError when it holds products. */
  deleteBodega(caller: Caller, id: number, options: { force: boolean }, write?: WriteOptions): Promise<BodegaDeleteResult>;
}

/**
 * The stock use cases (docs/contract.md §10), part of InventarioApi.
 * Besides the errors above: NoExisteError (a NotFoundError naming in
 * `detalles` the warehouse, product or operation missing, as the request
 * named it: `id`, `productoId`, `origenId`, `destinoId`);
 * FailedPreconditionError with bodega-svc's reason (STOCK_INSUFICIENTE,
 * CAPACIDAD_EXCEDIDA, PRODUCTO_ELIMINADO, ...) and figures in `datos`;
 * VersionMismatchError; PreconditionRequiredError for an AJUSTE without a
 * version. Writes of one level take `write.ifMatch`, the level's version
 * (`*`: the level must exist).
 */
export interface ExistenciasApi {
  /**
   * Products of one warehouse, a page at a time: those assigned to it and
   * those stocked there, in id order; NotFoundError, before the first page,
   * when the warehouse does not exist.
   */
  productoPagesOfBodega(caller: Caller, bodegaId: number): AsyncIterable<ProductoDeBodega[]>;
  /** Sets the units of an existing product in a warehouse (an AJUSTE line, reason ASIGNACION). */
  asignarExistencia(caller: Caller, bodegaId: number, input: AsignacionInput, write?: WriteOptions): Promise<AsignacionResult>;
  /**
   * Writes out the product's units in the warehouse (RETIRO) and removes
   * its level, and clears its bodegaId if it named the warehouse;
   * NoExisteError (productoId) when it was neither stocked nor assigned there.
   */
  retirarProducto(caller: Caller, bodegaId: number, productoId: number, write?: WriteOptions): Promise<RetiroResult>;
  /** ENTRADA, SALIDA or AJUSTE on one level; an AJUSTE requires `write.ifMatch` (PreconditionRequiredError). */
  registrarMovimiento(caller: Caller, bodegaId: number, input: MovimientoInput, write?: WriteOptions): Promise<Operacion>;
  /** Moves units between two warehouses in one operation; InvalidArgumentError (destinoId) when they are the same. */
  transferir(caller: Caller, input: TransferenciaInput, write?: WriteOptions): Promise<Operacion>;
  /** Reverses an operation with compensating lines, once. */
  revertirOperacion(caller: Caller, operacionId: number, input?: { comentario?: string | null }, write?: WriteOptions): Promise<Operacion>;
  getOperacion(caller: Caller, id: number): Promise<Operacion>;
  /** One level; NoExisteError when the warehouse (id) or its level of the product (productoId) does not exist. */
  getExistencia(caller: Caller, bodegaId: number, productoId: number): Promise<Existencia>;
  /** The warehouse (NotFoundError first) and its levels a page at a time. */
  existenciasDeBodega(caller: Caller, bodegaId: number): Promise<ExistenciasDeBodega>;
  /** A product's levels in every warehouse and their sum; NoExisteError (id) when the product does not exist. */
  existenciasDeProducto(caller: Caller, productoId: number): Promise<ExistenciasDeProducto>;
  /** A page of levels, by warehouse then product. */
  listExistencias(caller: Caller, filter: ExistenciaFilter, page?: CursorPage): Promise<PaginaConCursor<Existencia>>;
  /** A page of the ledger, newest first; a malformed cursor is an InvalidArgumentError naming `cursor`. */
  listMovimientos(caller: Caller, filter: MovimientoFilter, page?: CursorPage): Promise<PaginaConCursor<Movimiento>>;
  /** Recomputes every level and occupancy from the ledger; never corrects. */
  verificarExistencias(caller: Caller): Promise<VerificacionExistencias>;
}

/**
 * A page of the levels of each parent of a batch: each warehouse's levels
 * in product id order (GraphQL's `Bodega.existencias(first, after)`), or
 * each product's in warehouse id order (`Producto.existencias`).
 */
export interface ExistenciasPorLotePage {
  perParent?: number;
  /** Only levels whose other id (a warehouse's: the product; a product's: the warehouse) is greater. */
  afterId?: number;
  /** Stop reading once this many levels are held in all (see ProductosDeBodegasPage.maxTotal). */
  maxTotal?: number;
}

/**
 * Batched reads for GraphQL's relation fields (its DataLoaders): one
 * downstream call per page for a whole batch of parents, however many.
 */
export interface ExistenciasPorLoteApi {
  /** Levels of these warehouses, by warehouse then product, at most `perParent` of each. */
  existenciasDeBodegas(caller: Caller, bodegaIds: readonly number[], page?: ExistenciasPorLotePage): Promise<Existencia[]>;
  /** Levels of these products, by warehouse then product, at most `perParent` of each product. */
  existenciasDeProductos(caller: Caller, productoIds: readonly number[], page?: ExistenciasPorLotePage): Promise<Existencia[]>;
  /** Products by id, in id order; missing ids are simply absent. */
  productosPorIds(caller: Caller, ids: readonly number[]): Promise<Producto[]>;
}
