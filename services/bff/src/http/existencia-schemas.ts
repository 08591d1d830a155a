import { z } from 'zod';
import { MAX_COMENTARIO, MAX_INT32, MAX_UNSIGNED_INT, textoHasta } from '@inventario/platform';
import { MOTIVOS_MOVIMIENTO, MOTIVOS_POR_TIPO, TIPOS_MOVIMIENTO_REGISTRABLES } from '../inventario/model';
import type { AsignacionInput, MovimientoInput, TransferenciaInput } from '../inventario/model';
import { entero, parseBody } from './rest-fields';

/** The stock routes' bodies (docs/contract.md §10.2), whose messages GraphQL shares. Field formats only; the rules of the levels are bodega-svc's. */

export const STOCK_MENSAJES = {
  tipo: (transferencia: string) => `debe ser uno de ${TIPOS_MOVIMIENTO_REGISTRABLES.join(', ')} (una transferencia ${transferencia})`,
  motivo: `debe ser uno de ${MOTIVOS_MOVIMIENTO.join(', ')}`,
  motivoDeTipo: (tipo: string, admitidos: readonly string[]) => `no es un motivo de ${tipo} (admitidos: ${admitidos.join(', ')})`,
  cantidadPositiva: 'debe ser al menos 1 en una ENTRADA o una SALIDA',
  mismaBodega: 'debe ser distinta de origenId',
} as const;

const id = () => entero(1, MAX_UNSIGNED_INT);
const productoId = () => id().meta({ description: 'Id del producto; debe existir (si no, 404 con detalles en productoId).' });
const comentario = () => textoHasta(MAX_COMENTARIO).nullish().meta({ description: 'Texto libre, a lo sumo 500 caracteres.' });

/** POST /api/bodegas/{id}/productos: the units the warehouse holds afterwards. */
export const asignacionSchema = z
  .strictObject({
    productoId: productoId(),
    cantidad: entero(0, MAX_INT32).meta({ description: 'Las unidades que guarda la bodega después.' }),
    umbralMinimo: entero(0, MAX_INT32)
      .nullish()
      .meta({ description: 'Umbral de stock bajo (StockBajo al llegar a él o bajar de él). null lo quita; ausente, no cambia.' }),
  })
  .meta({ description: 'Fija las unidades del producto en la bodega (una línea AJUSTE, motivo ASIGNACION). Los campos de solo lectura se ignoran.' });

/** POST /api/bodegas/{id}/movimientos: ENTRADA / SALIDA move at least 1 unit, AJUSTE sets the count (0 included). */
export const movimientoSchema = z
  .strictObject({
    productoId: productoId(),
    tipo: z.enum(TIPOS_MOVIMIENTO_REGISTRABLES, { error: STOCK_MENSAJES.tipo('tiene su propia ruta') }),
    cantidad: entero(0, MAX_INT32),
    motivo: z.enum(MOTIVOS_MOVIMIENTO, { error: STOCK_MENSAJES.motivo }).optional(),
    comentario: comentario(),
  })
  .superRefine((body, ctx) => {
    if (body.tipo !== 'AJUSTE' && body.cantidad < 1) ctx.addIssue({ code: 'custom', path: ['cantidad'], message: STOCK_MENSAJES.cantidadPositiva });
    const admitidos = MOTIVOS_POR_TIPO[body.tipo];
    if (body.motivo !== undefined && !admitidos.includes(body.motivo)) {
      ctx.addIssue({ code: 'custom', path: ['motivo'], message: STOCK_MENSAJES.motivoDeTipo(body.tipo, admitidos) });
    }
  })
  .meta({
    description:
      'ENTRADA y SALIDA mueven `cantidad` (al menos 1) unidades; AJUSTE fija la cantidad contada y exige If-Match. El motivo, si se da, debe ser de los del tipo (ENTRADA: RECEPCION, DEVOLUCION; SALIDA: VENTA, MERMA; AJUSTE: CONTEO, MERMA); sin él, el primero.',
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
  .refine((body) => body.origenId !== body.destinoId, { path: ['destinoId'], message: STOCK_MENSAJES.mismaBodega })
  .meta({ description: 'Mueve unidades de una bodega a otra (distinta) en una sola operación.' });

/** POST /api/operaciones/{id}/reverso: an optional comentario, or no body at all. */
export const reversoSchema = z.strictObject({ comentario: comentario() }).meta({ description: 'Opcional: la petición puede no traer cuerpo.' });

export const parseAsignacion = (body: unknown): AsignacionInput => parseBody(asignacionSchema, body);
export const parseMovimiento = (body: unknown): MovimientoInput => parseBody(movimientoSchema, body);
export const parseTransferencia = (body: unknown): TransferenciaInput => parseBody(transferenciaSchema, body);
export const parseReverso = (body: unknown): { comentario?: string | null } => (body === undefined ? {} : parseBody(reversoSchema, body));
