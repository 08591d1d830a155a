// The errors the stock store's commands and reads answer, each with the field or reason a client is told.

import { FailedPreconditionError, NotFoundError } from '@inventario/platform';
import type { BodegaNombrada } from './existencia-tipos';

export function bodegaNoExiste(id: number): NotFoundError {
  return new NotFoundError(`No existe la bodega con id ${id}`);
}

export const noExisteBodega = ({ campo, id }: BodegaNombrada) => ({ campo, mensaje: `no existe la bodega ${id}` });

/** The reason tells it apart from a missing warehouse; named on `productoId`, the level's field. */
export function sinExistencias(bodegaId: number, productoId: number): NotFoundError {
  return NotFoundError.campos(
    [{ campo: 'productoId', mensaje: `la bodega ${bodegaId} no tiene existencias del producto ${productoId}` }],
    'SIN_EXISTENCIAS',
  );
}

/**
 * An existing level is set only under its version, so the write cannot overwrite a movement it did not see (issue 21,
 * item 11).
 */
export function versionRequerida(bodegaId: number, productoId: number): FailedPreconditionError {
  return new FailedPreconditionError(
    `la bodega ${bodegaId} ya tiene existencias del producto ${productoId}: fijarlas requiere la versión de esa ` +
      `existencia (léala en ella), p. ej. 3`,
    { reason: 'PRECONDITION_REQUIRED' },
  );
}

export function productoEliminado(productoId: number): FailedPreconditionError {
  return new FailedPreconditionError(`el producto ${productoId} fue eliminado; su stock ya se dio de baja`, {
    reason: 'PRODUCTO_ELIMINADO',
    datos: { productoId },
  });
}

export function yaRevertida(operacionId: number): FailedPreconditionError {
  return new FailedPreconditionError(`la operación ${operacionId} ya fue revertida`, {
    reason: 'OPERACION_YA_REVERTIDA',
    datos: { operacionId },
  });
}
