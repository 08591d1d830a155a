import { z } from 'zod';
import {
  entero,
  FailedPreconditionError,
  FIELD_MENSAJES,
  MAX_INT32,
  MAX_TEXTO,
  nombre,
  parseChanges,
  parseFields,
  PROTO_NUMBER,
  requerido,
  textoCorto,
} from '@inventario/platform';

/**
 * Warehouse rules, free of I/O. Every write goes through these functions, so
 * the store only ever sees valid values; violations name the public
 * (camelCase) field and carry a Spanish message fit for the end user.
 */

/** A stored warehouse. */
export interface Bodega {
  id: number;
  nombre: string;
  /** null when the warehouse has no recorded location. */
  ubicacion: string | null;
  /** Capacity in units. */
  capacidad: number;
  fechaCreacion: Date;
  fechaActualizacion: Date;
  /** 1 at creation, +1 on each update: what a conditional write compares (REST ETag). */
  version: number;
  /** Units held in all (the sum of its stock levels); stock writes keep it, never above capacidad. */
  ocupacion: number;
}

/** The writable fields of a warehouse, validated. */
export interface NewBodega {
  nombre: string;
  ubicacion: string | null;
  capacidad: number;
}

/** Writable fields as they arrive from a caller, before validation. */
export interface BodegaDraft {
  nombre?: string | undefined;
  ubicacion?: string | null | undefined;
  capacidad?: number | undefined;
}

/** A partial update: only the present keys change. */
export type BodegaChanges = Partial<NewBodega>;

/** VARCHAR(255): the column limit, counted in characters as MySQL does (platform's field rules). */
export { MAX_TEXTO };
/** `capacidad` is an INT column and an int32 on the wire. */
export const MAX_CAPACIDAD = MAX_INT32;

/**
 * nombre names the warehouse to people, so a blank name is no name; it is
 * trimmed (the unique index ignores trailing spaces anyway, and "Central "
 * must not look different from "Central"). A blank or absent ubicacion means
 * "no recorded location", stored as null: one representation, not two.
 * capacidad is a count of units, never defaulted here.
 */
const CAMPOS = z.object({
  nombre: requerido(nombre()),
  ubicacion: textoCorto()
    .nullish()
    .transform((value) => value || null),
  capacidad: entero(PROTO_NUMBER, 0, MAX_CAPACIDAD, FIELD_MENSAJES.mayorOIgualQueCero),
});

/** Validates a new warehouse; throws InvalidArgumentError naming every bad field. */
export const validateNewBodega = (input: BodegaDraft): NewBodega => parseFields(CAMPOS, input);

/**
 * Validates the fields a partial update names (a key that is present is
 * being set; `ubicacion: null` clears it). Throws InvalidArgumentError naming
 * every bad field. Whether an empty change set is acceptable is the caller's
 * call (the gRPC edge rejects an empty update mask).
 */
export const validateBodegaChanges = (cambios: BodegaDraft): BodegaChanges => parseChanges(CAMPOS, cambios);

/**
 * A write of a warehouse marked as being deleted (a forced delete under
 * way, docs/contract.md §2.7): refused, so its version and stock stay as
 * the delete found them until it completes.
 */
export function bodegaEliminandose(bodegaId: number): FailedPreconditionError {
  return new FailedPreconditionError(`la bodega ${bodegaId} se está eliminando; no admite cambios`, {
    reason: 'BODEGA_ELIMINANDOSE',
    datos: { bodegaId },
  });
}
