import { FailedPreconditionError, formatLocalUtc } from '@inventario/platform';
import {
  ConsumirReservaRequest,
  CrearReservaRequest,
  ESTADO_RESERVA_NAMES,
  ExtenderReservaRequest,
  LiberarReservaRequest,
  ListReservasRequest,
  type ConsumirReservaResponse,
  type CrearReservaResponse,
  type ExtenderReservaResponse,
  type GetReservaResponse,
  type LiberarReservaResponse,
  type ListReservasResponse,
  type Reserva as ReservaProto,
  type ReservaServiceClient,
} from '@inventario/proto';
import type { Caller, WriteOptions } from '../inventario/model';
import type { ConsumoInput, Reserva, ReservaFilter, ReservaInput } from '../reservas/model';
import { required, safeWriteFields } from './mapping';
import type { UnaryCall } from './unary-call';

/** bodega-svc's ReservaService (docs/contract.md §13) as the BFF uses it, in model types: one call per command. */
export interface ReservaClient {
  crear(caller: Caller, input: ReservaInput, write?: WriteOptions): Promise<Reserva>;
  get(caller: Caller, id: number): Promise<Reserva>;
  list(
    caller: Caller,
    filter: ReservaFilter & { pageSize: number; pageToken?: string },
  ): Promise<{ reservas: Reserva[]; nextPageToken: string }>;
  consumir(
    caller: Caller,
    id: number,
    input: ConsumoInput,
    write?: WriteOptions,
  ): Promise<{ reserva: Reserva; operacionId: number | null }>;
  liberar(caller: Caller, id: number, write?: WriteOptions): Promise<Reserva>;
  extender(caller: Caller, id: number, expiraEn: Date, write?: WriteOptions): Promise<Reserva>;
}

export function reservaFromProto(r: ReservaProto): Reserva {
  return {
    id: r.id,
    referencia: r.referencia,
    estado: required(ESTADO_RESERVA_NAMES.name(r.estado), 'reserva.estado'),
    expiraEn: formatLocalUtc(required(r.expiraEn, 'reserva.expiraEn')),
    lineas: r.lineas.map((l) => ({ ...l })),
    version: r.version,
    usuario: r.usuario,
    comentario: r.comentario ?? null,
    fechaCreacion: formatLocalUtc(required(r.fechaCreacion, 'reserva.fechaCreacion')),
    fechaActualizacion: formatLocalUtc(required(r.fechaActualizacion, 'reserva.fechaActualizacion')),
  };
}

/**
 * Error data are flat on the wire: STOCK_INSUFICIENTE's per-line figures travel as JSON text (`lineas`), answered as a
 * list.
 */
async function conLineas<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof FailedPreconditionError && typeof err.datos.lineas === 'string') {
      const datos = {
        ...err.datos,
        lineas: JSON.parse(err.datos.lineas) as unknown,
      } as unknown as FailedPreconditionError['datos'];
      throw new FailedPreconditionError(err.message, { reason: err.reason, datos });
    }
    throw err;
  }
}

/** Calls go through bodega-svc's UnaryCall: its channel, breaker and deadline. */
export function createReservaClient(client: ReservaServiceClient, call: UnaryCall): ReservaClient {
  return {
    crear: (caller, input, write = {}) =>
      conLineas(async () => {
        const message = CrearReservaRequest.fromPartial({
          ...input,
          comentario: input.comentario ?? undefined,
          requestId: safeWriteFields(write).requestId,
        });
        const res = await call<CrearReservaResponse>(
          caller,
          (md, o, cb) => client.crearReserva(message, md, o, cb),
          write.onReplay,
        );
        return reservaFromProto(required(res.reserva, 'reserva'));
      }),
    async get(caller, id) {
      const res = await call<GetReservaResponse>(caller, (md, o, cb) => client.getReserva({ id }, md, o, cb));
      return reservaFromProto(required(res.reserva, 'reserva'));
    },
    async list(caller, filter) {
      const message = ListReservasRequest.fromPartial({
        pageSize: filter.pageSize,
        pageToken: filter.pageToken ?? '',
        referencia: filter.referencia,
        estado: filter.estado === undefined ? undefined : ESTADO_RESERVA_NAMES.value(filter.estado),
        bodegaId: filter.bodegaId,
        productoId: filter.productoId,
      });
      const res = await call<ListReservasResponse>(caller, (md, o, cb) => client.listReservas(message, md, o, cb));
      return { reservas: res.reservas.map(reservaFromProto), nextPageToken: res.nextPageToken };
    },
    async consumir(caller, id, input, write = {}) {
      const message = ConsumirReservaRequest.fromPartial({
        id,
        lineas: input.lineas ?? [],
        liberarResto: input.liberarResto ?? false,
        comentario: input.comentario ?? undefined,
        ...safeWriteFields(write),
      });
      const res = await call<ConsumirReservaResponse>(
        caller,
        (md, o, cb) => client.consumirReserva(message, md, o, cb),
        write.onReplay,
      );
      return { reserva: reservaFromProto(required(res.reserva, 'reserva')), operacionId: res.operacionId ?? null };
    },
    async liberar(caller, id, write = {}) {
      const message = LiberarReservaRequest.fromPartial({ id, ...safeWriteFields(write) });
      const res = await call<LiberarReservaResponse>(
        caller,
        (md, o, cb) => client.liberarReserva(message, md, o, cb),
        write.onReplay,
      );
      return reservaFromProto(required(res.reserva, 'reserva'));
    },
    async extender(caller, id, expiraEn, write = {}) {
      const message = ExtenderReservaRequest.fromPartial({ id, expiraEn, ...safeWriteFields(write) });
      const res = await call<ExtenderReservaResponse>(
        caller,
        (md, o, cb) => client.extenderReserva(message, md, o, cb),
        write.onReplay,
      );
      return reservaFromProto(required(res.reserva, 'reserva'));
    },
  };
}
