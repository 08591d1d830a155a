import { caracteres, InvalidArgumentError, MAX_COMENTARIO, MAX_INT32, validateFields } from '@inventario/platform';
import { integerFromNumberText } from '../http/json-number';
import { MENSAJES } from '../http/rest-fields';
import {
  MOTIVOS_MOVIMIENTO,
  MOTIVOS_POR_TIPO,
  TIPOS_MOVIMIENTO,
  TIPOS_MOVIMIENTO_REGISTRABLES,
  type AsignacionInput,
  type MovimientoFilter,
  type MovimientoInput,
  type TransferenciaInput,
} from '../inventario/model';
import { optionalId, parseId, texto } from './inputs';

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
  ajusteSinVersion:
    'un AJUSTE (un conteo) requiere version, la de la existencia contada: léala en existencia(bodegaId, productoId) { version }',
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

/** A whole number in min..MAX_INT32, judged by the text the client wrote (see cantidadArg). */
function enteroArg(value: number, texto: string | undefined, campo: string, min: number): number {
  const checked = integerFromNumberText(texto ?? String(value), min, MAX_INT32);
  if ('mensaje' in checked) throw InvalidArgumentError.field(campo, checked.mensaje);
  return checked.ok;
}

/** A comment: well-formed text of at most MAX_COMENTARIO characters, or null. */
function comentarioArg(value: string | null | undefined, campo = 'comentario'): string | null {
  const text = texto(value, campo) ?? null;
  if (text !== null && caracteres(text) > MAX_COMENTARIO) throw InvalidArgumentError.field(campo, MENSAJES.maxCaracteres(MAX_COMENTARIO));
  return text;
}

function isOneOf<T extends string>(list: readonly T[], value: string): value is T {
  return (list as readonly string[]).includes(value);
}

/** The number texts the client wrote for the stock inputs' integers. */
export interface StockNumberTexts {
  cantidad?: string;
  umbralMinimo?: string;
}

/**
 * asignarProductoABodega's arguments: the warehouse and the assignment.
 * `umbralMinimo` left out keeps the level's threshold, null removes it.
 */
export function toAsignacion(
  args: { bodegaId: string; productoId: string; cantidad: number; umbralMinimo?: number | null },
  texts: StockNumberTexts = {},
): { bodegaId: number; input: AsignacionInput } {
  const fields = validateFields({
    bodegaId: () => parseId(args.bodegaId, 'bodegaId'),
    productoId: () => parseId(args.productoId, 'productoId'),
    cantidad: () => enteroArg(args.cantidad, texts.cantidad, 'cantidad', 0),
    umbralMinimo: () =>
      args.umbralMinimo === undefined || args.umbralMinimo === null ? args.umbralMinimo : enteroArg(args.umbralMinimo, texts.umbralMinimo, 'umbralMinimo', 0),
  });
  const input: AsignacionInput = { productoId: fields.productoId, cantidad: fields.cantidad };
  if (fields.umbralMinimo !== undefined) input.umbralMinimo = fields.umbralMinimo;
  return { bodegaId: fields.bodegaId, input };
}

/** A warehouse and a product, each a positive id. */
export function toNivel(args: { bodegaId: string; productoId: string }): { bodegaId: number; productoId: number } {
  return validateFields({ bodegaId: () => parseId(args.bodegaId, 'bodegaId'), productoId: () => parseId(args.productoId, 'productoId') });
}

/**
 * registrarMovimiento's input: ENTRADA and SALIDA move at least 1 unit,
 * AJUSTE sets a count (0 included); `motivo` one its tipo allows.
 */
export function toMovimientoInput(input: MovimientoInputArgs, texts: StockNumberTexts = {}): { bodegaId: number; input: MovimientoInput } {
  const tipo = isOneOf(TIPOS_MOVIMIENTO_REGISTRABLES, input.tipo) ? input.tipo : undefined;
  const fields = validateFields({
    bodegaId: () => parseId(input.bodegaId, 'bodegaId'),
    productoId: () => parseId(input.productoId, 'productoId'),
    tipo: () => {
      if (!tipo) throw InvalidArgumentError.field('tipo', STOCK_MENSAJES.tipo);
      return tipo;
    },
    cantidad: () => {
      const cantidad = enteroArg(input.cantidad, texts.cantidad, 'cantidad', 0);
      if (tipo !== undefined && tipo !== 'AJUSTE' && cantidad < 1) throw InvalidArgumentError.field('cantidad', STOCK_MENSAJES.cantidadPositiva);
      return cantidad;
    },
    motivo: () => {
      if (input.motivo === undefined || input.motivo === null) return undefined;
      if (!isOneOf(MOTIVOS_MOVIMIENTO, input.motivo)) throw InvalidArgumentError.field('motivo', STOCK_MENSAJES.motivo);
      if (tipo !== undefined && !MOTIVOS_POR_TIPO[tipo].includes(input.motivo)) {
        throw InvalidArgumentError.field('motivo', STOCK_MENSAJES.motivoDeTipo(tipo, MOTIVOS_POR_TIPO[tipo]));
      }
      return input.motivo;
    },
    comentario: () => comentarioArg(input.comentario),
  });
  const movimiento: MovimientoInput = { productoId: fields.productoId, tipo: fields.tipo, cantidad: fields.cantidad, comentario: fields.comentario };
  if (fields.motivo !== undefined) movimiento.motivo = fields.motivo;
  return { bodegaId: fields.bodegaId, input: movimiento };
}

/** transferirStock's input: at least 1 unit (origin and destination differing is the use case's rule). */
export function toTransferenciaInput(input: TransferenciaInputArgs, texts: StockNumberTexts = {}): TransferenciaInput {
  return validateFields({
    productoId: () => parseId(input.productoId, 'productoId'),
    origenId: () => parseId(input.origenId, 'origenId'),
    destinoId: () => parseId(input.destinoId, 'destinoId'),
    cantidad: () => enteroArg(input.cantidad, texts.cantidad, 'cantidad', 1),
    comentario: () => comentarioArg(input.comentario),
  });
}

/** revertirOperacion's arguments. */
export function toReverso(args: { id: string; comentario?: string | null }): { id: number; comentario: string | null } {
  return validateFields({ id: () => parseId(args.id, 'id'), comentario: () => comentarioArg(args.comentario) });
}

/** A DateTime (`YYYY-MM-DDTHH:mm:ss`, UTC; the scalar has checked its form) as the instant it names. */
const instantOf = (fecha: string) => new Date(`${fecha}Z`);

/** The ledger's filter: ids, a line type and a time range, every one optional. */
export function toMovimientoFilter(filtro: MovimientoFiltroArgs): MovimientoFilter {
  const fields = validateFields({
    bodegaId: () => optionalId(filtro.bodegaId, 'bodegaId') ?? undefined,
    productoId: () => optionalId(filtro.productoId, 'productoId') ?? undefined,
    tipo: () => {
      if (filtro.tipo === undefined || filtro.tipo === null) return undefined;
      if (!isOneOf(TIPOS_MOVIMIENTO, filtro.tipo)) throw InvalidArgumentError.field('tipo', STOCK_MENSAJES.tipoDeFiltro);
      return filtro.tipo;
    },
  });
  const filter: MovimientoFilter = {};
  if (fields.bodegaId !== undefined) filter.bodegaId = fields.bodegaId;
  if (fields.productoId !== undefined) filter.productoId = fields.productoId;
  if (fields.tipo !== undefined) filter.tipo = fields.tipo;
  if (filtro.desde !== undefined && filtro.desde !== null) filter.desde = instantOf(filtro.desde);
  if (filtro.hasta !== undefined && filtro.hasta !== null) filter.hasta = instantOf(filtro.hasta);
  return filter;
}
