import { InvalidArgumentError, NotFoundError, validateFields } from '@inventario/platform';
import type { ReservaClient } from '../downstream/reserva-client';
import { PreconditionRequiredError } from '../inventario/errors';
import type { EstadoReserva, Reserva } from '../reservas/model';
import type { FieldResolver, GraphqlContext } from './context';
import { parseId, toWriteOptions, type SafeWriteArgs } from './inputs';
import { mutationResponse } from './mutation-result';
import { parseCursorPage, type PageArgs } from './pagination';

/**
 * docs/contract.md §13.2 in GraphQL: each resolver translates its arguments into one ReservaService call, as the REST
 * routes do.
 */

const POR_PAGINA = 100;

interface ReservaInputArgs {
  referencia: string;
  ttlSegundos?: number | null;
  lineas: { bodegaId: string; productoId: string; cantidad: number }[];
  comentario?: string | null;
}
interface ConsumoInputArgs {
  lineas?: { lineaId: string; cantidad: number }[] | null;
  liberarResto?: boolean | null;
  comentario?: string | null;
}
interface FiltroArgs {
  referencia?: string | null;
  estado?: EstadoReserva | null;
  bodegaId?: string | null;
  productoId?: string | null;
}

const MENSAJES = {
  crearReserva: { ok: 'Reserva creada correctamente', fail: 'No se pudo crear la reserva' },
  consumirReserva: { ok: 'Reserva consumida correctamente', fail: 'No se pudo consumir la reserva' },
  liberarReserva: { ok: 'Reserva liberada correctamente', fail: 'No se pudo liberar la reserva' },
  extenderReserva: { ok: 'Reserva extendida correctamente', fail: 'No se pudo extender la reserva' },
} as const;

interface Resultado {
  reserva: Reserva | null;
  operacionId: number | null;
}
const FALLO: Resultado = { reserva: null, operacionId: null };
const shape = { onSuccess: (reserva: Reserva): Resultado => ({ reserva, operacionId: null }), onFailure: FALLO };

function requireReservas(reservas: ReservaClient | undefined): ReservaClient {
  if (!reservas) throw new Error('reservations are not wired into this GraphQL handler');
  return reservas;
}

export function createReservaQueryResolvers(client: ReservaClient | undefined): Record<string, FieldResolver> {
  return {
    reserva: async (_: unknown, args: { id: string }, ctx: GraphqlContext) => {
      try {
        return await requireReservas(client).get(ctx.caller, parseId(args.id, 'id'));
      } catch (err) {
        if (err instanceof NotFoundError) return null;
        throw err;
      }
    },
    reservas: async (_: unknown, args: { filtro?: FiltroArgs | null } & PageArgs, ctx: GraphqlContext) => {
      const f = args.filtro ?? {};
      const { page, bodegaId, productoId } = validateFields({
        page: () => parseCursorPage(args),
        bodegaId: () => (f.bodegaId == null ? undefined : parseId(f.bodegaId, 'filtro.bodegaId')),
        productoId: () => (f.productoId == null ? undefined : parseId(f.productoId, 'filtro.productoId')),
      });
      const pagina = await requireReservas(client).list(ctx.caller, {
        referencia: f.referencia ?? undefined,
        estado: f.estado ?? undefined,
        bodegaId,
        productoId,
        pageSize: page.limit ?? POR_PAGINA,
        pageToken: page.cursor,
      });
      return { reservas: pagina.reservas, siguienteCursor: pagina.nextPageToken === '' ? null : pagina.nextPageToken };
    },
  };
}

// The reservation mutations as one resolver map (one entry per schema field, §13), each validating its
// input and calling the client once: the length is the list of mutations.
export function createReservaMutationResolvers(client: ReservaClient | undefined): Record<string, FieldResolver> {
  return {
    crearReserva: (_: unknown, args: { input: ReservaInputArgs } & SafeWriteArgs, ctx: GraphqlContext) =>
      mutationResponse(
        () => {
          const { ttlSegundos, lineas, write } = validateFields({
            // What REST's schema refuses too (1..2^31-1); GraphQL's Int already bounds it above. The wire field is
            // unsigned.
            ttlSegundos: () => {
              const ttl = args.input.ttlSegundos ?? undefined;
              if (ttl !== undefined && ttl < 1)
                throw InvalidArgumentError.field('input.ttlSegundos', 'debe ser un entero mayor que 0');
              return ttl;
            },
            lineas: () =>
              args.input.lineas.map((l, i) => ({
                bodegaId: parseId(l.bodegaId, `input.lineas[${i}].bodegaId`),
                productoId: parseId(l.productoId, `input.lineas[${i}].productoId`),
                cantidad: l.cantidad,
              })),
            write: () => toWriteOptions({ idempotencyKey: args.idempotencyKey }),
          });
          const input = {
            referencia: args.input.referencia,
            ttlSegundos,
            lineas,
            comentario: args.input.comentario,
          };
          return requireReservas(client).crear(ctx.caller, input, write);
        },
        MENSAJES.crearReserva,
        shape,
      ),
    consumirReserva: (
      _: unknown,
      args: { id: string; input?: ConsumoInputArgs | null } & SafeWriteArgs,
      ctx: GraphqlContext,
    ) =>
      mutationResponse(
        async () => {
          const input = args.input ?? {};
          const { id, lineas, write } = validateFields({
            id: () => parseId(args.id, 'id'),
            lineas: () =>
              input.lineas?.map((l, i) => ({
                lineaId: parseId(l.lineaId, `input.lineas[${i}].lineaId`),
                cantidad: l.cantidad,
              })),
            write: () => toWriteOptions(args),
          });
          const r = await requireReservas(client).consumir(
            ctx.caller,
            id,
            { lineas, liberarResto: input.liberarResto ?? undefined, comentario: input.comentario },
            write,
          );
          return r;
        },
        MENSAJES.consumirReserva,
        { onSuccess: ({ reserva, operacionId }): Resultado => ({ reserva, operacionId }), onFailure: FALLO },
      ),
    liberarReserva: (_: unknown, args: { id: string } & SafeWriteArgs, ctx: GraphqlContext) =>
      mutationResponse(
        () => {
          const { id, write } = validateFields({ id: () => parseId(args.id, 'id'), write: () => toWriteOptions(args) });
          return requireReservas(client).liberar(ctx.caller, id, write);
        },
        MENSAJES.liberarReserva,
        shape,
      ),
    extenderReserva: (_: unknown, args: { id: string; expiraEn: string } & SafeWriteArgs, ctx: GraphqlContext) =>
      mutationResponse(
        () => {
          const { id, write } = validateFields({ id: () => parseId(args.id, 'id'), write: () => toWriteOptions(args) });
          if (write.ifMatch === undefined)
            throw new PreconditionRequiredError('extender una reserva requiere version, la de la reserva');
          const expiraEn = new Date(`${args.expiraEn}Z`);
          if (Number.isNaN(expiraEn.getTime()))
            throw InvalidArgumentError.field('expiraEn', 'debe ser una fecha UTC YYYY-MM-DDTHH:mm:ss');
          return requireReservas(client).extender(ctx.caller, id, expiraEn, write);
        },
        MENSAJES.extenderReserva,
        shape,
      ),
  };
}
