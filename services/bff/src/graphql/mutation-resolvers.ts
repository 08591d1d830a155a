import {
  decidir,
  exigeVersion,
  STOCK_MENSAJES,
  type Bodega,
  type Existencia,
  type Producto,
} from '@inventario/contract';
import { validateFields } from '@inventario/platform';
import { GraphQLError, type GraphQLResolveInfo } from 'graphql';
import { PreconditionRequiredError } from '../inventario/errors';
import type { InventarioApi, Operacion } from '../inventario/model';
import { describeSeedResult, seedSampleData } from '../seed/datos-ejemplo';
import type { FieldResolver } from './context';
import type { GraphqlContext } from './context';
import { CLASSIFICATION } from './errors';
import {
  parseId,
  toBodegaInput,
  toBodegaUpdate,
  toProductoInput,
  toProductoUpdate,
  toWriteOptions,
  type BodegaInputArgs,
  type BodegaUpdateInputArgs,
  type ProductoInputArgs,
  type ProductoUpdateInputArgs,
  type SafeWriteArgs,
} from './inputs';
import { mutationResponse } from './mutation-result';
import { argumentNumberText } from './number-text';
import {
  toAsignacion,
  toMovimientoInput,
  toNivel,
  toReverso,
  toTransferenciaInput,
  toUmbral,
  type MovimientoInputArgs,
  type TransferenciaInputArgs,
} from './stock-inputs';

export interface MutationDeps {
  inventario: InventarioApi;
  enableInit: boolean;
}

const MENSAJES = {
  crearProducto: { ok: 'Producto creado correctamente', fail: 'No se pudo crear el producto' },
  actualizarProducto: { ok: 'Producto actualizado correctamente', fail: 'No se pudo actualizar el producto' },
  eliminarProducto: { ok: 'Producto eliminado correctamente', fail: 'No se pudo eliminar el producto' },
  crearBodega: { ok: 'Bodega creada correctamente', fail: 'No se pudo crear la bodega' },
  actualizarBodega: { ok: 'Bodega actualizada correctamente', fail: 'No se pudo actualizar la bodega' },
  eliminarBodega: { ok: 'Bodega eliminada correctamente', fail: 'No se pudo eliminar la bodega' },
  asignarProductoABodega: {
    ok: 'Producto asignado a la bodega correctamente',
    fail: 'No se pudo asignar el producto a la bodega',
  },
  cambiarUmbralMinimo: {
    ok: 'Umbral de stock bajo cambiado correctamente',
    fail: 'No se pudo cambiar el umbral de stock bajo',
  },
  retirarProductoDeBodega: {
    ok: 'Producto retirado de la bodega correctamente',
    fail: 'No se pudo retirar el producto de la bodega',
  },
  registrarMovimiento: { ok: 'Movimiento registrado correctamente', fail: 'No se pudo registrar el movimiento' },
  transferirStock: { ok: 'Transferencia realizada correctamente', fail: 'No se pudo realizar la transferencia' },
  revertirOperacion: { ok: 'Operación revertida correctamente', fail: 'No se pudo revertir la operación' },
} as const;

const AJUSTE_SIN_VERSION = STOCK_MENSAJES.ajusteSinVersion('version', 'existencia(bodegaId, productoId) { version }');

/**
 * Input mapping happens inside the attempt, so a malformed input is a failure like any validation
 * failure; after a write the request's loaders are cleared, so a later field sees the change. The resolver map,
 * one entry per mutation of the schema: its length is that list.
 */
export function createMutationResolvers({ inventario, enableInit }: MutationDeps): Record<string, FieldResolver> {
  const run = async <T>(ctx: GraphqlContext, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } finally {
      ctx.loaders.clearAll();
    }
  };
  const producto = {
    onSuccess: (p: Producto): { producto: Producto | null } => ({ producto: p }),
    onFailure: { producto: null },
  };
  const bodega = { onSuccess: (b: Bodega): { bodega: Bodega | null } => ({ bodega: b }), onFailure: { bodega: null } };
  const nothing = { onSuccess: () => ({}), onFailure: {} };
  const existencia = {
    onSuccess: (e: Existencia): { existencia: Existencia | null } => ({ existencia: e }),
    onFailure: { existencia: null },
  };
  const operacion = {
    onSuccess: (o: Operacion): { operacion: Operacion | null } => ({ operacion: o }),
    onFailure: { operacion: null },
  };
  const retiro = {
    onSuccess: (cantidadRetirada: number): { cantidadRetirada: number | null } => ({ cantidadRetirada }),
    onFailure: { cantidadRetirada: null },
  };
  const numberText = (ctx: GraphqlContext, info: GraphQLResolveInfo, ...path: [string, ...string[]]) =>
    argumentNumberText(info, ctx.exactVariables, path);
  // Judged as written, never as graphql-js's doubles.
  const inputTexts = (ctx: GraphqlContext, info: GraphQLResolveInfo) => ({
    precio: argumentNumberText(info, ctx.exactVariables, ['input', 'precio']),
    cantidad: argumentNumberText(info, ctx.exactVariables, ['input', 'cantidad']),
  });

  return {
    crearProducto: (
      _: unknown,
      args: { input: ProductoInputArgs } & SafeWriteArgs,
      ctx: GraphqlContext,
      info: GraphQLResolveInfo,
    ) =>
      mutationResponse(
        () => {
          const { input, write } = validateFields({
            input: () => toProductoInput(args.input, inputTexts(ctx, info)),
            write: () => toWriteOptions(args),
          });
          return run(ctx, () => inventario.createProducto(ctx.caller, input, write));
        },
        MENSAJES.crearProducto,
        producto,
      ),
    actualizarProducto: (
      _: unknown,
      args: { input: ProductoUpdateInputArgs } & SafeWriteArgs,
      ctx: GraphqlContext,
      info: GraphQLResolveInfo,
    ) =>
      mutationResponse(
        () => {
          const { update, write } = validateFields({
            update: () => toProductoUpdate(args.input, inputTexts(ctx, info)),
            write: () => toWriteOptions({ idempotencyKey: args.idempotencyKey, version: args.input.version }),
          });
          return run(ctx, () => inventario.updateProducto(ctx.caller, update.id, update.patch, write));
        },
        MENSAJES.actualizarProducto,
        producto,
      ),
    eliminarProducto: (_: unknown, args: { id: string } & SafeWriteArgs, ctx: GraphqlContext) =>
      mutationResponse(
        () => {
          const { id, write } = validateFields({ id: () => parseId(args.id, 'id'), write: () => toWriteOptions(args) });
          return run(ctx, () => inventario.deleteProducto(ctx.caller, id, write));
        },
        MENSAJES.eliminarProducto,
        nothing,
      ),
    crearBodega: (_: unknown, args: { input: BodegaInputArgs } & SafeWriteArgs, ctx: GraphqlContext) =>
      mutationResponse(
        () => {
          const { input, write } = validateFields({
            input: () => toBodegaInput(args.input),
            write: () => toWriteOptions(args),
          });
          return run(ctx, () => inventario.createBodega(ctx.caller, input, write));
        },
        MENSAJES.crearBodega,
        bodega,
      ),
    actualizarBodega: (_: unknown, args: { input: BodegaUpdateInputArgs } & SafeWriteArgs, ctx: GraphqlContext) =>
      mutationResponse(
        () => {
          const { update, write } = validateFields({
            update: () => toBodegaUpdate(args.input),
            write: () => toWriteOptions({ idempotencyKey: args.idempotencyKey, version: args.input.version }),
          });
          return run(ctx, () => inventario.updateBodega(ctx.caller, update.id, update.patch, write));
        },
        MENSAJES.actualizarBodega,
        bodega,
      ),
    eliminarBodega: (_: unknown, args: { id: string } & SafeWriteArgs, ctx: GraphqlContext) =>
      mutationResponse(
        () => {
          const { id, write } = validateFields({ id: () => parseId(args.id, 'id'), write: () => toWriteOptions(args) });
          return run(ctx, () => inventario.deleteBodega(ctx.caller, id, { force: false }, write));
        },
        MENSAJES.eliminarBodega,
        nothing,
      ),
    asignarProductoABodega: (
      _: unknown,
      args: { bodegaId: string; productoId: string; cantidad: number; umbralMinimo?: number | null } & SafeWriteArgs,
      ctx: GraphqlContext,
      info: GraphQLResolveInfo,
    ) =>
      mutationResponse(
        async () => {
          const { asignacion, write } = validateFields({
            asignacion: () =>
              toAsignacion(args, {
                cantidad: numberText(ctx, info, 'cantidad'),
                umbralMinimo: numberText(ctx, info, 'umbralMinimo'),
              }),
            write: () => toWriteOptions(args),
          });
          return (
            await run(ctx, () => inventario.asignarExistencia(ctx.caller, asignacion.bodegaId, asignacion.input, write))
          ).existencia;
        },
        MENSAJES.asignarProductoABodega,
        existencia,
      ),
    cambiarUmbralMinimo: (
      _: unknown,
      args: {
        bodegaId: string;
        productoId: string;
        umbralMinimo?: number | null;
        alertaSobre?: string;
      } & SafeWriteArgs,
      ctx: GraphqlContext,
      info: GraphQLResolveInfo,
    ) =>
      mutationResponse(
        () => {
          const { cambio, write } = validateFields({
            cambio: () => toUmbral(args, { umbralMinimo: numberText(ctx, info, 'umbralMinimo') }),
            write: () => toWriteOptions(args),
          });
          return run(ctx, () =>
            inventario.cambiarUmbralMinimo(ctx.caller, cambio.bodegaId, cambio.productoId, cambio, write),
          );
        },
        MENSAJES.cambiarUmbralMinimo,
        existencia,
      ),
    retirarProductoDeBodega: (
      _: unknown,
      args: { bodegaId: string; productoId: string } & SafeWriteArgs,
      ctx: GraphqlContext,
    ) =>
      mutationResponse(
        async () => {
          const { nivel, write } = validateFields({ nivel: () => toNivel(args), write: () => toWriteOptions(args) });
          return (await run(ctx, () => inventario.retirarProducto(ctx.caller, nivel.bodegaId, nivel.productoId, write)))
            .cantidadRetirada;
        },
        MENSAJES.retirarProductoDeBodega,
        retiro,
      ),
    registrarMovimiento: (
      _: unknown,
      args: { input: MovimientoInputArgs } & SafeWriteArgs,
      ctx: GraphqlContext,
      info: GraphQLResolveInfo,
    ) =>
      mutationResponse(
        () => {
          const { movimiento, write } = validateFields({
            movimiento: () => toMovimientoInput(args.input, { cantidad: numberText(ctx, info, 'input', 'cantidad') }),
            write: () => toWriteOptions(args),
          });
          // A count is of a known state (REST's 428 without If-Match): said here in GraphQL's terms.
          if (exigeVersion(movimiento.input.tipo) && write.ifMatch === undefined)
            throw new PreconditionRequiredError(AJUSTE_SIN_VERSION);
          return run(ctx, () =>
            inventario.registrarMovimiento(ctx.caller, movimiento.bodegaId, movimiento.input, write),
          );
        },
        MENSAJES.registrarMovimiento,
        operacion,
      ),
    transferirStock: (
      _: unknown,
      args: { input: TransferenciaInputArgs } & SafeWriteArgs,
      ctx: GraphqlContext,
      info: GraphQLResolveInfo,
    ) =>
      mutationResponse(
        () => {
          const { input, write } = validateFields({
            input: () => toTransferenciaInput(args.input, { cantidad: numberText(ctx, info, 'input', 'cantidad') }),
            write: () => toWriteOptions({ idempotencyKey: args.idempotencyKey }),
          });
          return run(ctx, () => inventario.transferir(ctx.caller, input, write));
        },
        MENSAJES.transferirStock,
        operacion,
      ),
    revertirOperacion: (
      _: unknown,
      args: { id: string; comentario?: string | null } & SafeWriteArgs,
      ctx: GraphqlContext,
    ) =>
      mutationResponse(
        () => {
          const { reverso, write } = validateFields({
            reverso: () => toReverso(args),
            write: () => toWriteOptions({ idempotencyKey: args.idempotencyKey }),
          });
          return run(ctx, () =>
            inventario.revertirOperacion(ctx.caller, reverso.id, { comentario: reverso.comentario }, write),
          );
        },
        MENSAJES.revertirOperacion,
        operacion,
      ),
    // Its result is a plain String!, so a refusal cannot be data.
    inicializarBaseDatos: async (_: unknown, __: unknown, ctx: GraphqlContext) => {
      if (!enableInit) {
        throw new GraphQLError(
          'La carga de datos de ejemplo está desactivada: el BFF debe arrancar con ENABLE_INIT=true',
          {
            extensions: { classification: CLASSIFICATION.forbidden },
          },
        );
      }
      // Loading the samples writes products and warehouses: both permissions up front (issue 26, deny by default),
      // not only when something is missing, so the answer never depends on what another caller loaded before.
      for (const permiso of ['bodegas:escribir', 'productos:escribir'] as const) {
        const permisos = ctx.caller.principal?.permisos;
        if (!permisos || !decidir(permisos, permiso).permitido)
          throw new GraphQLError(`No tiene el permiso ${permiso}`, {
            extensions: { classification: CLASSIFICATION.forbidden },
          });
      }
      return describeSeedResult(await run(ctx, () => seedSampleData(inventario, ctx.caller)));
    },
  };
}
