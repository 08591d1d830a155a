import { idempotentBy, itemSizeBound, listPageOf, requirePositiveId, unary, type Logger } from '@inventario/platform';
import { CreateBodegaRequest, DeleteBodegaRequest, UpdateBodegaRequest, type BodegaServiceServer } from '@inventario/proto';
import { validateBodegaChanges, validateNewBodega } from '../domain/bodega';
import { validateBodegaQuery } from '../domain/listing';
import type { BodegaStore } from '../store/bodega-store';
import { fromCreateRequest, fromUpdateRequest, toProto } from './bodega-mapping';

export interface BodegaHandlersDeps {
  store: BodegaStore;
  logger: Logger;
}

/** Writes take an idempotency key (`request_id`); conditional ones an `expected_version`. */
export function createBodegaHandlers({ store, logger }: BodegaHandlersDeps): BodegaServiceServer {
  return {
    createBodega: unary(
      logger,
      'CreateBodega',
      async (request, caller) => ({
        bodega: toProto(await store.create(validateNewBodega(fromCreateRequest(request)), caller)),
      }),
      idempotentBy(CreateBodegaRequest),
    ),

    getBodega: unary(logger, 'GetBodega', async (request) => ({
      bodega: toProto(await store.get(requirePositiveId(request.id, 'id'))),
    })),

    listBodegas: unary(logger, 'ListBodegas', async (request) => {
      const page = await store.list(validateBodegaQuery(request));
      const { items, nextPageToken } = listPageOf(
        page.bodegas,
        page.hasMore,
        (b) => b.id,
        (b) => itemSizeBound(b.nombre, b.ubicacion),
      );
      return { bodegas: items.map(toProto), nextPageToken };
    }),

    updateBodega: unary(
      logger,
      'UpdateBodega',
      async (request, caller) => {
        const { id, cambios } = fromUpdateRequest(request);
        return { bodega: toProto(await store.update(id, validateBodegaChanges(cambios), caller, request.expectedVersion)) };
      },
      idempotentBy(UpdateBodegaRequest),
    ),

    deleteBodega: unary(
      logger,
      'DeleteBodega',
      async (request, caller) => {
        const retirado = await store.delete(requirePositiveId(request.id, 'id'), caller, {
          expectedVersion: request.expectedVersion,
          retirarExistencias: request.retirarExistencias,
        });
        return { existenciasRetiradas: retirado.niveles, unidadesRetiradas: retirado.unidades };
      },
      idempotentBy(DeleteBodegaRequest),
    ),
  };
}
