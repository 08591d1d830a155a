import type { ErrorRequestHandler } from 'express';
import { z } from 'zod';
import {
  ID_MENSAJES,
  integerFromNumberText,
  InvalidArgumentError,
  MAX_INT32,
  MAX_TEXTO,
  MAX_UNSIGNED_INT,
  parseFields,
} from '@inventario/platform';
import { TIPOS_MOVIMIENTO, type CursorPage, type MovimientoFilter } from '@inventario/contract';
import type { ProductoFilter } from '../inventario/model';
import { clientStatusOf } from './http-errors';
import { MENSAJES } from './rest-fields';

/** The services' page size. */
export const MAX_LIMIT = 1000;

export const PARAM_MENSAJES = {
  repetido: 'debe indicarse una sola vez',
  entero: 'debe ser un número entero',
  booleano: 'debe ser true o false',
  desconocido: (admitidos: readonly string[]) => `no es un parámetro admitido (admitidos: ${admitidos.join(', ')})`,
  idMalCodificado: `${ID_MENSAJES.positivo} (la ruta contiene una secuencia % mal formada)`,
  fecha: 'debe ser una fecha UTC YYYY-MM-DD o YYYY-MM-DDTHH:mm:ss (con Z opcional)',
  tipo: `debe ser uno de ${TIPOS_MOVIMIENTO.join(', ')}`,
  cursor: 'debe ser el siguienteCursor de la página anterior',
} as const;

export function queryText() {
  return z.string({ error: (issue) => (Array.isArray(issue.input) ? PARAM_MENSAJES.repetido : MENSAJES.texto) });
}

export function queryInteger(min: number, max: number) {
  return queryText()
    .regex(/^-?\d{1,15}$/, PARAM_MENSAJES.entero)
    .transform((text, ctx) => {
      const result = integerFromNumberText(text, min, max);
      if ('ok' in result) return result.ok;
      ctx.addIssue({ code: 'custom', message: result.mensaje });
      return z.NEVER;
    })
    .meta({ type: 'integer', minimum: min, maximum: max });
}

/** An unknown parameter (a typo such as `bodegaid`) is a 400: ignored, the unfiltered list would pass as filtered. */
export function parseQuery<S extends z.ZodRawShape>(shape: S, query: unknown): z.output<z.ZodObject<S>> {
  return parseFields(z.strictObject(shape), query, 'query', PARAM_MENSAJES.desconocido(Object.keys(shape)));
}

/** docs/contract.md §2.4. */
export const productoFilterShape = {
  limit: queryInteger(1, MAX_LIMIT).optional(),
  offset: queryInteger(0, MAX_INT32).optional(),
  bodegaId: queryInteger(1, MAX_UNSIGNED_INT).optional(),
  q: queryText()
    .refine((text) => [...text].length <= MAX_TEXTO, MENSAJES.maxCaracteres(MAX_TEXTO))
    .meta({ type: 'string', maxLength: MAX_TEXTO })
    .optional(),
};

export function parseProductoFilter(query: unknown): ProductoFilter {
  const { limit, offset, bodegaId, q } = parseQuery(productoFilterShape, query);
  const filter: ProductoFilter = {};
  if (limit !== undefined) filter.limit = limit;
  if (offset !== undefined) filter.offset = offset;
  if (bodegaId !== undefined) filter.bodegaIds = [bodegaId];
  if (q !== undefined && q !== '') filter.q = q;
  return filter;
}

export function parsePathId(text: string | undefined, campo = 'id'): number {
  if (text === undefined || !/^\d{1,15}$/.test(text)) throw InvalidArgumentError.field(campo, ID_MENSAJES.positivo);
  const result = integerFromNumberText(text, 1, MAX_UNSIGNED_INT);
  if ('mensaje' in result) throw InvalidArgumentError.field(campo, result.mensaje);
  return result.ok;
}

const FECHA = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})Z?)?$/;

/** Date.UTC rolls 2026-02-30 over to March: a real instant reads back. */
function fechaOf(text: string): Date | undefined {
  const match = FECHA.exec(text);
  if (!match) return undefined;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = match
    .slice(1)
    .map((part) => Number(part ?? 0));
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const exact =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second;
  return exact ? date : undefined;
}

function queryFecha() {
  return queryText()
    .transform((text, ctx) => {
      const date = fechaOf(text);
      if (date) return date;
      ctx.addIssue({ code: 'custom', message: PARAM_MENSAJES.fecha });
      return z.NEVER;
    })
    .meta({ type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}Z?)?$' });
}

/** docs/contract.md §10.2. */
export const movimientoFilterShape = {
  bodegaId: queryInteger(1, MAX_UNSIGNED_INT).optional(),
  productoId: queryInteger(1, MAX_UNSIGNED_INT).optional(),
  tipo: z
    .enum(TIPOS_MOVIMIENTO, {
      error: (issue) => (Array.isArray(issue.input) ? PARAM_MENSAJES.repetido : PARAM_MENSAJES.tipo),
    })
    .optional(),
  desde: queryFecha().optional(),
  hasta: queryFecha().optional(),
  limit: queryInteger(1, MAX_LIMIT).optional(),
  // The services' page tokens are short base64url text; anything longer or empty cannot be one.
  cursor: queryText()
    .regex(/^[\x21-\x7e]{1,1024}$/, PARAM_MENSAJES.cursor)
    .optional(),
};

export function parseMovimientoQuery(query: unknown): { filter: MovimientoFilter; page: CursorPage } {
  const { bodegaId, productoId, tipo, desde, hasta, limit, cursor } = parseQuery(movimientoFilterShape, query);
  const filter: MovimientoFilter = {};
  if (bodegaId !== undefined) filter.bodegaId = bodegaId;
  if (productoId !== undefined) filter.productoId = productoId;
  if (tipo !== undefined) filter.tipo = tipo;
  if (desde !== undefined) filter.desde = desde;
  if (hasta !== undefined) filter.hasta = hasta;
  const page: CursorPage = {};
  if (limit !== undefined) page.limit = limit;
  if (cursor !== undefined) page.cursor = cursor;
  return { filter, page };
}

/** docs/contract.md §2.4. */
export const deleteBodegaShape = {
  force: z
    .enum(['true', 'false'], {
      error: (issue) => (Array.isArray(issue.input) ? PARAM_MENSAJES.repetido : PARAM_MENSAJES.booleano),
    })
    .meta({ type: 'boolean', default: false })
    .optional(),
};

export function parseForce(query: unknown): boolean {
  return parseQuery(deleteBodegaShape, query).force === 'true';
}

/**
 * A bad `%` escape in a path (`/productos/%zz`) fails the router's decoding before any route runs:
 * a malformed id like any other, so a 400 naming `id`. Mount it after the routes.
 */
export const malformedPathId: ErrorRequestHandler = (err, _req, _res, next) => {
  next(
    err instanceof URIError && clientStatusOf(err) === 400
      ? InvalidArgumentError.field('id', PARAM_MENSAJES.idMalCodificado)
      : err,
  );
};
