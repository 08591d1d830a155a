import { z } from 'zod';
import {
  ALERTAS_SOBRE,
  cantidadMinima,
  mismaBodega,
  motivoAdmitido,
  MOTIVOS_DE_CLIENTE,
  STOCK_MENSAJES,
  TIPOS_MOVIMIENTO,
  TIPOS_MOVIMIENTO_REGISTRABLES,
  type AsignacionInput,
  type MovimientoFilter,
  type MovimientoInput,
  type TransferenciaInput,
  type UmbralCambio,
} from '@inventario/contract';
import { anulable, MAX_COMENTARIO, parseFields, textoHasta } from '@inventario/platform';
import { PARAM_MENSAJES } from '../http/request-params';
import { enteroDesde, id, texto, withNumberTexts, type NumberTexts } from './inputs';

/**
 * The stock inputs (docs/contract.md §10.3), refused early with bodega-svc's own rules and wording
 * (@inventario/contract), as REST
 * refuses them: a malformed request fails as such, listing every bad field, with nothing called. The rules of the
 * levels (stock,
 * capacity, versions) stay bodega-svc's.
 */

export type MovimientoInputArgs = {
  bodegaId: string;
  productoId: string;
  tipo: string;
  cantidad: number;
  motivo?: string | null;
  comentario?: string | null;
};
export type TransferenciaInputArgs = {
  productoId: string;
  origenId: string;
  destinoId: string;
  cantidad: number;
  comentario?: string | null;
};
export type MovimientoFiltroArgs = Partial<
  Record<'bodegaId' | 'productoId' | 'tipo' | 'desde' | 'hasta', string | null>
>;

/** null and absent both mean "not given". */
const opcional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);
const comentario = anulable(textoHasta(MAX_COMENTARIO, texto));
const nivel = z.object({ bodegaId: id, productoId: id });
const asignacion = nivel.extend({ cantidad: enteroDesde(0), umbralMinimo: enteroDesde(0).nullish() });
const transferencia = z
  .object({ productoId: id, origenId: id, destinoId: id, cantidad: enteroDesde(1), comentario })
  .refine((t) => !mismaBodega(t.origenId, t.destinoId), { path: ['destinoId'], message: STOCK_MENSAJES.mismaBodega });
const reverso = z.object({ id, comentario });
const filtro = z.object({
  bodegaId: opcional(id),
  productoId: opcional(id),
  tipo: opcional(z.enum(TIPOS_MOVIMIENTO, { error: PARAM_MENSAJES.tipo })),
});

/**
 * registrarMovimiento's input; the rules that depend on `tipo` judge a valid tipo only and each names its field, so one
 * answer lists every bad field.
 */
function movimiento(raw: string) {
  const tipo = TIPOS_MOVIMIENTO_REGISTRABLES.find((t) => t === raw);
  return nivel.extend({
    tipo: z.enum(TIPOS_MOVIMIENTO_REGISTRABLES, { error: STOCK_MENSAJES.tipo('es transferirStock') }),
    cantidad: enteroDesde(0).refine(
      (cantidad) => tipo === undefined || cantidad >= cantidadMinima(tipo),
      STOCK_MENSAJES.cantidadPositiva,
    ),
    motivo: opcional(
      z
        .enum(MOTIVOS_DE_CLIENTE, { error: STOCK_MENSAJES.motivo })
        .refine((motivo) => tipo === undefined || motivoAdmitido(tipo, motivo), {
          message: tipo && STOCK_MENSAJES.motivoDeTipo(tipo),
        }),
    ),
    comentario,
  });
}

/** asignarProductoABodega's arguments: `umbralMinimo` left out keeps the level's threshold, null removes it. */
type AsignacionArgs = { bodegaId: string; productoId: string; cantidad: number; umbralMinimo?: number | null };
export function toAsignacion(
  args: AsignacionArgs,
  texts: NumberTexts = {},
): { bodegaId: number; input: AsignacionInput } {
  const { bodegaId, umbralMinimo, ...input } = parseFields(asignacion, withNumberTexts(args, texts));
  return { bodegaId, input: umbralMinimo === undefined ? input : { ...input, umbralMinimo } };
}

/** cambiarUmbralMinimo's arguments: `umbralMinimo` must be given, a number or null (which removes the threshold). */
const umbral = nivel.extend({
  umbralMinimo: enteroDesde(0)
    .nullable()
    .optional()
    .refine((u) => u !== undefined, 'es obligatorio: el nuevo umbral, o null para quitarlo'),
  alertaSobre: z.enum(ALERTAS_SOBRE, { error: 'debe ser CANTIDAD o DISPONIBLE' }).optional(),
});
export function toUmbral(
  args: { bodegaId: string; productoId: string; umbralMinimo?: number | null; alertaSobre?: string },
  texts: NumberTexts = {},
): { bodegaId: number; productoId: number } & UmbralCambio {
  // The key stated even when the argument was left out: zod judges an absent optional key as fine without its
  // refinement.
  const { umbralMinimo, alertaSobre, ...nivelDe } = parseFields(
    umbral,
    withNumberTexts({ ...args, umbralMinimo: args.umbralMinimo }, texts),
  );
  return { ...nivelDe, umbralMinimo: umbralMinimo ?? null, ...(alertaSobre === undefined ? {} : { alertaSobre }) };
}

/** A warehouse and a product, each a positive id. */
export const toNivel = (args: { bodegaId: string; productoId: string }): { bodegaId: number; productoId: number } =>
  parseFields(nivel, args);

export function toMovimientoInput(
  input: MovimientoInputArgs,
  texts: NumberTexts = {},
): { bodegaId: number; input: MovimientoInput } {
  const { bodegaId, motivo, ...fields } = parseFields(movimiento(input.tipo), withNumberTexts(input, texts));
  return { bodegaId, input: motivo === undefined ? fields : { ...fields, motivo } };
}

/** transferirStock's input: at least 1 unit, between two different warehouses. */
export const toTransferenciaInput = (input: TransferenciaInputArgs, texts: NumberTexts = {}): TransferenciaInput =>
  parseFields(transferencia, withNumberTexts(input, texts));

export const toReverso = (args: {
  id: string;
  comentario?: string | null;
}): { id: number; comentario: string | null } => parseFields(reverso, args);

/** A DateTime (`YYYY-MM-DDTHH:mm:ss`, UTC; the scalar has checked its form) as the instant it names. */
const instantOf = (fecha: string | null | undefined) =>
  fecha === undefined || fecha === null ? undefined : new Date(`${fecha}Z`);

/** The ledger's filter: ids, a line type and a time range, every one optional. */
export function toMovimientoFilter(args: MovimientoFiltroArgs): MovimientoFilter {
  const fields = { ...parseFields(filtro, args), desde: instantOf(args.desde), hasta: instantOf(args.hasta) };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
