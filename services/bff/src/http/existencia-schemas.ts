import { z } from 'zod';
import { MAX_UNSIGNED_INT } from '@inventario/platform';
import {
  MOTIVOS_MOVIMIENTO,
  MOTIVOS_POR_TIPO,
  TIPOS_MOVIMIENTO_REGISTRABLES,
  type AsignacionInput,
  type MovimientoInput,
  type TransferenciaInput,
} from '../inventario/model';
import { MAX_INT32 } from './json-number';
import { entero, textoHasta } from './rest-fields';
import { parseBody } from './validate';

/**
 * The bodies of the stock routes (docs/contract.md §10.2). Field formats
 * here; the rules of the levels (stock, capacity) are bodega-svc's.
 */

/** At most this many characters in a comentario. */
export const MAX_COMENTARIO = 500;

const MENSAJES = {
  tipo: `debe ser uno de ${TIPOS_MOVIMIENTO_REGISTRABLES.join(', ')} (una transferencia tiene su propia ruta)`,
  motivo: `debe ser uno de ${MOTIVOS_MOVIMIENTO.join(', ')}`,
  motivoDeTipo: (tipo: string, admitidos: readonly string[]) => `no es un motivo de ${tipo} (admitidos: ${admitidos.join(', ')})`,
  cantidadPositiva: 'debe ser al menos 1 en una ENTRADA o una SALIDA',
  mismaBodega: 'debe ser distinta de origenId',
} as const;

const id = () => entero(1, MAX_UNSIGNED_INT);
const comentario = () => textoHasta(MAX_COMENTARIO).nullish();

/** POST /api/bodegas/{id}/productos: the units the warehouse holds afterwards. */
const asignacionSchema = z.strictObject({
  productoId: id(),
  cantidad: entero(0, MAX_INT32),
  umbralMinimo: entero(0, MAX_INT32).nullish(),
});

/** POST /api/bodegas/{id}/movimientos: ENTRADA / SALIDA move at least 1 unit, AJUSTE sets the count (0 included). */
const movimientoSchema = z
  .strictObject({
    productoId: id(),
    tipo: z.enum(TIPOS_MOVIMIENTO_REGISTRABLES, { error: MENSAJES.tipo }),
    cantidad: entero(0, MAX_INT32),
    motivo: z.enum(MOTIVOS_MOVIMIENTO, { error: MENSAJES.motivo }).optional(),
    comentario: comentario(),
  })
  .superRefine((body, ctx) => {
    if (body.tipo !== 'AJUSTE' && body.cantidad < 1) ctx.addIssue({ code: 'custom', path: ['cantidad'], message: MENSAJES.cantidadPositiva });
    const admitidos = MOTIVOS_POR_TIPO[body.tipo];
    if (body.motivo !== undefined && !admitidos.includes(body.motivo)) {
      ctx.addIssue({ code: 'custom', path: ['motivo'], message: MENSAJES.motivoDeTipo(body.tipo, admitidos) });
    }
  });

/** POST /api/transferencias: between two different warehouses, at least 1 unit. */
const transferenciaSchema = z
  .strictObject({
    productoId: id(),
    origenId: id(),
    destinoId: id(),
    cantidad: entero(1, MAX_INT32),
    comentario: comentario(),
  })
  .superRefine((body, ctx) => {
    if (body.origenId === body.destinoId) ctx.addIssue({ code: 'custom', path: ['destinoId'], message: MENSAJES.mismaBodega });
  });

/** POST /api/operaciones/{id}/reverso: an optional comentario, or no body at all. */
const reversoSchema = z.strictObject({ comentario: comentario() });

export function parseAsignacion(body: unknown): AsignacionInput {
  return parseBody(asignacionSchema, body);
}

export function parseMovimiento(body: unknown): MovimientoInput {
  return parseBody(movimientoSchema, body);
}

export function parseTransferencia(body: unknown): TransferenciaInput {
  return parseBody(transferenciaSchema, body);
}

export function parseReverso(body: unknown): { comentario?: string | null } {
  return body === undefined ? {} : parseBody(reversoSchema, body);
}
