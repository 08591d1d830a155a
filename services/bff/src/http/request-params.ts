import { z } from 'zod';
import { ID_MENSAJES, InvalidArgumentError, MAX_UNSIGNED_INT } from '@inventario/platform';
import type { ProductoFilter } from '../inventario/model';
import { integerFromNumberText, MAX_INT32 } from './json-number';
import { MAX_TEXTO, MENSAJES } from './rest-fields';
import { parseWith } from './validate';

/** Largest `limit` of a product list: the services' page size. */
export const MAX_LIMIT = 1000;

const PARAM_MENSAJES = {
  repetido: 'debe indicarse una sola vez',
  entero: 'debe ser un número entero',
  booleano: 'debe ser true o false',
} as const;

/** A query parameter as a string, or the reason it is not one (repeated, nested). */
function queryText() {
  return z.string({ error: (issue) => (Array.isArray(issue.input) ? PARAM_MENSAJES.repetido : MENSAJES.texto) });
}

/** A whole number in plain digits within [min, max]. */
function queryInteger(min: number, max: number) {
  return queryText()
    .regex(/^-?\d{1,15}$/, PARAM_MENSAJES.entero)
    .transform((text, ctx) => {
      const result = integerFromNumberText(text, min, max);
      if ('ok' in result) return result.ok;
      ctx.addIssue({ code: 'custom', message: result.mensaje });
      return z.NEVER;
    });
}

/** GET /api/productos: optional limit, offset, bodegaId and q; unknown parameters are ignored. */
const productoFilterSchema = z.object({
  limit: queryInteger(1, MAX_LIMIT).optional(),
  offset: queryInteger(0, MAX_INT32).optional(),
  bodegaId: queryInteger(1, MAX_UNSIGNED_INT).optional(),
  q: queryText()
    .refine((text) => [...text].length <= MAX_TEXTO, MENSAJES.maxCaracteres(MAX_TEXTO))
    .optional(),
});

export function parseProductoFilter(query: unknown): ProductoFilter {
  const { limit, offset, bodegaId, q } = parseWith(productoFilterSchema, query, 'query');
  const filter: ProductoFilter = {};
  if (limit !== undefined) filter.limit = limit;
  if (offset !== undefined) filter.offset = offset;
  if (bodegaId !== undefined) filter.bodegaIds = [bodegaId];
  if (q !== undefined && q !== '') filter.q = q;
  return filter;
}

/** An id in a path: a positive whole number within INT UNSIGNED, else InvalidArgumentError naming `id`. */
export function parsePathId(text: string | undefined): number {
  if (text === undefined || !/^\d{1,15}$/.test(text)) throw InvalidArgumentError.field('id', ID_MENSAJES.positivo);
  const result = integerFromNumberText(text, 1, MAX_UNSIGNED_INT);
  if ('mensaje' in result) throw InvalidArgumentError.field('id', result.mensaje);
  return result.ok;
}

/** `force` of DELETE /api/bodegas/{id}: absent means false; only `true` and `false` are accepted. */
export function parseForce(value: unknown): boolean {
  if (value === undefined) return false;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw InvalidArgumentError.field('force', Array.isArray(value) ? PARAM_MENSAJES.repetido : PARAM_MENSAJES.booleano);
}
