import { z } from 'zod';
import { caracteres, MAX_COMENTARIO } from '@inventario/platform';
import { MENSAJES } from '../http/rest-fields';
import { parseWith } from '../http/validate';
import {
  MOTIVOS_MOVIMIENTO,
  MOTIVOS_POR_TIPO,
  TIPOS_MOVIMIENTO,
  TIPOS_MOVIMIENTO_REGISTRABLES,
  type AsignacionInput,
  type MovimientoFilter,
  type MovimientoInput,
  type TipoMovimientoRegistrable,
  type TransferenciaInput,
} from '../inventario/model';
import { enteroDesde, id, numberText, texto } from './inputs';

/**
 * The stock inputs (docs/contract.md §10.3). Unlike the product and
 * warehouse inputs, their form is checked here in full, with REST's rules
 * and messages (http/existencia-schemas.ts): a stock write asks producto-svc
 * for the product before bodega-svc sees the request, and a malformed
 * request must fail as such, with nothing called, not as a missing product.
 * The rules of the levels (stock, capacity, versions) stay bodega-svc's.
 */

export const STOCK_MENSAJES = {
  tipo: `debe ser uno de ${TIPOS_MOVIMIENTO_REGISTRABLES.join(', ')} (una transferencia es transferirStock)`,
  tipoDeFiltro: `debe ser uno de ${TIPOS_MOVIMIENTO.join(', ')}`,
  motivo: `debe ser uno de ${MOTIVOS_MOVIMIENTO.join(', ')}`,
  motivoDeTipo: (tipo: string, admitidos: readonly string[]) => `no es un motivo de ${tipo} (admitidos: ${admitidos.join(', ')})`,
  cantidadPositiva: 'debe ser al menos 1 en una ENTRADA o una SALIDA',
  ajusteSinVersion: 'un AJUSTE (un conteo) requiere version, la de la existencia contada: léala en existencia(bodegaId, productoId) { version }',
} as const;

export interface MovimientoInputArgs {
  bodegaId: string;
  productoId: string;
  tipo: string;
  cantidad: number;
  motivo?: string | null;
  comentario?: string | null;
}

export interface TransferenciaInputArgs {
  productoId: string;
  origenId: string;
  destinoId: string;
  cantidad: number;
  comentario?: string | null;
}

export interface MovimientoFiltroArgs {
  bodegaId?: string | null;
  productoId?: string | null;
  tipo?: string | null;
  desde?: string | null;
  hasta?: string | null;
}

/** The number texts the client wrote for the stock inputs' integers. */
export interface StockNumberTexts {
  cantidad?: string;
  umbralMinimo?: string;
}

/** A comment: well-formed text of at most MAX_COMENTARIO characters, or null. */
const comentario = texto
  .refine((text) => caracteres(text) <= MAX_COMENTARIO, MENSAJES.maxCaracteres(MAX_COMENTARIO))
  .nullish()
  .transform((text) => text ?? null);
const nivel = z.object({ bodegaId: id, productoId: id });
const asignacion = nivel.extend({ cantidad: enteroDesde(0), umbralMinimo: enteroDesde(0).nullish() });
const transferencia = z.object({ productoId: id, origenId: id, destinoId: id, cantidad: enteroDesde(1), comentario });
const reverso = z.object({ id, comentario });
const filtro = z.object({
  bodegaId: id.nullish().transform((value) => value ?? undefined),
  productoId: id.nullish().transform((value) => value ?? undefined),
  tipo: z
    .enum(TIPOS_MOVIMIENTO, { error: STOCK_MENSAJES.tipoDeFiltro })
    .nullish()
    .transform((value) => value ?? undefined),
});

const isOneOf = <T extends string>(list: readonly T[], value: string): value is T => (list as readonly string[]).includes(value);

/**
 * registrarMovimiento's input: ENTRADA and SALIDA move at least 1 unit,
 * AJUSTE sets a count (0 included); `motivo` one its tipo allows. The rules
 * that depend on `tipo` are judged against a valid tipo only, and each names
 * its own field, so one answer lists every bad field.
 */
function movimiento(tipo: TipoMovimientoRegistrable | undefined) {
  return nivel.extend({
    tipo: z.enum(TIPOS_MOVIMIENTO_REGISTRABLES, { error: STOCK_MENSAJES.tipo }),
    cantidad: enteroDesde(0).refine((cantidad) => tipo === undefined || tipo === 'AJUSTE' || cantidad >= 1, STOCK_MENSAJES.cantidadPositiva),
    motivo: z
      .enum(MOTIVOS_MOVIMIENTO, { error: STOCK_MENSAJES.motivo })
      .refine((motivo) => tipo === undefined || MOTIVOS_POR_TIPO[tipo].includes(motivo), {
        message: tipo && STOCK_MENSAJES.motivoDeTipo(tipo, MOTIVOS_POR_TIPO[tipo]),
      })
      .nullish()
      .transform((value) => value ?? undefined),
    comentario,
  });
}

/**
 * asignarProductoABodega's arguments: the warehouse and the assignment.
 * `umbralMinimo` left out keeps the level's threshold, null removes it.
 */
export function toAsignacion(
  args: { bodegaId: string; productoId: string; cantidad: number; umbralMinimo?: number | null },
  texts: StockNumberTexts = {},
): { bodegaId: number; input: AsignacionInput } {
  const { bodegaId, umbralMinimo, ...input } = parseWith(asignacion, {
    ...args,
    cantidad: numberText(args.cantidad, texts.cantidad),
    umbralMinimo: numberText(args.umbralMinimo, texts.umbralMinimo),
  });
  return { bodegaId, input: umbralMinimo === undefined ? input : { ...input, umbralMinimo } };
}

/** A warehouse and a product, each a positive id. */
export function toNivel(args: { bodegaId: string; productoId: string }): { bodegaId: number; productoId: number } {
  return parseWith(nivel, args);
}

export function toMovimientoInput(input: MovimientoInputArgs, texts: StockNumberTexts = {}): { bodegaId: number; input: MovimientoInput } {
  const tipo = isOneOf(TIPOS_MOVIMIENTO_REGISTRABLES, input.tipo) ? input.tipo : undefined;
  const { bodegaId, motivo, ...fields } = parseWith(movimiento(tipo), { ...input, cantidad: numberText(input.cantidad, texts.cantidad) });
  return { bodegaId, input: motivo === undefined ? fields : { ...fields, motivo } };
}

/** transferirStock's input: at least 1 unit (origin and destination differing is the use case's rule). */
export function toTransferenciaInput(input: TransferenciaInputArgs, texts: StockNumberTexts = {}): TransferenciaInput {
  return parseWith(transferencia, { ...input, cantidad: numberText(input.cantidad, texts.cantidad) });
}

/** revertirOperacion's arguments. */
export function toReverso(args: { id: string; comentario?: string | null }): { id: number; comentario: string | null } {
  return parseWith(reverso, args);
}

/** A DateTime (`YYYY-MM-DDTHH:mm:ss`, UTC; the scalar has checked its form) as the instant it names. */
const instantOf = (fecha: string) => new Date(`${fecha}Z`);

/** The ledger's filter: ids, a line type and a time range, every one optional. */
export function toMovimientoFilter(args: MovimientoFiltroArgs): MovimientoFilter {
  const fields = parseWith(filtro, args);
  const filter: MovimientoFilter = {};
  if (fields.bodegaId !== undefined) filter.bodegaId = fields.bodegaId;
  if (fields.productoId !== undefined) filter.productoId = fields.productoId;
  if (fields.tipo !== undefined) filter.tipo = fields.tipo;
  if (args.desde !== undefined && args.desde !== null) filter.desde = instantOf(args.desde);
  if (args.hasta !== undefined && args.hasta !== null) filter.hasta = instantOf(args.hasta);
  return filter;
}
