import { z } from 'zod';
import { isLosslessNumber, type LosslessNumber } from 'lossless-json';
import { caracteres, FIELD_MENSAJES, MAX_DESCRIPCION_BYTES, MAX_TEXTO, PRECIO } from '@inventario/platform';
import { isWellFormedText, TEXTO_MENSAJES } from '../inventario/texto';
import { integerFromNumberText, precioFromNumberText, type Checked } from './json-number';

/**
 * zod field schemas of the REST bodies, read from lossless-json values
 * (numbers arrive as LosslessNumber, their exact text). Messages are the
 * services' (platform's field rules), so REST and gRPC name a problem alike.
 * A string where a number is expected is rejected, never coerced. Each field
 * carries, as zod metadata, the JSON Schema the OpenAPI document shows for it
 * (openapi/schemas.ts): a rule zod cannot express (exact number text, code
 * point counts) is stated there once, beside the check.
 */

export const MENSAJES = {
  ...FIELD_MENSAJES,
  noNulo: 'no puede ser null: omita el campo para conservar su valor',
} as const;

export { MAX_DESCRIPCION_BYTES, MAX_TEXTO };

const absent = (input: unknown) => input === undefined || input === null;

/** A rule's outcome (json-number.ts) as a zod transform: the value, or an issue with the rule's mensaje. */
export function fromChecked<I, T>(check: (input: I) => Checked<T>) {
  return (input: I, ctx: z.RefinementCtx): T => {
    const result = check(input);
    if ('mensaje' in result) {
      ctx.addIssue({ code: 'custom', message: result.mensaje });
      return z.NEVER;
    }
    return result.ok;
  };
}

function jsonNumber() {
  return z.custom<LosslessNumber>(isLosslessNumber, {
    error: (issue) => (absent(issue.input) ? MENSAJES.obligatorio : MENSAJES.numero),
  });
}

/** A whole JSON number within [min, max], read exactly. */
export function entero(min: number, max: number) {
  return jsonNumber()
    .transform(fromChecked((n: LosslessNumber) => integerFromNumberText(n.value, min, max)))
    .meta({ type: 'integer', minimum: min, maximum: max });
}

/** A price as exact decimal text (`"19.90"`): never a binary float, never rounded. */
export function precio() {
  return jsonNumber()
    .transform(fromChecked((n: LosslessNumber) => precioFromNumberText(n.value)))
    .meta({
      type: 'number',
      minimum: 0,
      maximum: Number(PRECIO.maximo),
      multipleOf: 0.01,
      description: 'Precio con a lo sumo 2 decimales (DECIMAL(10,2)); un valor con más decimales se rechaza, nunca se redondea.',
      examples: [19.9],
    });
}

/** A JSON string of well-formed Unicode (see inventario/texto.ts), checked before any other rule. */
function texto() {
  return z
    .string({ error: (issue) => (absent(issue.input) ? MENSAJES.obligatorio : MENSAJES.texto) })
    .refine(isWellFormedText, { message: TEXTO_MENSAJES.malFormado, abort: true });
}

/** Text of at most `max` characters (code points), kept as sent (a comentario). */
export function textoHasta(max: number) {
  return texto()
    .refine((value) => caracteres(value) <= max, MENSAJES.maxCaracteres(max))
    .meta({ type: 'string', maxLength: max });
}

/** A required name: trimmed, not blank, at most 255 characters. */
export function nombre() {
  return texto()
    .trim()
    .min(1, MENSAJES.enBlanco)
    .refine((value) => caracteres(value) <= MAX_TEXTO, MENSAJES.maxCaracteres(MAX_TEXTO))
    .meta({
      type: 'string',
      minLength: 1,
      maxLength: MAX_TEXTO,
      pattern: '\\S',
      description: 'Se eliminan los espacios de los extremos; no puede quedar en blanco.',
    });
}

/** Optional short text (e.g. ubicacion): at most 255 characters. */
export function textoCorto() {
  return texto()
    .trim()
    .refine((value) => caracteres(value) <= MAX_TEXTO, MENSAJES.maxCaracteres(MAX_TEXTO))
    .meta({ type: 'string', maxLength: MAX_TEXTO });
}

/** Free text (descripcion): at most 65535 bytes of UTF-8. */
export function textoLibre() {
  return texto()
    .refine((value) => Buffer.byteLength(value, 'utf8') <= MAX_DESCRIPCION_BYTES, MENSAJES.maxBytes(MAX_DESCRIPCION_BYTES))
    .meta({ type: 'string' });
}

/**
 * A field a PUT may leave out but not set to null (its column is NOT NULL):
 * absent keeps the value, null is refused as such rather than reported as
 * "es obligatorio", which would read as if the field had to be sent.
 */
export function opcionalNoNulo<T extends z.ZodType>(schema: T, mensaje: string = MENSAJES.noNulo) {
  // z.any(), not z.unknown(): the pipe hands the value on to `schema` unchanged, whatever its input type.
  return z
    .any()
    .refine((value) => value !== null, { message: mensaje, abort: true })
    .pipe(schema)
    .meta(schema.meta() ?? {})
    .optional();
}
