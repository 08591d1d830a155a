import {
  CreateProductoRequest,
  ListProductosRequest,
  UpdateProductoRequest,
  type ProductoServiceClient,
  type ListProductosResponse,
  type GetProductoResponse,
  type CreateProductoResponse,
  type UpdateProductoResponse,
  type DeleteProductoResponse,
  type UnassignBodegaResponse,
} from '@inventario/proto';
import type { Caller, Producto, ProductoInput, ProductoPatch } from '../inventario/model';
import { productoFromProto, required } from './mapping';
import type { UnaryCall } from './unary-call';

/** One page of a product list. */
export interface ProductoPage {
  productos: Producto[];
  /** '' on the last page. */
  nextPageToken: string;
}

/** A ListProductos request in model terms; absent means "not set". */
export interface ProductoPageRequest {
  pageSize: number;
  pageToken?: string;
  skip?: number;
  bodegaIds?: readonly number[];
  nombreContains?: string;
}

/** producto-svc as the BFF uses it, in model types. */
export interface ProductoClient {
  list(caller: Caller, request: ProductoPageRequest): Promise<ProductoPage>;
  get(caller: Caller, id: number): Promise<Producto>;
  create(caller: Caller, input: ProductoInput): Promise<Producto>;
  update(caller: Caller, id: number, patch: ProductoPatch): Promise<Producto>;
  delete(caller: Caller, id: number): Promise<void>;
  /** Clears the warehouse of every product that points at it; returns those products, now unassigned. */
  unassignBodega(caller: Caller, bodegaId: number): Promise<Producto[]>;
}

/** ProductoPatch keys and the update_mask path each names. */
const MASK_PATHS: Record<keyof ProductoPatch, string> = {
  nombre: 'nombre',
  descripcion: 'descripcion',
  precio: 'precio',
  cantidadEnStock: 'cantidad_en_stock',
  bodegaId: 'bodega_id',
};

export function createProductoClient(client: ProductoServiceClient, call: UnaryCall): ProductoClient {
  return {
    async list(caller, request) {
      const message = ListProductosRequest.fromPartial({
        pageSize: request.pageSize,
        pageToken: request.pageToken ?? '',
        skip: request.skip ?? 0,
        bodegaIds: [...(request.bodegaIds ?? [])],
        nombreContains: request.nombreContains ?? '',
      });
      const res = await call<ListProductosResponse>(caller, (md, o, cb) => client.listProductos(message, md, o, cb));
      return { productos: res.productos.map(productoFromProto), nextPageToken: res.nextPageToken };
    },
    async get(caller, id) {
      const res = await call<GetProductoResponse>(caller, (md, o, cb) => client.getProducto({ id }, md, o, cb));
      return productoFromProto(required(res.producto, 'producto'));
    },
    async create(caller, input) {
      const message = CreateProductoRequest.fromPartial({
        nombre: input.nombre,
        descripcion: input.descripcion ?? undefined,
        precio: input.precio,
        cantidadEnStock: input.cantidadEnStock,
        bodegaId: input.bodegaId ?? undefined,
      });
      const res = await call<CreateProductoResponse>(caller, (md, o, cb) => client.createProducto(message, md, o, cb));
      return productoFromProto(required(res.producto, 'producto'));
    },
    async update(caller, id, patch) {
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
      });
      const res = await call<UpdateProductoResponse>(caller, (md, o, cb) => client.updateProducto(message, md, o, cb));
      return productoFromProto(required(res.producto, 'producto'));
    },
    async delete(caller, id) {
      await call<DeleteProductoResponse>(caller, (md, o, cb) => client.deleteProducto({ id }, md, o, cb));
    },
    async unassignBodega(caller, bodegaId) {
      const res = await call<UnassignBodegaResponse>(caller, (md, o, cb) => client.unassignBodega({ bodegaId }, md, o, cb));
      return res.productos.map(productoFromProto);
    },
  };
}
