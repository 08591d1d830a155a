import { z } from 'zod';
import { MAX_COMENTARIO, MAX_INT32, MAX_UNSIGNED_INT, nombre, textoHasta } from '@inventario/platform';
import { ESTADOS_RESERVA, type ConsumoInput, type ReservaFilter, type ReservaInput } from '../reservas/model';
import { MAX_LIMIT, PARAM_MENSAJES, parseQuery, queryInteger, queryText } from './request-params';
import { entero, parseBody } from './rest-fields';

/**
 * The reservation routes' bodies and parameters (docs/contract.md §13.2). Field formats only; the rules are
 * bodega-svc's.
 */

const id = () => entero(1, MAX_UNSIGNED_INT);
const comentario = () =>
  textoHasta(MAX_COMENTARIO).nullish().meta({ description: 'Texto libre, a lo sumo 500 caracteres.' });

/** POST /api/reservas. */
export const reservaSchema = z
  .strictObject({
    referencia: nombre().meta({
      description:
        'El id del pedido del llamador (1 a 255 caracteres, sin espacios a los lados): a lo sumo una reserva ' +
        'ACTIVA por referencia.',
    }),
    ttlSegundos: entero(1, MAX_INT32).optional().meta({
      description:
        'Vida de la reserva en segundos; por defecto 900 (15 min), a lo sumo el máximo configurado (7 días).',
    }),
    lineas: z
      .array(z.strictObject({ bodegaId: id(), productoId: id(), cantidad: entero(1, MAX_INT32) }))
      .min(1)
      .max(500)
      .meta({
        description: 'Las líneas de un mismo nivel (bodega, producto) se suman antes de comprobar lo disponible.',
      }),
    comentario: comentario(),
  })
  .meta({
    description:
      'Retiene unidades de cada línea, todas o ninguna; 409 STOCK_INSUFICIENTE con `disponible` por ' +
      'línea si falta alguna.',
  });

/** POST /api/reservas/{id}/consumo: no body, or an empty one, consumes everything still held. */
export const consumoSchema = z
  .strictObject({
    lineas: z
      .array(z.strictObject({ lineaId: id(), cantidad: entero(1, MAX_INT32) }))
      .max(500)
      .optional()
      .meta({ description: 'Lo que se consume de cada línea; ausente: todo lo retenido.' }),
    liberarResto: z
      .boolean()
      .optional()
      .meta({ description: 'Libera lo que quede retenido tras este consumo (la reserva termina CONSUMIDA).' }),
    comentario: comentario(),
  })
  .meta({
    description:
      'Saca las unidades retenidas (líneas SALIDA, motivo VENTA) sin comprobar lo disponible: la ' +
      'reserva es el permiso.',
  });

/** PATCH /api/reservas/{id}: only its expiry. */
export const extensionSchema = z
  .strictObject({
    expiraEn: z
      .string()
      .regex(
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z?$/,
        'debe ser una fecha UTC YYYY-MM-DDTHH:mm:ss (fracción y Z opcionales)',
      )
      .meta({
        description: 'El nuevo instante de expiración (UTC): posterior al actual y dentro del máximo configurado.',
      }),
  })
  .meta({ description: 'Extiende una reserva ACTIVA y no vencida; exige If-Match con su versión.' });

export const reservaFilterShape = {
  referencia: queryText().min(1).max(255).optional(),
  estado: z
    .enum(ESTADOS_RESERVA, {
      error: (issue) =>
        Array.isArray(issue.input) ? PARAM_MENSAJES.repetido : `debe ser uno de ${ESTADOS_RESERVA.join(', ')}`,
    })
    .optional(),
  bodegaId: queryInteger(1, MAX_UNSIGNED_INT).optional(),
  productoId: queryInteger(1, MAX_UNSIGNED_INT).optional(),
  limit: queryInteger(1, MAX_LIMIT).optional(),
  cursor: queryText()
    .regex(/^[\x21-\x7e]{1,1024}$/, PARAM_MENSAJES.cursor)
    .optional(),
};

export const parseReserva = (body: unknown): ReservaInput => parseBody(reservaSchema, body);
/** POST /api/reservas/{id}/liberacion takes no fields: a body naming any is a 400, not a key ignored. */
export const parseLiberacion = (body: unknown): void =>
  void (body === undefined ? {} : parseBody(z.strictObject({}), body));
export const parseConsumo = (body: unknown): ConsumoInput => (body === undefined ? {} : parseBody(consumoSchema, body));
export function parseExtension(body: unknown): Date {
  const { expiraEn } = parseBody(extensionSchema, body);
  return new Date(expiraEn.endsWith('Z') ? expiraEn : `${expiraEn}Z`);
}
export function parseReservaQuery(query: unknown): { filter: ReservaFilter; limit?: number; cursor?: string } {
  const { limit, cursor, ...filter } = parseQuery(reservaFilterShape, query);
  return { filter, limit, cursor };
}
