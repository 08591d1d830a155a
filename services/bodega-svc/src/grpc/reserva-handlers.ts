import {
  decodePageToken,
  encodePageToken,
  idempotentBy,
  InvalidArgumentError,
  NotFoundError,
  pageSizeOf,
  requirePositiveId,
  unary,
  validateFields,
  type CallContext,
  type Logger,
} from '@inventario/platform';
import {
  ConsumirReservaRequest,
  CrearReservaRequest,
  ESTADO_RESERVA_NAMES,
  EstadoReserva as EstadoReservaProto,
  ExtenderReservaRequest,
  LiberarReservaRequest,
  type Reserva as ReservaProto,
  type ReservaServiceServer,
} from '@inventario/proto';
import { validateConsumo, validateNuevaReserva, type LimitesReserva, type Reserva } from '../domain/reserva';
import type { ReservaStore } from '../store/reserva-store';
import { bodegasDeLista, exigirEn, visible } from './alcance';

export interface ReservaHandlersDeps {
  store: ReservaStore;
  limites: LimitesReserva;
  logger: Logger;
}

export function reservaToProto(r: Reserva): ReservaProto {
  return {
    id: r.id,
    referencia: r.referencia,
    estado: ESTADO_RESERVA_NAMES.value(r.estado),
    expiraEn: r.expiraEn,
    lineas: r.lineas,
    version: r.version,
    usuario: r.usuario,
    comentario: r.comentario ?? undefined,
    fechaCreacion: r.fechaCreacion,
    fechaActualizacion: r.fechaActualizacion,
  };
}

/** Holding units is taking them out later: `existencias:mover` on every warehouse of a hold's lines (§12.9). */
const bodegasDe = (lineas: readonly { bodegaId: number }[]) => [...new Set(lineas.map((l) => l.bodegaId))];

/** Reservation ids are 64-bit: only those JavaScript holds exactly. */
function requireReservaId(value: number, campo = 'id'): number {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw InvalidArgumentError.field(campo, 'debe ser un entero positivo');
  return value;
}

/**
 * docs/contract.md §13: thin, each validates, calls the store once and maps the answer.
 * One handler per RPC of the generated server interface: its length is the service's list of calls.
 */
export function createReservaHandlers({ store, limites, logger }: ReservaHandlersDeps): ReservaServiceServer {
  /** A scoped principal may act on a hold only where it may move stock: its lines are read first. */
  const mover = async (caller: CallContext, id: number) => {
    if (bodegasDeLista(caller, 'existencias:mover') === undefined) return;
    exigirEn(caller, 'existencias:mover', bodegasDe((await store.get(id)).lineas));
  };
  return {
    crearReserva: unary(
      logger,
      'CrearReserva',
      async (request, caller) => {
        const nueva = validateNuevaReserva(
          {
            referencia: request.referencia,
            ttlSegundos: request.ttlSegundos,
            lineas: request.lineas,
            comentario: request.comentario,
          },
          limites,
        );
        exigirEn(caller, 'existencias:mover', bodegasDe(nueva.lineas));
        return { reserva: reservaToProto(await store.crear(nueva, caller)) };
      },
      idempotentBy(CrearReservaRequest),
    ),

    getReserva: unary(logger, 'GetReserva', async (request, caller) => {
      const id = requireReservaId(request.id);
      const reserva = await store.get(id);
      // Out of scope reads as missing (the store's words): readable only where every line's warehouse is.
      if (!visible(caller, bodegasDe(reserva.lineas)))
        throw NotFoundError.campos([{ campo: 'id', mensaje: `no existe la reserva ${id}` }]);
      return { reserva: reservaToProto(reserva) };
    }),

    listReservas: unary(logger, 'ListReservas', async (request, caller) => {
      const query = validateFields({
        pageSize: () => pageSizeOf(request.pageSize),
        beforeId: () => decodePageToken(request.pageToken),
        bodegaId: () => (request.bodegaId === undefined ? undefined : requirePositiveId(request.bodegaId, 'bodegaId')),
        productoId: () =>
          request.productoId === undefined ? undefined : requirePositiveId(request.productoId, 'productoId'),
        estado: () => {
          if (request.estado === EstadoReservaProto.ESTADO_RESERVA_UNSPECIFIED) return undefined;
          const estado = ESTADO_RESERVA_NAMES.name(request.estado);
          if (!estado) throw InvalidArgumentError.field('estado', 'no es un estado de reserva');
          return estado;
        },
      });
      const visibles = bodegasDeLista(caller, 'existencias:leer');
      if (visibles?.length === 0) return { reservas: [], nextPageToken: '' };
      const page = await store.list({
        ...query,
        referencia: request.referencia,
        ...(visibles ? { bodegasVisibles: visibles } : {}),
      });
      const last = page.reservas.at(-1);
      return {
        reservas: page.reservas.map(reservaToProto),
        nextPageToken: page.hasMore && last ? encodePageToken(last.id) : '',
      };
    }),

    consumirReserva: unary(
      logger,
      'ConsumirReserva',
      async (request, caller) => {
        const id = requireReservaId(request.id);
        await mover(caller, id);
        const consumo = validateConsumo({
          lineas: request.lineas,
          liberarResto: request.liberarResto,
          comentario: request.comentario,
        });
        const { reserva, operacionId } = await store.consumir(id, consumo, caller, {
          expectedVersion: request.expectedVersion,
        });
        return { reserva: reservaToProto(reserva), operacionId: operacionId ?? undefined };
      },
      idempotentBy(ConsumirReservaRequest),
    ),

    liberarReserva: unary(
      logger,
      'LiberarReserva',
      async (request, caller) => {
        const id = requireReservaId(request.id);
        await mover(caller, id);
        const reserva = await store.liberar(id, caller, {
          expectedVersion: request.expectedVersion,
        });
        return { reserva: reservaToProto(reserva) };
      },
      idempotentBy(LiberarReservaRequest),
    ),

    extenderReserva: unary(
      logger,
      'ExtenderReserva',
      async (request, caller) => {
        const id = requireReservaId(request.id);
        await mover(caller, id);
        if (!request.expiraEn) throw InvalidArgumentError.field('expiraEn', 'es obligatorio');
        const reserva = await store.extender(id, request.expiraEn, caller, {
          expectedVersion: request.expectedVersion,
        });
        return { reserva: reservaToProto(reserva) };
      },
      idempotentBy(ExtenderReservaRequest),
    ),
  };
}
