/**
 * The BFF's own model of the inventory: the REST form of ARCHITECTURE §2,
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

/** A product in REST form. */
export interface Producto {
  id: number;
  nombre: string;
  descripcion: string | null;
  /** DECIMAL(10,2) as exact decimal text, e.g. "19.90"; never a binary float on the way to storage. */
  precio: string;
  cantidadEnStock: number;
  /** The warehouse holding it, or null. */
  bodegaId: number | null;
  /** `YYYY-MM-DDTHH:mm:ss`, UTC, no zone (ARCHITECTURE §2). */
  fechaCreacion: string;
  fechaActualizacion: string;
  /** 1 at creation, +1 on each write; the REST ETag is this number in quotes. */
  version: number;
}

/** A warehouse in REST form. */
export interface Bodega {
  id: number;
  nombre: string;
  ubicacion: string | null;
  capacidad: number;
  fechaCreacion: string;
  fechaActualizacion: string;
  /** 1 at creation, +1 on each update. */
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
  /** At most this many products (after `offset`). */
  limit?: number;
  /** Skip this many products, in id order. */
  offset?: number;
  /** Only products held by one of these warehouses. */
  bodegaIds?: number[];
  /** Name contains (case- and accent-insensitive). */
  q?: string;
  /** Only products with a greater id: a keyset cursor, the last id the client saw (GraphQL's `after`). */
  afterId?: number;
}

/** One page of a list in id order (GraphQL's `first`/`after`); without either, the whole list. */
export interface ListPage {
  /** At most this many items. */
  limit?: number;
  /** Only items with a greater id (the last id the client saw). */
  afterId?: number;
}

/** A page of each warehouse's products, for a batch of warehouses (GraphQL's `Bodega.productos(first, after)`). */
export interface ProductosDeBodegasPage {
  /** At most this many products of each warehouse. */
  perBodega?: number;
  /** Only products with a greater id. */
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

/** The outcome of a warehouse delete (ARCHITECTURE §6). */
export type BodegaDeleteResult =
  /** It was empty and is gone (REST 204). */
  | { kind: 'deleted' }
  /**
   * `force=true`: gone, and `total` products lost their assignment (REST 200
   * report); `productos` are the first of them by id, at most PRODUCTO_SAMPLE_LIMITS.
   */
  | { kind: 'forced'; bodegaId: number; productos: Producto[]; total: number };

/**
 * The use cases of the BFF, shared by REST and GraphQL. Failures are the
 * platform's DomainErrors (InvalidArgumentError naming fields, NotFoundError,
 * AlreadyExistsError, FailedPreconditionError, UnavailableError) plus the
 * BFF's own in ./errors (BodegaConProductosError for a safe delete refused,
 * DeadlineExceededError, and an UnavailableError subclass with Retry-After
 * when a breaker is open).
 */
export interface InventarioApi {
  listProductos(caller: Caller, filter?: ProductoFilter): Promise<Producto[]>;
  /**
   * The same list one downstream page at a time, for a consumer that sends
   * each page on before asking for the next (the REST full lists, streamed).
   * Stopping the iteration stops the reading.
   */
  productoPages(caller: Caller, filter?: ProductoFilter): AsyncIterable<Producto[]>;
  getProducto(caller: Caller, id: number): Promise<Producto>;
  /** Products held by any of these warehouses, in id order, in one downstream call per page (DataLoader batches). */
  productosDeBodegas(caller: Caller, bodegaIds: readonly number[], page?: ProductosDeBodegasPage): Promise<Producto[]>;
  /** Products of one warehouse, a page at a time; NotFoundError, before the first page, when the warehouse does not exist. */
  productoPagesOfBodega(caller: Caller, bodegaId: number): AsyncIterable<Producto[]>;
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
