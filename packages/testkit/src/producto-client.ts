import { credentials, Metadata, type CallOptions, type ServiceError } from '@grpc/grpc-js';
import { REPLAYED_METADATA_KEY, USUARIO_METADATA_KEY } from '@inventario/platform';
import {
  CreateProductoRequest,
  ListProductosRequest,
  ProductoServiceClient,
  UnassignBodegaRequest,
  UpdateProductoRequest,
  type CreateProductoResponse,
  type DeepPartial,
  type DeleteProductoResponse,
  type GetProductoResponse,
  type ListProductosResponse,
  type UnassignBodegaResponse,
  type UpdateProductoResponse,
} from '@inventario/proto';

/** Who the calls claim to come from (the BFF sets these in production). */
export interface CallerOptions {
  usuario?: string;
  traceparent?: string;
}

type Callback<Res> = (err: ServiceError | null, res: Res) => void;

/** The generated client with promises, metadata and a deadline on every call. */
export interface ProductoApi {
  create(request: DeepPartial<CreateProductoRequest>): Promise<CreateProductoResponse>;
  get(id: number): Promise<GetProductoResponse>;
  list(request?: DeepPartial<ListProductosRequest>): Promise<ListProductosResponse>;
  update(request: DeepPartial<UpdateProductoRequest>): Promise<UpdateProductoResponse>;
  delete(id: number): Promise<DeleteProductoResponse>;
  /** `options`: the request's other fields (request_id, max_chunks). */
  unassignBodega(
    bodegaId: number,
    options?: Omit<DeepPartial<UnassignBodegaRequest>, 'bodegaId'>,
  ): Promise<UnassignBodegaResponse>;
  /** unassignBodega with the response's initial metadata: `replayed` when answered from an idempotency record. */
  unassignBodegaReplay(
    bodegaId: number,
    options?: Omit<DeepPartial<UnassignBodegaRequest>, 'bodegaId'>,
  ): Promise<{ response: UnassignBodegaResponse; replayed: boolean }>;
  /** The same client, calling as someone else. */
  as(caller: CallerOptions): ProductoApi;
}

export function createProductoClient(port: number): ProductoServiceClient {
  return new ProductoServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
}

export function productoApi(client: ProductoServiceClient, caller: CallerOptions = {}): ProductoApi {
  function invoke<Res>(
    start: (metadata: Metadata, options: Partial<CallOptions>, callback: Callback<Res>) => void,
  ): Promise<Res> {
    const metadata = new Metadata();
    if (caller.usuario !== undefined) metadata.set(USUARIO_METADATA_KEY, caller.usuario);
    if (caller.traceparent !== undefined) metadata.set('traceparent', caller.traceparent);
    return new Promise<Res>((resolve, reject) => {
      start(metadata, { deadline: Date.now() + 10_000 }, (err, res) => (err ? reject(err) : resolve(res)));
    });
  }

  return {
    create: (request) =>
      invoke((md, o, cb) => client.createProducto(CreateProductoRequest.fromPartial(request), md, o, cb)),
    get: (id) => invoke((md, o, cb) => client.getProducto({ id }, md, o, cb)),
    list: (request = {}) =>
      invoke((md, o, cb) => client.listProductos(ListProductosRequest.fromPartial(request), md, o, cb)),
    update: (request) =>
      invoke((md, o, cb) => client.updateProducto(UpdateProductoRequest.fromPartial(request), md, o, cb)),
    delete: (id) => invoke((md, o, cb) => client.deleteProducto({ id }, md, o, cb)),
    unassignBodega: (bodegaId, options = {}) =>
      invoke((md, o, cb) =>
        client.unassignBodega(UnassignBodegaRequest.fromPartial({ ...options, bodegaId }), md, o, cb),
      ),
    async unassignBodegaReplay(bodegaId, options = {}) {
      let replayed = false;
      const response = await invoke<UnassignBodegaResponse>((md, o, cb) =>
        client
          .unassignBodega(UnassignBodegaRequest.fromPartial({ ...options, bodegaId }), md, o, cb)
          .on('metadata', (metadata: Metadata) => (replayed = metadata.get(REPLAYED_METADATA_KEY)[0] === 'true')),
      );
      return { response, replayed };
    },
    as: (other) => productoApi(client, other),
  };
}

/** The error a call failed with; fails the test if it succeeded. */
export async function rejectionOf(call: Promise<unknown>): Promise<ServiceError> {
  try {
    await call;
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error('expected the call to fail, but it succeeded');
}
