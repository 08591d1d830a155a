import type { z } from 'zod';
import { InvalidArgumentError, type FieldViolation } from '@inventario/platform';
import { CUERPO } from '../inventario/inventario';

/** Fields the REST forms return but never take: ignored in a body (a client may echo a resource). */
export const READ_ONLY_FIELDS = ['id', 'fechaCreacion', 'fechaActualizacion', 'version'] as const;

export const VALIDATION_MENSAJES = {
  desconocido: 'no es un campo admitido',
  cuerpoAusente: 'es obligatorio: envíe un objeto JSON',
  cuerpoNoObjeto: 'debe ser un objeto JSON',
} as const;

/** How violationsOf names what the issues are about. */
export interface ViolationNaming {
  /** The campo of an issue about the value as a whole (default `cuerpo`). */
  root?: string;
  /** The mensaje of an unknown key (default: "no es un campo admitido"). */
  desconocido?: string;
}

/** Every zod issue as a field violation, one per field (its first problem). */
export function violationsOf(
  issues: readonly z.core.$ZodIssue[],
  { root = CUERPO, desconocido = VALIDATION_MENSAJES.desconocido }: ViolationNaming = {},
): FieldViolation[] {
  const out: FieldViolation[] = [];
  const seen = new Set<string>();
  const add = (campo: string, mensaje: string) => {
    if (seen.has(campo)) return;
    seen.add(campo);
    out.push({ campo, mensaje });
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(key, desconocido);
    } else {
      add(issue.path.map(String).join('.') || root, issue.message);
    }
  }
  return out;
}

/** `value` parsed by `schema`, or InvalidArgumentError naming every offending field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, naming?: ViolationNaming): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new InvalidArgumentError(violationsOf(result.error.issues, naming));
}

/**
 * A JSON request body parsed by `schema`: it must be an object; read-only
 * fields (`readOnly`, by default READ_ONLY_FIELDS) are dropped first; unknown fields are rejected by the (strict)
 * schema, so a typo is a 400 naming it rather than a silently ignored key.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, readOnly: readonly string[] = READ_ONLY_FIELDS): z.output<S> {
  if (body === undefined) throw InvalidArgumentError.field(CUERPO, VALIDATION_MENSAJES.cuerpoAusente);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw InvalidArgumentError.field(CUERPO, VALIDATION_MENSAJES.cuerpoNoObjeto);
  }
  const writable: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of readOnly) delete writable[field];
  return parseWith(schema, writable);
}
