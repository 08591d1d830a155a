import { InvalidArgumentError } from './errors';

/** Ids are INT UNSIGNED AUTO_INCREMENT columns; 0 is refused because proto3 sends it for a field left out. */
export const MAX_UNSIGNED_INT = 4_294_967_295;

/** Distinct ids a list filter may name: bounds the SQL `IN (...)` list as MAX_PAGE_SIZE bounds the page. */
export const MAX_FILTER_IDS = 1000;

export const ID_MENSAJES = {
  positivo: 'debe ser un entero positivo',
  maximo: `no puede superar ${MAX_UNSIGNED_INT}`,
  demasiados: `admite como máximo ${MAX_FILTER_IDS} ids distintos`,
} as const;

/** For rule tables that collect every violation before throwing. */
export function checkPositiveId(value: unknown): { ok: number } | { mensaje: string } {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) return { mensaje: ID_MENSAJES.positivo };
  if (value > MAX_UNSIGNED_INT) return { mensaje: ID_MENSAJES.maximo };
  return { ok: value };
}

export function requirePositiveId(value: unknown, campo: string): number {
  const result = checkPositiveId(value);
  if ('mensaje' in result) throw InvalidArgumentError.field(campo, result.mensaje);
  return result.ok;
}

/** Repeats removed, first occurrence kept; an empty list means "no filter". */
export function requirePositiveIds(values: readonly unknown[], campo: string): number[] {
  const ids = new Set<number>();
  for (const value of values) ids.add(requirePositiveId(value, campo));
  if (ids.size > MAX_FILTER_IDS) throw InvalidArgumentError.field(campo, ID_MENSAJES.demasiados);
  return [...ids];
}
