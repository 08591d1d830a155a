import {
  CreateBodegaRequest,
  DeleteBodegaRequest,
  ListBodegasRequest,
  UpdateBodegaRequest,
  type BodegaServiceClient,
  type ListBodegasResponse,
  type GetBodegaResponse,
  type CreateBodegaResponse,
  type UpdateBodegaResponse,
  type DeleteBodegaResponse,
} from '@inventario/proto';
import type { Bodega, BodegaInput, BodegaPatch, Caller, WriteOptions } from '../inventario/model';
import { bodegaFromProto, required, safeWriteFields } from './mapping';
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
   * written out in the delete's own transaction, and counted.
   */
  delete(caller: Caller, id: number, write?: WriteOptions, options?: { retirarExistencias?: boolean }): Promise<ExistenciasRetiradas>;
}

/** What a warehouse delete wrote out: its levels and their units (0 and 0 without retirarExistencias). */
export interface ExistenciasRetiradas {
  existenciasRetiradas: number;
  unidadesRetiradas: number;
}

/** BodegaPatch keys and the update_mask path each names. */
const MASK_PATHS: Record<keyof BodegaPatch, string> = {
  nombre: 'nombre',
  ubicacion: 'ubicacion',
  capacidad: 'capacidad',
};

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
      const res = await call<CreateBodegaResponse>(caller, (md, o, cb) => client.createBodega(message, md, o, cb), write.onReplay);
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
      const res = await call<UpdateBodegaResponse>(caller, (md, o, cb) => client.updateBodega(message, md, o, cb), write.onReplay);
      return bodegaFromProto(required(res.bodega, 'bodega'));
    },
    async delete(caller, id, write = {}, { retirarExistencias = false } = {}) {
      const message = DeleteBodegaRequest.fromPartial({ id, retirarExistencias, ...safeWriteFields(write) });
      const res = await call<DeleteBodegaResponse>(caller, (md, o, cb) => client.deleteBodega(message, md, o, cb), write.onReplay);
      return { existenciasRetiradas: res.existenciasRetiradas, unidadesRetiradas: res.unidadesRetiradas };
    },
  };
}
