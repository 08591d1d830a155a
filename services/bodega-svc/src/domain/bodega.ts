import { caracteres, FIELD_MENSAJES, InvalidArgumentError, MAX_INT32, MAX_TEXTO, type FieldViolation } from '@inventario/platform';

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
const longitud = caracteres;
const M = FIELD_MENSAJES;

/**
 * nombre is required and names the warehouse to people, so a blank name is
 * no name. Surrounding whitespace is trimmed: the unique index ignores
 * trailing spaces anyway, and "Central " must not look different from "Central".
 */
function nombreOf(nombre: string | undefined, out: FieldViolation[]): string {
  if (nombre === undefined || nombre === '') {
    out.push({ campo: 'nombre', mensaje: M.obligatorio });
    return '';
  }
  const limpio = nombre.trim();
  if (limpio === '') out.push({ campo: 'nombre', mensaje: M.enBlanco });
  else if (longitud(limpio) > MAX_TEXTO) out.push({ campo: 'nombre', mensaje: M.maxCaracteres(MAX_TEXTO) });
  return limpio;
}

/**
 * ubicacion is optional. Blank and absent mean the same thing ("no recorded
 * location"), so both are stored as null: one representation, not two.
 */
function ubicacionOf(ubicacion: string | null | undefined, out: FieldViolation[]): string | null {
  if (ubicacion === undefined || ubicacion === null) return null;
  const limpia = ubicacion.trim();
  if (limpia === '') return null;
  if (longitud(limpia) > MAX_TEXTO) out.push({ campo: 'ubicacion', mensaje: M.maxCaracteres(MAX_TEXTO) });
  return limpia;
}

/** capacidad is a count of units: a whole number, never negative, never defaulted here. */
function capacidadOf(capacidad: number | undefined, out: FieldViolation[]): number {
  if (capacidad === undefined) out.push({ campo: 'capacidad', mensaje: M.obligatorio });
  else if (!Number.isInteger(capacidad)) out.push({ campo: 'capacidad', mensaje: M.entero });
  else if (capacidad < 0) out.push({ campo: 'capacidad', mensaje: M.mayorOIgualQueCero });
  else if (capacidad > MAX_CAPACIDAD) out.push({ campo: 'capacidad', mensaje: M.maximo(MAX_CAPACIDAD) });
  return capacidad ?? 0;
}

/** Validates a new warehouse; throws InvalidArgumentError naming every bad field. */
export function validateNewBodega(input: BodegaDraft): NewBodega {
  const violations: FieldViolation[] = [];
  const datos: NewBodega = {
    nombre: nombreOf(input.nombre, violations),
    ubicacion: ubicacionOf(input.ubicacion, violations),
    capacidad: capacidadOf(input.capacidad, violations),
  };
  if (violations.length > 0) throw new InvalidArgumentError(violations);
  return datos;
}

/**
 * Validates the fields a partial update names (a key that is present is
 * being set; `ubicacion: null` clears it). Throws InvalidArgumentError naming
 * every bad field. Whether an empty change set is acceptable is the caller's
 * call (the gRPC edge rejects an empty update mask).
 */
export function validateBodegaChanges(cambios: BodegaDraft): BodegaChanges {
  const violations: FieldViolation[] = [];
  const out: BodegaChanges = {};
  if ('nombre' in cambios) out.nombre = nombreOf(cambios.nombre, violations);
  if ('ubicacion' in cambios) out.ubicacion = ubicacionOf(cambios.ubicacion, violations);
  if ('capacidad' in cambios) out.capacidad = capacidadOf(cambios.capacidad, violations);
  if (violations.length > 0) throw new InvalidArgumentError(violations);
  return out;
}
