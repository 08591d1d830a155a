import { requirePositiveId, unary, type Logger } from '@inventario/platform';
import type { BodegaServiceServer } from '@inventario/proto';
import type { BodegaStore } from '../store/bodega-store';
import { fromCreateRequest, fromUpdateRequest, toProto } from './bodega-mapping';

export interface BodegaHandlersDeps {
  store: BodegaStore;
  logger: Logger;
}

/**
 * inventario.v1.BodegaService. Each handler maps the request, calls the
 * store once and maps the answer; `unary` turns a thrown domain error into
 * its gRPC status and calls back exactly once.
 */
export function createBodegaHandlers({ store, logger }: BodegaHandlersDeps): BodegaServiceServer {
  return {
    createBodega: unary(logger, 'CreateBodega', async (request, caller) => ({
      bodega: toProto(await store.create(fromCreateRequest(request), caller)),
    })),

    getBodega: unary(logger, 'GetBodega', async (request) => ({
      bodega: toProto(await store.get(requirePositiveId(request.id, 'id'))),
    })),

    listBodegas: unary(logger, 'ListBodegas', async (request) => {
      const page = await store.list({ pageSize: request.pageSize, pageToken: request.pageToken, ids: request.ids });
      return { bodegas: page.bodegas.map(toProto), nextPageToken: page.nextPageToken };
    }),

    updateBodega: unary(logger, 'UpdateBodega', async (request, caller) => {
      const { id, cambios } = fromUpdateRequest(request);
      return { bodega: toProto(await store.update(id, cambios, caller)) };
    }),

    deleteBodega: unary(logger, 'DeleteBodega', async (request, caller) => {
      await store.delete(requirePositiveId(request.id, 'id'), caller);
      return {};
    }),
  };
}
