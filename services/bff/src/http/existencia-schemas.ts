import { z } from 'zod';
import {
  ALERTAS_SOBRE,
  cantidadMinima,
  mismaBodega,
  motivoAdmitido,
  MOTIVOS_DE_CLIENTE,
  STOCK_MENSAJES,
  TIPOS_MOVIMIENTO_REGISTRABLES,
  type AsignacionInput,
  type MovimientoInput,
  type TransferenciaInput,
  type UmbralCambio,
} from '@inventario/contract';
import { MAX_COMENTARIO, MAX_INT32, MAX_UNSIGNED_INT, textoHasta } from '@inventario/platform';
import { entero, parseBody } from './rest-fields';

/**
 * The stock routes' bodies (docs/contract.md §10.2), whose messages GraphQL shares. Field formats only; the rules of
 * the levels are bodega-svc's.
 */

// The stock rules and their wording are bodega-svc's, written once in @inventario/contract; REST refuses early with
// them.
export { STOCK_MENSAJES };

/** The 428 of an AJUSTE without If-Match (docs/contract.md §10.2), in REST's terms. */
export const AJUSTE_SIN_VERSION = STOCK_MENSAJES.ajusteSinVersion(
  'la versión en If-Match (p. ej. "3")',
  'GET /api/bodegas/{id}/existencias/{productoId}',
);

const id = () => entero(1, MAX_UNSIGNED_INT);
const productoId = () =>
  id().meta({ description: 'Id del producto; debe existir (si no, 404 con detalles en productoId).' });
const comentario = () =>
  textoHasta(MAX_COMENTARIO).nullish().meta({ description: 'Texto libre, a lo sumo 500 caracteres.' });

/** POST /api/bodegas/{id}/productos: the units the warehouse holds afterwards. */
export const asignacionSchema = z
  .strictObject({
    productoId: productoId(),
    cantidad: entero(0, MAX_INT32).meta({ description: 'Las unidades que guarda la bodega después.' }),
    umbralMinimo: entero(0, MAX_INT32).nullish().meta({
      description: 'Umbral de stock bajo (StockBajo al llegar a él o bajar de él). null lo quita; ausente, no cambia.',
    }),
  })
  .meta({
    description:
      'Fija las unidades del producto en la bodega (una línea AJUSTE, motivo ASIGNACION). Los campos de solo ' +
      'lectura se ignoran.',
  });

/** PATCH /api/bodegas/{id}/existencias/{productoId}: only the threshold; the units are changed by movements. */
export const umbralSchema = z
  .strictObject({
    umbralMinimo: entero(0, MAX_INT32)
      .nullable()
      .meta({ description: 'El nuevo umbral de stock bajo (StockBajo al llegar a él o bajar de él); null lo quita.' }),
    alertaSobre: z
      .enum(ALERTAS_SOBRE, { error: 'debe ser CANTIDAD o DISPONIBLE' })
      .optional()
      .meta({
        description:
          'Adición: lo que vigila el umbral: CANTIDAD (las unidades, por defecto) o DISPONIBLE ' +
          '(cantidad - reservada: una reserva puede dar StockBajo). Ausente, no cambia.',
      }),
  })
  .meta({
    description:
      'Cambia solo el umbral de stock bajo de una existencia: no mueve unidades ni escribe ninguna línea del libro ' +
      '(las unidades cambian con movimientos). Los campos de solo lectura se ignoran; cualquier otro (cantidad ' +
      'incluida) es un 400.',
  });

/** POST /api/bodegas/{id}/movimientos: ENTRADA / SALIDA move at least 1 unit, AJUSTE sets the count (0 included). */
export const movimientoSchema = z
  .strictObject({
    productoId: productoId(),
    tipo: z.enum(TIPOS_MOVIMIENTO_REGISTRABLES, { error: STOCK_MENSAJES.tipo('tiene su propia ruta') }),
    cantidad: entero(0, MAX_INT32),
    motivo: z.enum(MOTIVOS_DE_CLIENTE, { error: STOCK_MENSAJES.motivo }).optional(),
    comentario: comentario(),
  })
  .superRefine((body, ctx) => {
    if (body.cantidad < cantidadMinima(body.tipo))
      ctx.addIssue({ code: 'custom', path: ['cantidad'], message: STOCK_MENSAJES.cantidadPositiva });
    if (body.motivo !== undefined && !motivoAdmitido(body.tipo, body.motivo)) {
      ctx.addIssue({ code: 'custom', path: ['motivo'], message: STOCK_MENSAJES.motivoDeTipo(body.tipo) });
    }
  })
  .meta({
    description:
      'ENTRADA y SALIDA mueven `cantidad` (al menos 1) unidades; AJUSTE fija la cantidad contada y exige If-Match. ' +
      'El motivo, si se da, debe ser de los del tipo (ENTRADA: RECEPCION, DEVOLUCION; SALIDA: VENTA, MERMA; ' +
      'AJUSTE: CONTEO, MERMA); sin él, el primero.',
  });

/** POST /api/transferencias: between two different warehouses, at least 1 unit. */
export const transferenciaSchema = z
  .strictObject({
    productoId: productoId(),
    origenId: id().meta({ description: 'Identificador asignado por el servicio (entero positivo).' }),
    destinoId: id().meta({ description: 'Distinta de origenId (si no, 400).' }),
    cantidad: entero(1, MAX_INT32),
    comentario: comentario(),
  })
  .refine((body) => !mismaBodega(body.origenId, body.destinoId), {
    path: ['destinoId'],
    message: STOCK_MENSAJES.mismaBodega,
  })
  .meta({ description: 'Mueve unidades de una bodega a otra (distinta) en una sola operación.' });

/** POST /api/operaciones/{id}/reverso: an optional comentario, or no body at all. */
export const reversoSchema = z
  .strictObject({ comentario: comentario() })
  .meta({ description: 'Opcional: la petición puede no traer cuerpo.' });

export const parseAsignacion = (body: unknown): AsignacionInput => parseBody(asignacionSchema, body);
export const parseMovimiento = (body: unknown): MovimientoInput => parseBody(movimientoSchema, body);
export const parseUmbral = (body: unknown): UmbralCambio => parseBody(umbralSchema, body);
export const parseTransferencia = (body: unknown): TransferenciaInput => parseBody(transferenciaSchema, body);
export const parseReverso = (body: unknown): { comentario?: string | null } =>
  body === undefined ? {} : parseBody(reversoSchema, body);
