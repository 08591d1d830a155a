import { InvalidArgumentError, NotFoundError, validateFields } from '@inventario/platform';
import type { Bodega, Existencia, InventarioApi, Movimiento, Producto } from '../inventario/model';
import type { FieldResolver } from './context';
import type { GraphqlContext } from './context';
import { parseId } from './inputs';
import { parseCursorPage, parsePage, type PageArgs } from './pagination';
import { toMovimientoFilter, type MovimientoFiltroArgs } from './stock-inputs';

export const HEALTH_TEXT = 'OK';

/** An unknown id reads as null (the schema's `producto(id): Producto`), not as an error. */
async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

/** Never more than one past what the node cap leaves: more could only be refused. */
function readLimit(first: number | undefined, ctx: GraphqlContext): number {
  return Math.min(first ?? Infinity, ctx.guard.remainingNodes() + 1);
}

/** REST's default `limit`, and what the result estimate counts for a list without `first`. */
export const MOVIMIENTOS_POR_PAGINA = 100;

/** The service's malformed page token is the client's `after` (REST names it `cursor`). */
function asAfterFailure(err: unknown): unknown {
  if (!(err instanceof InvalidArgumentError) || !err.violations.some((v) => v.campo === 'cursor')) return err;
  return new InvalidArgumentError(err.violations.map((v) => (v.campo === 'cursor' ? { ...v, campo: 'after' } : v)));
}

/** A malformed id (`producto(id: "abc")`) is a ValidationError, not null: null means "no such record". */
export function createQueryResolvers(inventario: InventarioApi): Record<string, FieldResolver> {
  return {
    productos: (_: unknown, args: PageArgs, ctx: GraphqlContext) => {
      const { first, afterId } = parsePage(args);
      return inventario.listProductos(ctx.caller, { limit: readLimit(first, ctx), afterId });
    },
    producto: (_: unknown, args: { id: string }, ctx: GraphqlContext) => orNull(inventario.getProducto(ctx.caller, parseId(args.id, 'id'))),
    bodegas: async (_: unknown, args: PageArgs, ctx: GraphqlContext) => {
      const { first, afterId } = parsePage(args);
      const bodegas = await inventario.listBodegas(ctx.caller, { limit: readLimit(first, ctx), afterId });
      // A later `Producto.bodega` of the same request needs no downstream call.
      for (const bodega of bodegas) ctx.loaders.bodegaPorId.prime(bodega.id, bodega);
      return bodegas;
    },
    bodega: (_: unknown, args: { id: string }, ctx: GraphqlContext) => orNull(inventario.getBodega(ctx.caller, parseId(args.id, 'id'))),
    health: () => HEALTH_TEXT,
    movimientos: async (_: unknown, args: { filtro?: MovimientoFiltroArgs | null } & PageArgs, ctx: GraphqlContext) => {
      const { filter, page } = validateFields({ filter: () => toMovimientoFilter(args.filtro ?? {}), page: () => parseCursorPage(args) });
      try {
        const pagina = await inventario.listMovimientos(ctx.caller, filter, { ...page, limit: readLimit(page.limit ?? MOVIMIENTOS_POR_PAGINA, ctx) });
        return { movimientos: pagina.items, siguienteCursor: pagina.siguienteCursor };
      } catch (err) {
        throw asAfterFailure(err);
      }
    },
    operacion: (_: unknown, args: { id: string }, ctx: GraphqlContext) => orNull(inventario.getOperacion(ctx.caller, parseId(args.id, 'id'))),
    existencia: (_: unknown, args: { bodegaId: string; productoId: string }, ctx: GraphqlContext) => {
      const { bodegaId, productoId } = validateFields({
        bodegaId: () => parseId(args.bodegaId, 'bodegaId'),
        productoId: () => parseId(args.productoId, 'productoId'),
      });
      return orNull(inventario.getExistencia(ctx.caller, bodegaId, productoId));
    },
  };
}

/** Only the fields whose GraphQL form differs from the model's (REST's). */
export const productoResolvers: Record<string, FieldResolver> = {
  // Exact decimal text to the nearest double, once, on the way out; never used in arithmetic.
  precio: (producto: Producto) => Number(producto.precio),
  cantidad: (producto: Producto) => producto.cantidadEnStock,
  bodega: (producto: Producto, _: unknown, ctx: GraphqlContext) => (producto.bodegaId === null ? null : ctx.loaders.bodegaPorId.load(producto.bodegaId)),
  existencias: (producto: Producto, args: PageArgs, ctx: GraphqlContext) => {
    ctx.loaders.productoPorId.prime(producto.id, producto);
    return ctx.loaders.existenciasDeProducto.load({ parentId: producto.id, ...parsePage(args) });
  },
};

export const bodegaResolvers: Record<string, FieldResolver> = {
  // The schema's `ubicacion: String!`; a warehouse without location (null in storage) shows "".
  ubicacion: (bodega: Bodega) => bodega.ubicacion ?? '',
  productos: (bodega: Bodega, args: PageArgs, ctx: GraphqlContext) => ctx.loaders.productosDeBodega.load({ parentId: bodega.id, ...parsePage(args) }),
  existencias: (bodega: Bodega, args: PageArgs, ctx: GraphqlContext) => {
    ctx.loaders.bodegaPorId.prime(bodega.id, bodega);
    return ctx.loaders.existenciasDeBodega.load({ parentId: bodega.id, ...parsePage(args) });
  },
};

/** Null once they no longer exist (ledger lines outlive them). */
const relacionesDeStock: Record<string, FieldResolver> = {
  bodega: (record: Existencia | Movimiento, _: unknown, ctx: GraphqlContext) => ctx.loaders.bodegaPorId.load(record.bodegaId),
  producto: (record: Existencia | Movimiento, _: unknown, ctx: GraphqlContext) => ctx.loaders.productoPorId.load(record.productoId),
};

export const existenciaResolvers: Record<string, FieldResolver> = relacionesDeStock;
export const movimientoResolvers: Record<string, FieldResolver> = relacionesDeStock;
