import {
  CreateBodegaRequest,
  DeleteBodegaRequest,
  ListBodegasRequest,
  MarkBodegaDeletingRequest,
  UpdateBodegaRequest,
  type BodegaServiceClient,
  type ListBodegasResponse,
  type GetBodegaResponse,
  type CreateBodegaResponse,
  type UpdateBodegaResponse,
  type DeleteBodegaResponse,
  type MarkBodegaDeletingResponse,
} from '@inventario/proto';
import type { Bodega, BodegaInput, BodegaPatch, Producto } from '@inventario/contract';
import type { Caller, WriteOptions } from '../inventario/model';
import { bodegaFromProto, productoFromProto, required, safeWriteFields } from './mapping';
import type { UnaryCall } from './unary-call';

/** One page of a warehouse list. */
export interface BodegaPage {
  bodegas: Bodega[];
  /** '' on the last page. */
  nextPageToken: string;
}

export interface BodegaPageRequest {
  pageSize: number;
  pageToken?: string;
  /** Only these warehouses (unknown ids are simply absent). */
  ids?: readonly number[];
}

/** bodega-svc as the BFF uses it, in model types. */
export interface BodegaClient {
  list(caller: Caller, request: BodegaPageRequest): Promise<BodegaPage>;
  get(caller: Caller, id: number): Promise<Bodega>;
  /** Writes take the request's WriteOptions: its idempotency key, the version it expects. */
  create(caller: Caller, input: BodegaInput, write?: WriteOptions): Promise<Bodega>;
  update(caller: Caller, id: number, patch: BodegaPatch, write?: WriteOptions): Promise<Bodega>;
  /**
   * A warehouse holding stock is refused (FailedPreconditionError, reason
   * BODEGA_CON_EXISTENCIAS) unless `retirarExistencias`: then its stock is
   * written out in bounded transactions, at most `maxChunks` of them in this
   * call (0: all), and counted; `pendiente` until the warehouse is gone.
   */
  delete(
    caller: Caller,
    id: number,
    write?: WriteOptions,
    options?: { retirarExistencias?: boolean; maxChunks?: number; desasignarProductos?: boolean },
  ): Promise<ExistenciasRetiradas>;
  /**
   * Marks the warehouse as being deleted under `write.ifMatch` (a number),
   * in one transaction: from then on its updates and stock writes are
   * refused (reason BODEGA_ELIMINANDOSE), so its version holds until a
   * forced delete completes.
   */
  marcarEliminacion(caller: Caller, id: number, write?: WriteOptions): Promise<Bodega>;
}

/** What a warehouse delete wrote out: its levels and their units (0 and 0 without retirarExistencias). */
export interface ExistenciasRetiradas {
  existenciasRetiradas: number;
  unidadesRetiradas: number;
  /** A forced delete that `maxChunks` ended before the warehouse was gone. */
  pendiente: boolean;
  /**
   * With desasignarProductos, the products bodega-svc had producto-svc unassign (UnassignBodega's
   * report under the key): the first ones, as they are now, and how many.
   */
  desasignados: { productos: Producto[]; total: number };
}

/** BodegaPatch keys and the update_mask path each names. */
const MASK_PATHS: Record<keyof BodegaPatch, string> = {
  nombre: 'nombre',
  ubicacion: 'ubicacion',
  capacidad: 'capacidad',
};

// One method per RPC of bodega-svc's warehouse service, each mapping its request to proto and the answer
// back: the length is the service's list of calls, the one place all of the BFF's calls to it start.
export function createBodegaClient(client: BodegaServiceClient, call: UnaryCall): BodegaClient {
  return {
    async list(caller, request) {
      const message = ListBodegasRequest.fromPartial({
        pageSize: request.pageSize,
        pageToken: request.pageToken ?? '',
        ids: [...(request.ids ?? [])],
      });
      const res = await call<ListBodegasResponse>(caller, (md, o, cb) => client.listBodegas(message, md, o, cb));
      return { bodegas: res.bodegas.map(bodegaFromProto), nextPageToken: res.nextPageToken };
    },
    async get(caller, id) {
      const res = await call<GetBodegaResponse>(caller, (md, o, cb) => client.getBodega({ id }, md, o, cb));
      return bodegaFromProto(required(res.bodega, 'bodega'));
    },
    async create(caller, input, write = {}) {
      const message = CreateBodegaRequest.fromPartial({
        nombre: input.nombre,
        ubicacion: input.ubicacion ?? undefined,
        capacidad: input.capacidad,
        requestId: safeWriteFields(write).requestId,
      });
      const res = await call<CreateBodegaResponse>(
        caller,
        (md, o, cb) => client.createBodega(message, md, o, cb),
        write.onReplay,
      );
      return bodegaFromProto(required(res.bodega, 'bodega'));
    },
    async update(caller, id, patch, write = {}) {
      const keys = (Object.keys(MASK_PATHS) as (keyof BodegaPatch)[]).filter((key) => patch[key] !== undefined);
      // A field named in the mask but absent from the message is cleared (null).
      const message = UpdateBodegaRequest.fromPartial({
        bodega: { id, nombre: patch.nombre, ubicacion: patch.ubicacion ?? undefined, capacidad: patch.capacidad },
        updateMask: keys.map((key) => MASK_PATHS[key]),
        ...safeWriteFields(write),
      });
      const res = await call<UpdateBodegaResponse>(
        caller,
        (md, o, cb) => client.updateBodega(message, md, o, cb),
        write.onReplay,
      );
      return bodegaFromProto(required(res.bodega, 'bodega'));
    },
    async delete(
      caller,
      id,
      write = {},
      { retirarExistencias = false, maxChunks = 0, desasignarProductos = false } = {},
    ) {
      const message = DeleteBodegaRequest.fromPartial({
        id,
        retirarExistencias,
        maxChunks,
        desasignarProductos,
        ...safeWriteFields(write),
      });
      const res = await call<DeleteBodegaResponse>(
        caller,
        (md, o, cb) => client.deleteBodega(message, md, o, cb),
        write.onReplay,
      );
      const desasignados = {
        productos: res.productosDesasignados.map(productoFromProto),
        total: res.totalDesasignados,
      };
      return {
        existenciasRetiradas: res.existenciasRetiradas,
        unidadesRetiradas: res.unidadesRetiradas,
        pendiente: res.pendiente,
        desasignados,
      };
    },
    async marcarEliminacion(caller, id, write = {}) {
      const message = MarkBodegaDeletingRequest.fromPartial({
        id,
        expectedVersion: safeWriteFields(write).expectedVersion,
      });
      const res = await call<MarkBodegaDeletingResponse>(caller, (md, o, cb) =>
        client.markBodegaDeleting(message, md, o, cb),
      );
      return bodegaFromProto(required(res.bodega, 'bodega'));
    },
  };
}
