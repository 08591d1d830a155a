import { FailedPreconditionError, InvalidArgumentError, MAX_INT32 } from '@inventario/platform';
import type { EstadoReserva, LineaReserva, ReservaDe } from '@inventario/contract';
import { MAX_COMENTARIO } from './existencia';

/** docs/contract.md §13; the states, a line and the reservation's shape are @inventario/contract's. */
export type { EstadoReserva, LineaReserva };

/** Instants as the database clock gives them, to the microsecond. */
export type Reserva = ReservaDe<Date>;

export interface LineaSolicitada {
  bodegaId: number;
  productoId: number;
  cantidad: number;
}

export interface NuevaReserva {
  referencia: string;
  ttlSegundos: number;
  lineas: LineaSolicitada[];
  comentario: string | null;
}

export interface ConsumoSolicitado {
  /** Empty: everything still held. */
  lineas: { lineaId: number; cantidad: number }[];
  liberarResto: boolean;
  comentario: string | null;
}

export interface LimitesReserva {
  ttlPorDefectoSegundos: number;
  ttlMaximoSegundos: number;
}

/** The defaults: 15 minutes, at most 7 days. */
export const LIMITES_RESERVA: LimitesReserva = { ttlPorDefectoSegundos: 15 * 60, ttlMaximoSegundos: 7 * 24 * 3600 };
export const MAX_LINEAS_RESERVA = 500;
export const MAX_REFERENCIA = 255;

const positivo = (v: number) => Number.isSafeInteger(v) && v > 0 && v <= MAX_INT32;

/** Every problem at once, named by field (`lineas[2].cantidad`). */
export function validateNuevaReserva(
  input: { referencia: string; ttlSegundos?: number; lineas: LineaSolicitada[]; comentario?: string },
  limites: LimitesReserva,
): NuevaReserva {
  const errores: { campo: string; mensaje: string }[] = [];
  const referencia = input.referencia.trim();
  if (referencia === '' || referencia.length > MAX_REFERENCIA)
    errores.push({ campo: 'referencia', mensaje: `debe tener entre 1 y ${MAX_REFERENCIA} caracteres` });
  const ttl =
    input.ttlSegundos === undefined || input.ttlSegundos === 0 ? limites.ttlPorDefectoSegundos : input.ttlSegundos;
  if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > limites.ttlMaximoSegundos)
    errores.push({ campo: 'ttlSegundos', mensaje: `debe ser un entero entre 1 y ${limites.ttlMaximoSegundos}` });
  if (input.lineas.length === 0 || input.lineas.length > MAX_LINEAS_RESERVA)
    errores.push({ campo: 'lineas', mensaje: `debe tener entre 1 y ${MAX_LINEAS_RESERVA} líneas` });
  input.lineas.forEach((l, i) => {
    if (!positivo(l.bodegaId)) errores.push({ campo: `lineas[${i}].bodegaId`, mensaje: 'debe ser un entero positivo' });
    if (!positivo(l.productoId))
      errores.push({ campo: `lineas[${i}].productoId`, mensaje: 'debe ser un entero positivo' });
    if (!positivo(l.cantidad))
      errores.push({ campo: `lineas[${i}].cantidad`, mensaje: 'debe ser un entero mayor que 0' });
  });
  const comentario = input.comentario === undefined || input.comentario === '' ? null : input.comentario;
  if (comentario !== null && comentario.length > MAX_COMENTARIO)
    errores.push({ campo: 'comentario', mensaje: `admite a lo sumo ${MAX_COMENTARIO} caracteres` });
  if (errores.length > 0) throw new InvalidArgumentError(errores);
  return { referencia, ttlSegundos: ttl, lineas: input.lineas, comentario };
}

/** Two lines of one level are one demand (the issue: aggregated before the check), in the levels' lock order. */
export function agregarLineas(lineas: readonly LineaSolicitada[]): LineaSolicitada[] {
  const porNivel = new Map<string, LineaSolicitada>();
  for (const l of lineas) {
    const k = `${l.bodegaId}:${l.productoId}`;
    const previa = porNivel.get(k);
    porNivel.set(k, previa ? { ...previa, cantidad: previa.cantidad + l.cantidad } : { ...l });
  }
  return [...porNivel.values()].sort((a, b) => a.bodegaId - b.bodegaId || a.productoId - b.productoId);
}

export function validateConsumo(input: {
  lineas: { lineaId: number; cantidad: number }[];
  liberarResto?: boolean;
  comentario?: string;
}): ConsumoSolicitado {
  const errores: { campo: string; mensaje: string }[] = [];
  input.lineas.forEach((l, i) => {
    if (!Number.isSafeInteger(l.lineaId) || l.lineaId <= 0)
      errores.push({ campo: `lineas[${i}].lineaId`, mensaje: 'debe ser un entero positivo' });
    if (!positivo(l.cantidad))
      errores.push({ campo: `lineas[${i}].cantidad`, mensaje: 'debe ser un entero mayor que 0' });
  });
  const comentario = input.comentario === undefined || input.comentario === '' ? null : input.comentario;
  if (comentario !== null && comentario.length > MAX_COMENTARIO)
    errores.push({ campo: 'comentario', mensaje: `admite a lo sumo ${MAX_COMENTARIO} caracteres` });
  if (errores.length > 0) throw new InvalidArgumentError(errores);
  return { lineas: input.lineas, liberarResto: input.liberarResto ?? false, comentario };
}

/** A line short of available units, as the 409 reports it. */
export interface Faltante {
  bodegaId: number;
  productoId: number;
  solicitado: number;
  disponible: number;
}

/**
 * 409 STOCK_INSUFICIENTE with `disponible` per line. The first line's figures are the body's, as
 * for a stock exit; `lineas` is the JSON of every short line (error data are flat; the BFF expands it).
 */
export function reservaInsuficiente(faltantes: readonly Faltante[]): FailedPreconditionError {
  const [f] = faltantes;
  const datos: Record<string, number | string | null> = {
    bodegaId: f!.bodegaId,
    productoId: f!.productoId,
    disponible: f!.disponible,
    solicitado: f!.solicitado,
    lineas: JSON.stringify(faltantes),
  };
  const detalle = faltantes.map(
    (x) =>
      `producto ${x.productoId} en la bodega ${x.bodegaId}: hay ${x.disponible} disponibles, se piden ${x.solicitado}`,
  );
  return new FailedPreconditionError(`stock insuficiente para reservar: ${detalle.join('; ')}`, {
    reason: 'STOCK_INSUFICIENTE',
    datos,
  });
}

export function reservaActivaExistente(referencia: string, reservaId: number): FailedPreconditionError {
  return new FailedPreconditionError(`la referencia ${referencia} ya tiene una reserva activa (${reservaId})`, {
    reason: 'RESERVA_ACTIVA_EXISTENTE',
    datos: { reservaId, referencia },
  });
}

/** The reservation is not active: the reason names its state (RESERVA_EXPIRADA, RESERVA_CONSUMIDA, ...). */
export function reservaNoActiva(id: number, estado: EstadoReserva): FailedPreconditionError {
  return new FailedPreconditionError(`la reserva ${id} está ${estado.toLowerCase()}`, {
    reason: `RESERVA_${estado}`,
    datos: { reservaId: id, estado },
  });
}

/** An unreserved exit, a transfer out or a level removal would take held units. */
export function stockReservado(
  bodegaId: number,
  productoId: number,
  disponible: number,
  reservada: number,
  solicitado: number,
): FailedPreconditionError {
  return new FailedPreconditionError(
    `la bodega ${bodegaId} tiene ${reservada} unidades reservadas del producto ${productoId}: hay ${disponible} ` +
      `disponibles, se piden ${solicitado}`,
    { reason: 'STOCK_RESERVADO', datos: { bodegaId, productoId, disponible, reservada, solicitado } },
  );
}
