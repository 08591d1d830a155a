import { z } from 'zod';
import { InvalidArgumentError, type FieldViolation } from './errors';
import {
  caracteres,
  FIELD_MENSAJES as M,
  isWellFormedText,
  MAX_DESCRIPCION_BYTES,
  MAX_TEXTO,
  PRECIO,
} from './field-rules';
import { integerFromNumberText, precioFromNumberText, type Checked } from './number-text';
import { checkPositiveId } from './positive-id';

/**
 * The zod building blocks of every write's fields (field-rules.ts's limits and messages), shared by REST, GraphQL and
 * gRPC so a rule reads the same wherever it
 * refuses. A block's metadata is the JSON Schema the OpenAPI document shows for it where zod cannot say the rule.
 */

const absent = (input: unknown) => input === undefined || input === null;

/** A rule's outcome as a zod transform: the value, or an issue with the rule's mensaje. */
export function fromChecked<I, T>(check: (input: I) => Checked<T>) {
  return (input: I, ctx: z.RefinementCtx): T => {
    const result = check(input);
    if ('ok' in result) return result.ok;
    ctx.addIssue({ code: 'custom', message: result.mensaje });
    return z.NEVER;
  };
}

/**
 * How a transport hands over a number: its exact text (undefined when the value is no number), and the word for that
 * refusal.
 */
export interface NumberReader {
  read: (value: unknown) => string | undefined;
  tipo: string;
}
/** A protobuf number (the services' integers). */
export const PROTO_NUMBER: NumberReader = {
  read: (v) => (typeof v === 'number' ? String(v) : undefined),
  tipo: M.entero,
};
/** Decimal text (producto-svc's precio; a GraphQL number's text). */
export const NUMBER_TEXT: NumberReader = { read: (v) => (typeof v === 'string' ? v : undefined), tipo: M.decimal };

const numberText = ({ read, tipo }: NumberReader) =>
  z.any().transform((value, ctx) => {
    const text = read(value);
    if (text !== undefined) return text;
    ctx.addIssue({ code: 'custom', message: absent(value) ? M.obligatorio : tipo });
    return z.NEVER;
  });

/** A whole number within [min, max], read exactly; `debajo` says why one below `min` is refused. */
export const entero = (reader: NumberReader, min: number, max: number, debajo?: string) =>
  numberText(reader)
    .transform(fromChecked((text: string) => integerFromNumberText(text, min, max, debajo)))
    .meta({ type: 'integer', minimum: min, maximum: max });

/** A price as exact decimal text, canonical with two decimals (`"19.90"`): never a binary float, never rounded. */
export const precio = (reader: NumberReader) =>
  numberText(reader)
    .transform(fromChecked(precioFromNumberText))
    // No `multipleOf: 0.01`: standard JSON Schema validators (ajv with its defaults, among others) divide in binary
    // floating
    // point and so refuse valid prices such as 19.9 (19.9 / 0.01 = 1989.9999999999998). No keyword of JSON Schema tests
    // a
    // number's decimals exactly, so the rule is stated in the description and enforced by the server, which reads the
    // number's text exactly (docs/decisions.md, "Money in the OpenAPI document").
    .meta({
      type: 'number',
      minimum: 0,
      maximum: Number(PRECIO.maximo),
      description:
        'Precio con a lo sumo 2 decimales (DECIMAL(10,2)), p. ej. 19.9 o 19.90; uno con más decimales (19.999) se ' +
        'rechaza con 400, nunca se redondea. ' +
        'El esquema no lleva multipleOf 0.01: los validadores de JSON Schema lo evalúan en coma flotante binaria y ' +
        'rechazarían precios válidos como 19.9.',
      examples: [19.9],
    });

/** A positive INT UNSIGNED id given as a number (a gRPC request's). */
export const idNumero = () => z.any().transform(fromChecked(checkPositiveId));

/** A required field of a gRPC request: proto3 sends '' for a string left out, which is then "es obligatorio". */
export const requerido = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema);

/** A nullable field: absent is null. */
export const anulable = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? null);

/** A string of well-formed Unicode, checked before any other rule. */
export const texto = () =>
  z
    .string({ error: (issue) => (absent(issue.input) ? M.obligatorio : M.texto) })
    .refine(isWellFormedText, { message: M.malFormado, abort: true });

/** Text of at most `max` characters (code points). */
export const textoHasta = (max: number, base = texto()) =>
  base.refine((value) => caracteres(value) <= max, M.maxCaracteres(max)).meta({ type: 'string', maxLength: max });

/** A name: trimmed, then not blank and at most 255 characters. */
export const nombre = () =>
  textoHasta(MAX_TEXTO, texto().trim().min(1, M.enBlanco)).meta({
    type: 'string',
    minLength: 1,
    maxLength: MAX_TEXTO,
    pattern: '\\S',
    description: 'Se eliminan los espacios de los extremos; no puede quedar en blanco.',
  });

/** Optional short text (ubicacion): trimmed, at most 255 characters. */
export const textoCorto = () => textoHasta(MAX_TEXTO, texto().trim());

/** Free text (descripcion): at most 65535 bytes of UTF-8. */
export const textoLibre = () =>
  texto()
    .refine((value) => Buffer.byteLength(value, 'utf8') <= MAX_DESCRIPCION_BYTES, M.maxBytes(MAX_DESCRIPCION_BYTES))
    .meta({ type: 'string' });

/**
 * A field an update may omit but not set to null (a NOT NULL column): null is refused as such, not as "es obligatorio"
 * (which reads as "must be sent").
 */
export function opcionalNoNulo<T extends z.ZodType>(schema: T, mensaje: string) {
  // z.any(), not z.unknown(): the pipe hands the value on to `schema` unchanged, whatever its input type.
  return z
    .any()
    .refine((value) => value !== null, { message: mensaje, abort: true })
    .pipe(schema)
    .meta(schema.meta() ?? {})
    .optional();
}

/**
 * Every zod issue as a field violation, one per field (its first problem), in the order found; `root` names an issue
 * about the whole value.
 */
export function violationsOf(
  issues: readonly z.core.$ZodIssue[],
  root: string,
  desconocido = 'no es un campo admitido',
): FieldViolation[] {
  const out = new Map<string, string>();
  for (const issue of issues) {
    const campos = issue.code === 'unrecognized_keys' ? issue.keys : [issue.path.map(String).join('.') || root];
    for (const campo of campos)
      if (!out.has(campo)) out.set(campo, issue.code === 'unrecognized_keys' ? desconocido : issue.message);
  }
  return [...out].map(([campo, mensaje]) => ({ campo, mensaje }));
}

/** `value` parsed by `schema`, or InvalidArgumentError naming every offending field. */
export function parseFields<S extends z.ZodType>(
  schema: S,
  value: unknown,
  root = 'cuerpo',
  desconocido?: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new InvalidArgumentError(violationsOf(result.error.issues, root, desconocido));
}

/**
 * A partial update's fields: only the keys present are checked and returned, a present key left undefined as null (a
 * masked field unset).
 */
export function parseChanges<S extends z.ZodObject>(schema: S, draft: object): Partial<z.output<S>> {
  return parseFields(
    schema.partial(),
    Object.fromEntries(Object.entries(draft).map(([key, value]) => [key, value ?? null])),
  ) as Partial<z.output<S>>;
}

/**
 * Runs every check; if any throw InvalidArgumentError, throws one with all their violations, so a request names every
 * bad part at once.
 */
export function validateFields<T extends Record<string, () => unknown>>(
  checks: T,
): { [K in keyof T]: ReturnType<T[K]> } {
  const results: Record<string, unknown> = {};
  const violations: FieldViolation[] = [];
  for (const [key, check] of Object.entries(checks)) {
    try {
      results[key] = check();
    } catch (err) {
      if (!(err instanceof InvalidArgumentError)) throw err;
      violations.push(...err.violations);
    }
  }
  if (violations.length > 0) throw new InvalidArgumentError(violations);
  // Every key was filled by its own check.
  return results as { [K in keyof T]: ReturnType<T[K]> };
}
