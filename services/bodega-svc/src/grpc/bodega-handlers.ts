import {
  FailedPreconditionError,
  idempotentBy,
  itemSizeBound,
  listPageOf,
  NotFoundError,
  requirePositiveId,
  unary,
  type Logger,
} from '@inventario/platform';
import {
  CreateBodegaRequest,
  DeleteBodegaRequest,
  UpdateBodegaRequest,
  type BodegaServiceServer,
} from '@inventario/proto';
import { validateBodegaChanges, validateNewBodega } from '../domain/bodega';
import { validateBodegaQuery } from '../domain/listing';
import type { EliminadosEnBodega } from '../eliminados-en-bodega';
import type { BodegaStore } from '../store/bodega-store';
import { fromCreateRequest, fromUpdateRequest, toProto } from './bodega-mapping';
import type { ProductoAsignaciones } from './producto-asignaciones';

export interface BodegaHandlersDeps {
  store: BodegaStore;
  logger: Logger;
  /** producto-svc, which a forced delete asks to unassign the warehouse's products (desasignar_productos). */
  productos: Pick<ProductoAsignaciones, 'desasignarBodega'>;
  /** A safe delete refused for stock writes out the products producto-svc deleted, then tries once more. */
  eliminados: EliminadosEnBodega;
}

/**
 * UnassignBodega chunks (500 products each) per DeleteBodega call: with the delete's own chunks,
 * every call stays well inside the caller's deadline whatever the warehouse holds.
 */
export const DESASIGNAR_CHUNKS_PER_CALL = 1;

function ignoreNotFound(err: unknown): void {
  if (!(err instanceof NotFoundError)) throw err;
}

function conExistencias(err: unknown): boolean {
  return err instanceof FailedPreconditionError && err.reason === 'BODEGA_CON_EXISTENCIAS';
}

/**
 * Writes take an idempotency key (`request_id`); conditional ones an `expected_version`.
 * One handler per RPC of the generated server interface: its length is the service's list of calls.
 */
export function createBodegaHandlers({
  store,
  logger,
  productos,
  eliminados,
}: BodegaHandlersDeps): BodegaServiceServer {
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

    getBodegaEliminada: unary(logger, 'GetBodegaEliminada', async (request) => {
      const id = requirePositiveId(request.id, 'id');
      // Live or never created: either way no deletion to act on.
      if (!(await store.wasDeleted(id))) throw new NotFoundError(`No se eliminó ninguna bodega con id ${id}`);
      return { id };
    }),

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
        return {
          bodega: toProto(await store.update(id, validateBodegaChanges(cambios), caller, request.expectedVersion)),
        };
      },
      idempotentBy(UpdateBodegaRequest),
    ),

    deleteBodega: unary(
      logger,
      'DeleteBodega',
      async (request, caller) => {
        const id = requirePositiveId(request.id, 'id');
        // A forced delete takes the products out of the warehouse first (they remain, unassigned),
        // a bounded step per call; the report is producto-svc's, kept under the delete's key.
        const desasignar = request.retirarExistencias === true && request.desasignarProductos === true;
        // The version checked and the warehouse frozen before a product is touched. Gone already:
        // the delete below replays a keyed repeat or answers NOT_FOUND.
        if (desasignar) await store.marcarEliminacion(id, request.expectedVersion).catch(ignoreNotFound);
        const desasignados = desasignar
          ? await productos.desasignarBodega(id, request.requestId || undefined, DESASIGNAR_CHUNKS_PER_CALL, caller)
          : undefined;
        const informe = {
          productosDesasignados: desasignados?.productos ?? [],
          totalDesasignados: desasignados?.total ?? 0,
        };
        if (desasignados && !desasignados.complete)
          return { existenciasRetiradas: 0, unidadesRetiradas: 0, pendiente: true, ...informe };
        const borrar = () =>
          store.delete(id, caller, {
            expectedVersion: request.expectedVersion,
            retirarExistencias: request.retirarExistencias,
            maxChunks: request.maxChunks ?? 0,
          });
        // The stock may be a deleted product's the consumer has not reached yet (contract §7.6): its
        // write-out, done here, leaves the consumer nothing; any other stock keeps the refusal.
        const retiro = await borrar().catch(async (err: unknown) => {
          if (!conExistencias(err) || !(await eliminados.retirar(id, caller))) throw err;
          return borrar();
        });
        return {
          existenciasRetiradas: retiro.niveles,
          unidadesRetiradas: retiro.unidades,
          pendiente: retiro.pendiente,
          ...informe,
        };
      },
      // max_chunks and desasignar_productos only page and place the work: calls of one deletion share one key.
      idempotentBy(DeleteBodegaRequest, (request) => ({
        ...request,
        maxChunks: undefined,
        desasignarProductos: undefined,
      })),
    ),

    markBodegaDeleting: unary(logger, 'MarkBodegaDeleting', async (request) => ({
      bodega: toProto(await store.marcarEliminacion(requirePositiveId(request.id, 'id'), request.expectedVersion)),
    })),
  };
}
