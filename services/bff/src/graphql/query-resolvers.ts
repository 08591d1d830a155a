import { SIN_UBICAR } from '../inventario/totales-del-libro';
import { InvalidArgumentError, NotFoundError, validateFields } from '@inventario/platform';
import { Kind, type GraphQLResolveInfo, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { Bodega, Existencia, Producto } from '@inventario/contract';
import type { InventarioApi, Movimiento } from '../inventario/model';
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

const pideDescripcionPorOperacion = new WeakMap<OperationDefinitionNode, boolean>();

/**
 * Whether the request's products need `descripcion` (up to 64 KiB each): only when the operation
 * selects it somewhere (through fragments too; @skip/@include aside, an overestimate). Decided for
 * the whole operation, so a product read without it is never what another field of the request
 * (`Existencia.producto { descripcion }`, through the request's loaders) answers with.
 */
function pideDescripcion(info: GraphQLResolveInfo): boolean {
  const known = pideDescripcionPorOperacion.get(info.operation);
  if (known !== undefined) return known;
  const seen = new Set<string>();
  const selects = (set: SelectionSetNode | undefined): boolean =>
    set?.selections.some((selection) => {
      if (selection.kind === Kind.FIELD)
        return selection.name.value === 'descripcion' || selects(selection.selectionSet);
      if (selection.kind === Kind.INLINE_FRAGMENT) return selects(selection.selectionSet);
      if (seen.has(selection.name.value)) return false;
      seen.add(selection.name.value);
      return selects(info.fragments[selection.name.value]?.selectionSet);
    }) ?? false;
  const pide = selects(info.operation.selectionSet);
  pideDescripcionPorOperacion.set(info.operation, pide);
  return pide;
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
    productos: async (_: unknown, args: PageArgs, ctx: GraphqlContext, info: GraphQLResolveInfo) => {
      const { first, afterId } = parsePage(args);
      const sinDescripcion = !pideDescripcion(info);
      return ctx.guard.readList(first, (limit) =>
        inventario.listProductos(ctx.caller, { limit, afterId, sinDescripcion, signal: ctx.guard.signal }),
      );
    },
    producto: (_: unknown, args: { id: string }, ctx: GraphqlContext) =>
      orNull(inventario.getProducto(ctx.caller, parseId(args.id, 'id'))),
    bodegas: async (_: unknown, args: PageArgs, ctx: GraphqlContext) => {
      const { first, afterId } = parsePage(args);
      const bodegas = await ctx.guard.readList(first, (limit) =>
        inventario.listBodegas(ctx.caller, { limit, afterId, signal: ctx.guard.signal }),
      );
      // A later `Producto.bodega` of the same request needs no downstream call.
      for (const bodega of bodegas) ctx.loaders.bodegaPorId.prime(bodega.id, bodega);
      return bodegas;
    },
    bodega: (_: unknown, args: { id: string }, ctx: GraphqlContext) =>
      orNull(inventario.getBodega(ctx.caller, parseId(args.id, 'id'))),
    health: () => HEALTH_TEXT,
    movimientos: async (_: unknown, args: { filtro?: MovimientoFiltroArgs | null } & PageArgs, ctx: GraphqlContext) => {
      const { filter, page } = validateFields({
        filter: () => toMovimientoFilter(args.filtro ?? {}),
        page: () => parseCursorPage(args),
      });
      try {
        let siguienteCursor: string | null = null;
        const movimientos = await ctx.guard.readList(page.limit ?? MOVIMIENTOS_POR_PAGINA, async (limit) => {
          const pagina = await inventario.listMovimientos(ctx.caller, filter, { ...page, limit });
          siguienteCursor = pagina.siguienteCursor;
          return pagina.items;
        });
        return { movimientos, siguienteCursor };
      } catch (err) {
        throw asAfterFailure(err);
      }
    },
    operacion: (_: unknown, args: { id: string }, ctx: GraphqlContext) =>
      orNull(inventario.getOperacion(ctx.caller, parseId(args.id, 'id'))),
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
  bodega: (producto: Producto, _: unknown, ctx: GraphqlContext) =>
    producto.bodegaId === null ? null : ctx.loaders.bodegaPorId.load(producto.bodegaId),
  existencias: (producto: Producto, args: PageArgs, ctx: GraphqlContext) => {
    ctx.loaders.productoPorId.prime(producto.id, producto);
    return ctx.loaders.existenciasDeProducto.load({ parentId: producto.id, ...parsePage(args) });
  },
};

export const bodegaResolvers: Record<string, FieldResolver> = {
  // The schema's `ubicacion: String!`; a warehouse without location (null in storage) shows "".
  ubicacion: (bodega: Bodega) => bodega.ubicacion ?? '',
  productos: (bodega: Bodega, args: PageArgs, ctx: GraphqlContext, info: GraphQLResolveInfo) =>
    ctx.loaders.productosDeBodega.load({
      parentId: bodega.id,
      ...parsePage(args),
      sinDescripcion: !pideDescripcion(info),
    }),
  existencias: (bodega: Bodega, args: PageArgs, ctx: GraphqlContext) => {
    ctx.loaders.bodegaPorId.prime(bodega.id, bodega);
    return ctx.loaders.existenciasDeBodega.load({ parentId: bodega.id, ...parsePage(args) });
  },
};

/**
 * Null once they no longer exist (ledger lines outlive them); a line's bodega is null for the unlocated units too
 * (bodegaId 0, no warehouse).
 */
const relacionesDeStock: Record<string, FieldResolver> = {
  bodega: (record: Existencia | Movimiento, _: unknown, ctx: GraphqlContext) =>
    record.bodegaId === SIN_UBICAR ? null : ctx.loaders.bodegaPorId.load(record.bodegaId),
  producto: (record: Existencia | Movimiento, _: unknown, ctx: GraphqlContext) =>
    ctx.loaders.productoPorId.load(record.productoId),
};

export const existenciaResolvers: Record<string, FieldResolver> = {
  ...relacionesDeStock,
  // Added with reservations (docs/contract.md §13): absent from a service that holds none.
  reservada: (e: Existencia) => e.reservada ?? 0,
  disponible: (e: Existencia) => e.disponible ?? e.cantidad,
  alertaSobre: (e: Existencia) => e.alertaSobre ?? 'CANTIDAD',
};
export const movimientoResolvers: Record<string, FieldResolver> = relacionesDeStock;
