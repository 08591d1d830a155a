import type { z } from 'zod';
import { isLosslessNumber } from 'lossless-json';
import * as fields from '@inventario/platform';
import { FIELD_MENSAJES, InvalidArgumentError, parseFields, type NumberReader } from '@inventario/platform';

/**
 * The REST bodies' field schemas (platform's building blocks, their rules and messages), read from lossless-json values: a number arrives as a LosslessNumber
 * holding its exact text, and a string where a number is expected is refused, never coerced.
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
 * A JSON request body parsed by `schema`: it must be an object; read-only fields (`readOnly`) are dropped first; an unknown field is refused by the (strict)
 * schema, so a typo is a 400 naming it rather than a key ignored.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, readOnly: readonly string[] = READ_ONLY_FIELDS): z.output<S> {
  if (body === undefined) throw InvalidArgumentError.field('cuerpo', MENSAJES.cuerpoAusente);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw InvalidArgumentError.field('cuerpo', MENSAJES.cuerpoNoObjeto);
  const writable: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of readOnly) delete writable[field];
  return parseFields(schema, writable);
}
