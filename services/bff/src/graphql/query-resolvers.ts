import { NotFoundError } from '@inventario/platform';
import type { Bodega, InventarioApi, Producto } from '../inventario/model';
import type { FieldResolver } from './bind-resolvers';
import type { GraphqlContext } from './context';
import { parseId } from './inputs';
import { parsePage, type PageArgs } from './pagination';

/** The text `health` answers while the endpoint can execute queries. */
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

/**
 * How many items a list field reads: its `first`, and never more than one
 * past what the request's node cap leaves (more could only be refused).
 */
function readLimit(first: number | undefined, ctx: GraphqlContext): number {
  return Math.min(first ?? Infinity, ctx.guard.remainingNodes() + 1);
}

/**
 * The read side. An id that is not a positive integer (`producto(id: "abc")`)
 * is an error classified ValidationError naming `id`, not null: null means
 * "no such record", and "abc" cannot name one. Likewise a `first` out of
 * range or an `after` that is not a cursor.
 */
export function createQueryResolvers(inventario: InventarioApi): Record<string, FieldResolver> {
  return {
    productos: (_: unknown, args: PageArgs, ctx: GraphqlContext) => {
      const { first, afterId } = parsePage(args);
      return inventario.listProductos(ctx.caller, { limit: readLimit(first, ctx), afterId });
    },
    producto: (_: unknown, args: { id: string }, ctx: GraphqlContext) =>
      orNull(inventario.getProducto(ctx.caller, parseId(args.id, 'id'))),
    bodegas: async (_: unknown, args: PageArgs, ctx: GraphqlContext) => {
      const { first, afterId } = parsePage(args);
      const bodegas = await inventario.listBodegas(ctx.caller, { limit: readLimit(first, ctx), afterId });
      // A later `Producto.bodega` of the same request needs no downstream call.
      for (const bodega of bodegas) ctx.loaders.bodegaPorId.prime(bodega.id, bodega);
      return bodegas;
    },
    bodega: (_: unknown, args: { id: string }, ctx: GraphqlContext) =>
      orNull(inventario.getBodega(ctx.caller, parseId(args.id, 'id'))),
    health: () => HEALTH_TEXT,
  };
}

/**
 * Producto in its GraphQL form: the model is the REST form, so only the
 * fields that differ resolve here (`id` and `bodegaId` become ID strings by
 * the ID scalar itself).
 */
export const productoResolvers: Record<string, FieldResolver> = {
  // Exact decimal text to the nearest double, once, on the way out; never used in arithmetic.
  precio: (producto: Producto) => Number(producto.precio),
  cantidad: (producto: Producto) => producto.cantidadEnStock,
  bodega: (producto: Producto, _: unknown, ctx: GraphqlContext) =>
    producto.bodegaId === null ? null : ctx.loaders.bodegaPorId.load(producto.bodegaId),
};

export const bodegaResolvers: Record<string, FieldResolver> = {
  // The schema's `ubicacion: String!`; a warehouse without location (null in storage) shows "".
  ubicacion: (bodega: Bodega) => bodega.ubicacion ?? '',
  productos: (bodega: Bodega, args: PageArgs, ctx: GraphqlContext) =>
    ctx.loaders.productosDeBodega.load({ bodegaId: bodega.id, ...parsePage(args) }),
};
