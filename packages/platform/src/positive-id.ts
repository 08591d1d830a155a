import { InvalidArgumentError } from './errors';

/**
 * The id rule shared by every service: ids are INT UNSIGNED AUTO_INCREMENT
 * columns, so a valid id is a whole number from 1 to MAX_UNSIGNED_INT. 0 is
 * rejected too, because 0 is what proto3 sends when the caller left the
 * field out.
 */

/** Largest value of an INT UNSIGNED id column. */
export const MAX_UNSIGNED_INT = 4_294_967_295;

/**
 * Most ids a list filter (`ids`, `bodega_ids`) may name, counted after
 * repeats are removed: it bounds the SQL `IN (...)` list as MAX_PAGE_SIZE
 * bounds the page.
 */
export const MAX_FILTER_IDS = 1000;

export const ID_MENSAJES = {
  positivo: 'debe ser un entero positivo',
  maximo: `no puede superar ${MAX_UNSIGNED_INT}`,
  demasiados: `admite como máximo ${MAX_FILTER_IDS} ids distintos`,
} as const;

/** The id, or the reason it is not one: for rule tables that collect every violation before throwing. */
export function checkPositiveId(value: unknown): { ok: number } | { mensaje: string } {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) return { mensaje: ID_MENSAJES.positivo };
  if (value > MAX_UNSIGNED_INT) return { mensaje: ID_MENSAJES.maximo };
  return { ok: value };
}

/** A valid id, or InvalidArgumentError naming `campo`. */
export function requirePositiveId(value: unknown, campo: string): number {
  const result = checkPositiveId(value);
  if ('mensaje' in result) throw InvalidArgumentError.field(campo, result.mensaje);
  return result.ok;
}

/**
 * A list filter of ids: each a valid id, repeats removed (first occurrence
 * kept), at most MAX_FILTER_IDS of them; otherwise InvalidArgumentError
 * naming `campo`. An empty list means "no filter" and is returned as is.
 */
export function requirePositiveIds(values: readonly unknown[], campo: string): number[] {
  const ids = new Set<number>();
  for (const value of values) ids.add(requirePositiveId(value, campo));
  if (ids.size > MAX_FILTER_IDS) throw InvalidArgumentError.field(campo, ID_MENSAJES.demasiados);
  return [...ids];
}
