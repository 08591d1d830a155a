import type { ExistenciaClient, TotalDeProducto } from '../downstream/existencia-client';
import { plazoDeAlta, traeTotalDelLibro } from '../downstream/producto-client';
import { BodegaConProductosError } from './errors';
import type { Producto } from '@inventario/contract';
import type { Caller, InventarioApi, ProductosJson } from './model';

/**
 * One answer to "how many" (docs/contract.md §10.6, docs/decisions.md "One answer"): a product's
 * `cantidadEnStock` (GraphQL `cantidad`) is its ledger total in bodega-svc, the sum of its levels
 * in every warehouse and its unlocated level, wherever a product is answered. producto-svc's
 * stored column is not read for it any more. The total is read beside the product, one batched
 * call per page of products.
 */

/** The unlocated level's bodegaId in levels and lines: no warehouse. */
export const SIN_UBICAR = 0;

function conTotal(producto: Producto, totales: ReadonlyMap<number, TotalDeProducto>): Producto {
  return { ...producto, cantidadEnStock: totales.get(producto.id)?.total ?? 0 };
}

/**
 * A product of producto-svc's REST JSON: its id, then (past nombre and descripcion)
 * `"precio":<number>,"cantidadEnStock":`.
 * Inside a JSON string every `"` is escaped, so `"precio":` followed by a number can only be the
 * field itself: the lazy gap never reaches into the next product.
 */
const PRODUCTO_JSON = /\{"id":(\d+),(.*?)"precio":(-?[0-9.eE+-]+),"cantidadEnStock":-?\d+,/gs;

/** producto-svc's page of REST JSON, each product's cantidadEnStock replaced by its ledger total. */
function jsonConTotales(page: ProductosJson, totales: ReadonlyMap<number, TotalDeProducto>): ProductosJson {
  const text = Buffer.from(page.json).toString('utf8');
  const out = text.replace(
    PRODUCTO_JSON,
    (_match, id: string, medio: string, precio: string) =>
      `{"id":${id},${medio}"precio":${precio},"cantidadEnStock":${totales.get(Number(id))?.total ?? 0},`,
  );
  return { json: Buffer.from(out, 'utf8'), count: page.count };
}

const idsOfJson = (page: ProductosJson): number[] =>
  [...Buffer.from(page.json).toString('utf8').matchAll(PRODUCTO_JSON)].map((m) => Number(m[1]));

/** Each product's cantidadEnStock as its ledger total (one call to bodega-svc for them all). */
async function conTotales(existencias: ExistenciaClient, caller: Caller, productos: Producto[]): Promise<Producto[]> {
  if (productos.length === 0) return productos;
  const totales = await existencias.totales(
    caller,
    productos.map((p) => p.id),
  );
  return productos.map((p) => conTotal(p, totales));
}

export function conTotalesDelLibro(inventario: InventarioApi, existencias: ExistenciaClient): InventarioApi {
  const todos = (caller: Caller, productos: Producto[]) => conTotales(existencias, caller, productos);

  async function uno(caller: Caller, producto: Producto): Promise<Producto> {
    return conTotal(producto, await existencias.totales(caller, [producto.id]));
  }

  /** A create whose answer already carries the product's ledger total needs no second call (issue 23). */
  const conTotalDeAlta = (caller: Caller, producto: Producto) =>
    traeTotalDelLibro(producto) ? producto : uno({ ...caller, deadline: plazoDeAlta(producto) }, producto);

  /**
   * From the second page on, the next page is read from producto-svc while this one's totals are read from
   * bodega-svc, so a streamed list costs about one round trip per page, as before the totals. Not after the
   * first: a HEAD answers after the first page and reads no other (docs/contract.md §2.1).
   */
  async function* paginas(
    caller: Caller,
    pages: AsyncIterable<Producto[] | ProductosJson>,
  ): AsyncIterable<Producto[] | ProductosJson> {
    const it: AsyncIterator<Producto[] | ProductosJson, unknown> = pages[Symbol.asyncIterator]();
    try {
      let ahead: Promise<IteratorResult<Producto[] | ProductosJson, unknown>> | undefined;
      for (let first = true; ; first = false) {
        const result = await (ahead ?? it.next());
        if (result.done) return;
        const page = result.value;
        ahead = first ? undefined : it.next();
        // Observed now, thrown where it is awaited: a failed read-ahead is never an unhandled rejection.
        ahead?.catch(() => undefined);
        if (Array.isArray(page)) yield await todos(caller, page);
        else yield jsonConTotales(page, await existencias.totales(caller, idsOfJson(page)));
      }
    } finally {
      await it.return?.();
    }
  }

  return {
    ...inventario,
    // The product first: its own failure (missing, a deadline, producto-svc away) answers as before, and costs
    // bodega-svc nothing.
    getProducto: async (caller, id) => uno(caller, await inventario.getProducto(caller, id)),
    listProductos: async (caller, filter) => todos(caller, await inventario.listProductos(caller, filter)),
    productoPages: (caller, filter) => paginas(caller, inventario.productoPages(caller, filter)),
    productosPorIds: async (caller, ids) => todos(caller, await inventario.productosPorIds(caller, ids)),
    productosDeBodegas: async (caller, bodegaIds, page) =>
      todos(caller, await inventario.productosDeBodegas(caller, bodegaIds, page)),
    // Read after the write, which producto-svc recorded in the ledger before answering.
    createProducto: async (caller, input, write) =>
      conTotalDeAlta(caller, await inventario.createProducto(caller, input, write)),
    updateProducto: async (caller, id, patch, write) =>
      uno(caller, await inventario.updateProducto(caller, id, patch, write)),

    /** The products a safe delete's 409 or a forced delete's report lists carry their figure too. */
    async deleteBodega(caller, id, options, write) {
      try {
        const res = await inventario.deleteBodega(caller, id, options, write);
        return res.kind === 'forced' ? { ...res, productos: await todos(caller, res.productos) } : res;
      } catch (err) {
        if (!(err instanceof BodegaConProductosError)) throw err;
        throw new BodegaConProductosError(
          err.bodegaId,
          await todos(caller, err.productos),
          err.total,
          err.conExistencias,
        );
      }
    },
  };
}
