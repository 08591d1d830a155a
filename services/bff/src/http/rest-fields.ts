import type { z } from 'zod';
import { isLosslessNumber } from 'lossless-json';
import * as fields from '@inventario/platform';
import { FIELD_MENSAJES, InvalidArgumentError, parseFields, type NumberReader } from '@inventario/platform';

/**
 * REST body fields (platform's blocks) from lossless-json: a number is a LosslessNumber with its exact text; a string
 * for a number is refused, not coerced.
 */

export const MENSAJES = {
  ...FIELD_MENSAJES,
  noNulo: 'no puede ser null: omita el campo para conservar su valor',
  cuerpoAusente: 'es obligatorio: envíe un objeto JSON',
  cuerpoNoObjeto: 'debe ser un objeto JSON',
} as const;

/** Fields the REST forms return but never take: ignored in a body (a client may echo a resource). */
export const READ_ONLY_FIELDS = ['id', 'fechaCreacion', 'fechaActualizacion', 'version'] as const;

const JSON_NUMBER: NumberReader = { read: (v) => (isLosslessNumber(v) ? v.value : undefined), tipo: MENSAJES.numero };
/** A whole JSON number within [min, max], read exactly. */
export const entero = (min: number, max: number) => fields.entero(JSON_NUMBER, min, max);
export const precio = () => fields.precio(JSON_NUMBER);
/** A field a PUT may leave out but not set to null. */
export const opcionalNoNulo = <T extends z.ZodType>(schema: T) => fields.opcionalNoNulo(schema, MENSAJES.noNulo);

/**
 * A JSON body parsed by strict `schema`: an object, its read-only fields dropped first; an unknown field is a 400
 * naming it, not a key ignored.
 */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  readOnly: readonly string[] = READ_ONLY_FIELDS,
): z.output<S> {
  if (body === undefined) throw InvalidArgumentError.field('cuerpo', MENSAJES.cuerpoAusente);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw InvalidArgumentError.field('cuerpo', MENSAJES.cuerpoNoObjeto);
  const writable: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of readOnly) delete writable[field];
  return parseFields(schema, writable);
}
