import { InvalidArgumentError, NotFoundError } from '@inventario/platform';
import type { BodegaClient } from '../downstream/bodega-client';
import type { ExistenciaClient } from '../downstream/existencia-client';
import type { ProductoClient } from '../downstream/producto-client';
import { NoExisteError } from './errors';
import type { CursorPage, PaginaConCursor, ProductoDeBodega } from '@inventario/contract';
import type { ExistenciasApi } from './model';
import { createLecturas } from './lecturas';
import { pagesAfter, pagesOf, STREAM_PAGE_SIZE } from './paging';

export interface ExistenciasDeps {
  productos: ProductoClient;
  bodegas: BodegaClient;
  existencias: ExistenciaClient;
}

export const DEFAULT_CURSOR_LIMIT = 100;

const MENSAJES = {
  noExisteProducto: (id: number) => `no existe el producto ${id}`,
  noExisteOperacion: (id: number) => `no existe la operación ${id}`,
} as const;

function cursorRequest(page: CursorPage): { pageSize: number; pageToken?: string } {
  return { pageSize: page.limit ?? DEFAULT_CURSOR_LIMIT, pageToken: page.cursor };
}

/** The service's malformed page token is the client's `cursor`. */
function asCursorFailure(err: unknown): unknown {
  if (!(err instanceof InvalidArgumentError) || !err.violations.some((v) => v.campo === 'pageToken')) return err;
  return new InvalidArgumentError(err.violations.map((v) => (v.campo === 'pageToken' ? { ...v, campo: 'cursor' } : v)));
}

function paginaDe<T>(items: T[], nextPageToken: string): PaginaConCursor<T> {
  return { items, siguienteCursor: nextPageToken === '' ? null : nextPageToken };
}

/** bodega-svc names a missing warehouse by its gRPC field; the route's path names it `id`. */
function enLaRuta(err: unknown): unknown {
  if (!(err instanceof NoExisteError) || !err.detalles.some((d) => d.campo === 'bodegaId')) return err;
  return new NoExisteError(
    err.detalles.map((d) => (d.campo === 'bodegaId' ? { ...d, campo: 'id' } : d)),
    err.reason,
  );
}

/** One call to bodega-svc, its missing records named as the request named them. */
async function translated<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw enLaRuta(err);
  }
}

/**
 * The stock use cases (docs/contract.md §10.2). bodega-svc owns every stock rule, the products it
 * takes stock of included (docs/decisions.md, "Stock has one home"): each stock command is one
 * call to it, whose 404s name the request's fields (a removal's clearing of the product's bodegaId
 * included: bodega-svc asks producto-svc), and a warehouse's product list is its ListProductosDeBodega
 * (issue 23). What stays here spans the services' reads: a product's levels beside its 404. One entry per stock
 * use case: its length is that list.
 */
export function createExistencias({ productos, bodegas, existencias }: ExistenciasDeps): ExistenciasApi {
  const { levelPagesOf } = createLecturas({ productos, existencias });

  const api: ExistenciasApi = {
    asignarExistencia: (caller, bodegaId, input, write = {}) =>
      translated(existencias.asignar(caller, { bodegaId, ...input }, write)),

    cambiarUmbralMinimo: (caller, bodegaId, productoId, umbral, write = {}) =>
      translated(existencias.cambiarUmbral(caller, { bodegaId, productoId, ...umbral }, write)),

    /**
     * bodega-svc writes the level out and has producto-svc clear the product's bodegaId (docs/decisions.md, "Stock has
     * one home").
     */
    async retirarProducto(caller, bodegaId, productoId, write = {}) {
      const { cantidadRetirada, desasignado, operacion } = await translated(
        existencias.retirar(caller, bodegaId, productoId, write),
      );
      return { bodegaId, productoId, cantidadRetirada, desasignado, operacion };
    },

    // The stock rules are bodega-svc's; REST and GraphQL refuse a malformed command early with its words
    // (@inventario/contract).
    registrarMovimiento: (caller, bodegaId, input, write = {}) =>
      translated(existencias.registrarMovimiento(caller, bodegaId, input, write)),

    transferir: (caller, input, write = {}) => translated(existencias.transferir(caller, input, write)),

    revertirOperacion: (caller, operacionId, { comentario } = {}, write = {}) =>
      translated(existencias.revertir(caller, operacionId, comentario, write)),

    async getOperacion(caller, id) {
      try {
        return await existencias.getOperacion(caller, id);
      } catch (err) {
        throw err instanceof NotFoundError ? NoExisteError.campo('id', MENSAJES.noExisteOperacion(id)) : err;
      }
    },

    /** bodega-svc names what is missing: the level (productoId) or the warehouse. */
    getExistencia: (caller, bodegaId, productoId) => translated(existencias.get(caller, bodegaId, productoId)),

    async existenciasDeBodega(caller, bodegaId) {
      const bodega = await bodegas.get(caller, bodegaId);
      return { bodega, pages: levelPagesOf(caller, bodegaId, STREAM_PAGE_SIZE) };
    },

    /**
     * One call: bodega-svc reads the levels and the unlocated units and asks producto-svc whether the product exists.
     * `total` is the units in warehouses; `sinUbicar` beside it (additive), so `total + sinUbicar` is its
     * cantidadEnStock.
     */
    async existenciasDeProducto(caller, productoId) {
      try {
        const { porBodega, total, sinUbicar } = await existencias.deProducto(caller, productoId);
        return { productoId, total, porBodega, sinUbicar };
      } catch (err) {
        throw err instanceof NotFoundError ? NoExisteError.campo('id', MENSAJES.noExisteProducto(productoId)) : err;
      }
    },

    async listExistencias(caller, filter, page = {}) {
      try {
        const res = await existencias.list(caller, { ...filter, ...cursorRequest(page) });
        return paginaDe(res.existencias, res.nextPageToken);
      } catch (err) {
        throw asCursorFailure(err);
      }
    },

    async listMovimientos(caller, filter, page = {}) {
      try {
        const res = await existencias.listMovimientos(caller, { ...filter, ...cursorRequest(page) });
        return paginaDe(res.movimientos, res.nextPageToken);
      } catch (err) {
        throw asCursorFailure(err);
      }
    },

    verificarExistencias: (caller) => existencias.verificar(caller),

    /**
     * bodega-svc merges the assigned and the stocked, each with its figure; the warehouse's 404 comes before any page
     * (issue 23).
     */
    productoPagesOfBodega: (caller, bodegaId) =>
      pagesAfter(
        () => bodegas.get(caller, bodegaId),
        pagesOf<ProductoDeBodega>(
          Infinity,
          async (pageSize, pageToken) => {
            const page = await existencias.productosDeBodega(caller, bodegaId, { pageSize, pageToken });
            return { items: page.productos, nextPageToken: page.nextPageToken };
          },
          { pageSize: STREAM_PAGE_SIZE },
        ),
      ),
  };

  return api;
}
