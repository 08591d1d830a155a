import {
  CreateProductoRequest,
  DeleteProductoRequest,
  ListProductosRequest,
  UnassignBodegaRequest,
  UpdateProductoRequest,
  type ProductoServiceClient,
  type ListProductosResponse,
  type GetProductoResponse,
  type CreateProductoResponse,
  type UpdateProductoResponse,
  type DeleteProductoResponse,
  type UnassignBodegaResponse,
} from '@inventario/proto';
import type { Producto, ProductoInput, ProductoPatch } from '@inventario/contract';
import type { Caller, ProductosJson, WriteOptions } from '../inventario/model';
import { productoFromProto, required, safeWriteFields } from './mapping';
import type { UnaryCall } from './unary-call';

/** One page of a product list. */
export interface ProductoPage {
  /** Empty when the page came as `json`. */
  productos: Producto[];
  /** The page in the REST JSON form, when the request asked for it and the service wrote it. */
  json?: ProductosJson;
  /** '' on the last page. */
  nextPageToken: string;
  /** Every matching product, all pages together; only when the request asked (includeTotalSize). */
  totalSize?: number;
}

/** What one UnassignBodega call reports (docs/contract.md §7.7). */
export interface UnassignResult {
  /** The first unassigned products by id, at most PRODUCTO_SAMPLE_LIMITS. */
  productos: Producto[];
  /** How many were unassigned: under the key, the whole operation's; without one, this call's. */
  total: number;
  /** No product points at the warehouse any more; false when maxChunks ended the call first. */
  complete: boolean;
}

/** A ListProductos request in model terms; absent means "not set". */
export interface ProductoPageRequest {
  pageSize: number;
  pageToken?: string;
  skip?: number;
  bodegaIds?: readonly number[];
  /** Only these products (unknown ids are simply absent). */
  ids?: readonly number[];
  nombreContains?: string;
  /** Ask for totalSize (one more query in producto-svc). */
  includeTotalSize?: boolean;
  /** Ask for the page in the REST JSON form (ListProductos' rest_json), to pass through. */
  restJson?: boolean;
  /** Leave `descripcion` out (read_mask without it): it comes null. */
  sinDescripcion?: boolean;
  /**
   * At most this many products of each warehouse of bodegaIds, those after perBodegaAfterId (ListProductos'
   * per_bodega).
   */
  perBodega?: number;
  perBodegaAfterId?: number;
}

/** producto-svc as the BFF uses it, in model types. */
export interface ProductoClient {
  list(caller: Caller, request: ProductoPageRequest): Promise<ProductoPage>;
  get(caller: Caller, id: number): Promise<Producto>;
  /** Writes take the request's WriteOptions: its idempotency key, the version it expects. */
  create(caller: Caller, input: ProductoInput, write?: WriteOptions): Promise<Producto>;
  update(caller: Caller, id: number, patch: ProductoPatch, write?: WriteOptions): Promise<Producto>;
  delete(caller: Caller, id: number, write?: WriteOptions): Promise<void>;
  /**
   * Clears the warehouse of the products that point at it, at most
   * `maxChunks` chunks of them (0: all), and reports them. With a key the
   * report is the whole operation's: a repeat resumes it, or replays it once complete.
   */
  unassignBodega(caller: Caller, bodegaId: number, write?: WriteOptions, maxChunks?: number): Promise<UnassignResult>;
}

/** ProductoPatch keys and the update_mask path each names. */
const MASK_PATHS: Record<keyof ProductoPatch, string> = {
  nombre: 'nombre',
  descripcion: 'descripcion',
  precio: 'precio',
  cantidadEnStock: 'cantidad_en_stock',
  bodegaId: 'bodega_id',
};

/** ListProductos' read_mask for every field but `descripcion`. */
/**
 * Created products whose cantidadEnStock is already their ledger total (issue 23): producto-svc's
 * create answered it (CreateProductoResponse.cantidad_del_libro) from a call that was not a replay,
 * so the gateway need not ask bodega-svc for it again (inventario/totales-del-libro.ts).
 */
const conTotalDelLibro = new WeakSet<Producto>();

/** Whether `producto` came from a create whose answer carried its ledger total. */
export const traeTotalDelLibro = (producto: Producto): boolean => conTotalDelLibro.has(producto);
/**
 * A create answered without its ledger total: when the deadline its call started ends. The follow-up read of
 * the total shares it, so a create answers within GRPC_DEADLINE_MS even when bodega-svc hangs after
 * producto-svc answered (docs/contract.md: a write answers within the deadline).
 */
const plazosDeAlta = new WeakMap<Producto, number>();
export const plazoDeAlta = (producto: Producto): number | undefined => plazosDeAlta.get(producto);

const SIN_DESCRIPCION = [
  'id',
  'nombre',
  'precio',
  'cantidad_en_stock',
  'bodega_id',
  'fecha_creacion',
  'fecha_actualizacion',
  'version',
];

// One method per RPC of producto-svc, each mapping its request to proto and the answer back: the
// length is the service's list of calls, the one place all of the BFF's calls to producto-svc start.
export function createProductoClient(
  client: ProductoServiceClient,
  call: UnaryCall,
  deadlineMs: number,
): ProductoClient {
  return {
    async list(caller, request) {
      const message = ListProductosRequest.fromPartial({
        pageSize: request.pageSize,
        pageToken: request.pageToken ?? '',
        skip: request.skip ?? 0,
        bodegaIds: [...(request.bodegaIds ?? [])],
        ids: [...(request.ids ?? [])],
        nombreContains: request.nombreContains ?? '',
        includeTotalSize: request.includeTotalSize ?? false,
        restJson: request.restJson ?? false,
        readMask: request.sinDescripcion ? SIN_DESCRIPCION : undefined,
        perBodega: request.perBodega ?? 0,
        perBodegaAfterId: request.perBodegaAfterId,
      });
      const res = await call<ListProductosResponse>(caller, (md, o, cb) => client.listProductos(message, md, o, cb));
      const page: ProductoPage = { productos: res.productos.map(productoFromProto), nextPageToken: res.nextPageToken };
      // A service that does not know rest_json answers products (or nothing, which either form says alike).
      if (request.restJson && res.productos.length === 0) page.json = { json: res.restJson, count: res.restJsonCount };
      if (res.totalSize !== undefined) page.totalSize = res.totalSize;
      return page;
    },
    async get(caller, id) {
      const res = await call<GetProductoResponse>(caller, (md, o, cb) => client.getProducto({ id }, md, o, cb));
      return productoFromProto(required(res.producto, 'producto'));
    },
    async create(caller, input, write = {}) {
      const message = CreateProductoRequest.fromPartial({
        nombre: input.nombre,
        descripcion: input.descripcion ?? undefined,
        precio: input.precio,
        cantidadEnStock: input.cantidadEnStock,
        bodegaId: input.bodegaId ?? undefined,
        requestId: safeWriteFields(write).requestId,
      });
      let replayed = false;
      const plazo = Date.now() + deadlineMs;
      const res = await call<CreateProductoResponse>(
        caller,
        (md, o, cb) => client.createProducto(message, md, o, cb),
        () => {
          replayed = true;
          write.onReplay?.();
        },
      );
      const producto = productoFromProto(required(res.producto, 'producto'));
      // A replay's figure is the first call's; an older service sends none: either way bodega-svc is asked.
      if (replayed || res.cantidadDelLibro === undefined) {
        plazosDeAlta.set(producto, plazo);
        return producto;
      }
      const conTotal = { ...producto, cantidadEnStock: Number(res.cantidadDelLibro) };
      conTotalDelLibro.add(conTotal);
      return conTotal;
    },
    async update(caller, id, patch, write = {}) {
      const keys = (Object.keys(MASK_PATHS) as (keyof ProductoPatch)[]).filter((key) => patch[key] !== undefined);
      // A field named in the mask but absent from the message is cleared (null).
      const message = UpdateProductoRequest.fromPartial({
        producto: {
          id,
          nombre: patch.nombre,
          descripcion: patch.descripcion ?? undefined,
          precio: patch.precio,
          cantidadEnStock: patch.cantidadEnStock,
          bodegaId: patch.bodegaId ?? undefined,
        },
        updateMask: keys.map((key) => MASK_PATHS[key]),
        ...safeWriteFields(write),
      });
      const res = await call<UpdateProductoResponse>(
        caller,
        (md, o, cb) => client.updateProducto(message, md, o, cb),
        write.onReplay,
      );
      return productoFromProto(required(res.producto, 'producto'));
    },
    async delete(caller, id, write = {}) {
      const message = DeleteProductoRequest.fromPartial({ id, ...safeWriteFields(write) });
      await call<DeleteProductoResponse>(
        caller,
        (md, o, cb) => client.deleteProducto(message, md, o, cb),
        write.onReplay,
      );
    },
    async unassignBodega(caller, bodegaId, write = {}, maxChunks = 0) {
      const message = UnassignBodegaRequest.fromPartial({
        bodegaId,
        requestId: safeWriteFields(write).requestId,
        maxChunks,
      });
      const res = await call<UnassignBodegaResponse>(
        caller,
        (md, o, cb) => client.unassignBodega(message, md, o, cb),
        write.onReplay,
      );
      return { productos: res.productos.map(productoFromProto), total: res.totalUnassigned, complete: res.complete };
    },
  };
}
