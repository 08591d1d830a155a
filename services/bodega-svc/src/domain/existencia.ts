import { z } from 'zod';
import {
  ALERTAS_SOBRE,
  cantidadMinima,
  exigeVersion,
  mismaBodega,
  motivoAdmitido,
  MOTIVOS_POR_TIPO,
  STOCK_MENSAJES,
  TIPOS_MOVIMIENTO_REGISTRABLES,
  type AlertaSobre,
  type ExistenciaDe,
  type MotivoMovimiento,
  type TipoMovimientoRegistrable,
  type TipoMovimiento,
  type TipoOperacion,
} from '@inventario/contract';
import {
  checkPositiveId,
  entero,
  FailedPreconditionError,
  FIELD_MENSAJES,
  ID_MENSAJES,
  idNumero,
  MAX_COMENTARIO,
  MAX_INT32,
  parseFields,
  PROTO_NUMBER,
  texto,
  textoHasta,
  type MovimientoData,
} from '@inventario/platform';

/**
 * Stock rules, free of I/O (docs/contract.md §10). The store locks the rows a
 * command touches and hands their state to `planOperation`, which decides
 * the lines or refuses; the store then writes exactly what it planned. So
 * every rule of a level and a warehouse's capacity lives here once, and a
 * property test can check it against a model without a database.
 */

/** The stock of one product in one warehouse: its instants are `Date`s. */
export type Existencia = ExistenciaDe<Date>;

/** One ledger line: the published form (platform's MovimientoData), its instant a Date until it is written out. */
export type Movimiento = Omit<MovimientoData, 'fecha'> & { fecha: Date };

/** One command and its lines. */
export interface Operacion {
  id: number;
  tipo: TipoOperacion;
  usuario: string;
  comentario: string | null;
  fecha: Date;
  revierteA: number | null;
  revertidaPor: number | null;
  movimientos: Movimiento[];
}

/** `cantidad` is an INT column and an int32 on the wire; a comentario a VARCHAR(500) (platform's field rules). */
export const MAX_CANTIDAD = MAX_INT32;
export { MAX_COMENTARIO };

/** A level as the planner sees it: the locked row, or the versions its removed predecessor reached. */
export interface NivelActual {
  bodegaId: number;
  productoId: number;
  /** False when the warehouse holds no level of the product now. */
  existe: boolean;
  cantidad: number;
  umbralMinimo: number | null;
  /** The level's version; for a missing level the last version its lines reached (0 when none). */
  version: number;
  /**
   * Absent or CANTIDAD: the planner judges the low-stock edge on the units. DISPONIBLE: it leaves the edge to the
   * store, which judges it once the write's holds are settled (alertas-disponible.ts).
   */
  alertaSobre?: AlertaSobre;
}

/** A warehouse as the planner sees it (its locked row). */
export interface BodegaActual {
  id: number;
  capacidad: number;
  ocupacion: number;
}

/** What a command asks of one level. */
export type Cambio =
  /** Add `delta` units (negative removes). */
  | { bodegaId: number; productoId: number; tipo: TipoMovimiento; motivo: MotivoMovimiento; delta: number }
  /** Set the units to `cantidad` (and the threshold, when given). */
  | {
      bodegaId: number;
      productoId: number;
      tipo: TipoMovimiento;
      motivo: MotivoMovimiento;
      fijar: number;
      umbralMinimo?: number | null;
    }
  /** Write the units out and remove the level. */
  | { bodegaId: number; productoId: number; tipo: TipoMovimiento; motivo: MotivoMovimiento; retirar: true };

/** A line to write, and the level after it. */
export interface LineaPlaneada {
  bodegaId: number;
  productoId: number;
  tipo: TipoMovimiento;
  motivo: MotivoMovimiento;
  cantidad: number;
  cantidadAnterior: number;
  cantidadPosterior: number;
  version: number;
  /** What becomes of the level: written with these values, or removed. */
  nivel: { existe: true; cantidad: number; umbralMinimo: number | null; creado: boolean } | { existe: false };
  /** The low-stock edge this line crossed, if any. */
  umbral: 'BAJO' | 'REPUESTO' | null;
}

export interface Plan {
  lineas: LineaPlaneada[];
  /** Change of occupancy per warehouse id. */
  ocupacion: Map<number, number>;
}

export function clave(bodegaId: number, productoId: number): string {
  return `${bodegaId}:${productoId}`;
}

/** Low: a threshold is set and the units are at or below it. */
export function esBajo(cantidad: number, umbralMinimo: number | null): boolean {
  return umbralMinimo !== null && cantidad <= umbralMinimo;
}

export function stockInsuficiente(
  productoId: number,
  bodegaId: number,
  disponible: number,
  solicitado: number,
): FailedPreconditionError {
  return new FailedPreconditionError(
    `stock insuficiente del producto ${productoId} en la bodega ${bodegaId}: hay ${disponible}, se piden ${solicitado}`,
    {
      reason: 'STOCK_INSUFICIENTE',
      datos: { bodegaId, productoId, disponible, solicitado },
    },
  );
}

export function capacidadExcedida(bodega: BodegaActual, solicitado: number): FailedPreconditionError {
  return new FailedPreconditionError(
    `la bodega ${bodega.id} no tiene capacidad: capacidad ${bodega.capacidad}, ocupación ${bodega.ocupacion}, se ` +
      `piden ${solicitado} unidades más`,
    {
      reason: 'CAPACIDAD_EXCEDIDA',
      datos: { bodegaId: bodega.id, capacidad: bodega.capacidad, ocupacion: bodega.ocupacion, solicitado },
    },
  );
}

/**
 * The lines of one operation, from the locked state of the levels and
 * warehouses it touches, in the order of `cambios` (a level changed twice
 * sees its first change). Refuses the whole operation, writing nothing,
 * when a level would go below zero (STOCK_INSUFICIENTE) or a warehouse past
 * its capacity (CAPACIDAD_EXCEDIDA). Capacity is checked on the net change
 * of each warehouse, so an operation that frees units never fails on it.
 */
export function planOperation(
  cambios: readonly Cambio[],
  niveles: ReadonlyMap<string, NivelActual>,
  bodegas: ReadonlyMap<number, BodegaActual>,
): Plan {
  const estado = new Map<string, NivelActual>();
  const nivelDe = (bodegaId: number, productoId: number): NivelActual => {
    const k = clave(bodegaId, productoId);
    const actual = estado.get(k) ??
      niveles.get(k) ?? { bodegaId, productoId, existe: false, cantidad: 0, umbralMinimo: null, version: 0 };
    return { ...actual };
  };
  const lineas: LineaPlaneada[] = [];
  const ocupacion = new Map<number, number>();
  for (const cambio of cambios) {
    const nivel = nivelDe(cambio.bodegaId, cambio.productoId);
    const antes = nivel.existe ? nivel.cantidad : 0;
    const umbralAntes = nivel.existe ? nivel.umbralMinimo : null;
    let despues: number;
    let umbralDespues = umbralAntes;
    let retirar = false;
    if ('delta' in cambio) {
      despues = antes + cambio.delta;
      if (despues < 0) throw stockInsuficiente(cambio.productoId, cambio.bodegaId, antes, -cambio.delta);
    } else if ('fijar' in cambio) {
      despues = cambio.fijar;
      if (cambio.umbralMinimo !== undefined) umbralDespues = cambio.umbralMinimo;
    } else {
      despues = 0;
      retirar = true;
    }
    const version = nivel.version + 1;
    // A level watching `disponible` is judged after the write's holds are settled, by the store.
    const vigilaCantidad = (nivel.alertaSobre ?? 'CANTIDAD') === 'CANTIDAD';
    const bajoAntes = vigilaCantidad && nivel.existe && esBajo(antes, umbralAntes);
    const bajoDespues = vigilaCantidad && !retirar && esBajo(despues, umbralDespues);
    lineas.push({
      bodegaId: cambio.bodegaId,
      productoId: cambio.productoId,
      tipo: cambio.tipo,
      motivo: cambio.motivo,
      cantidad: despues - antes,
      cantidadAnterior: antes,
      cantidadPosterior: despues,
      version,
      nivel: retirar
        ? { existe: false }
        : { existe: true, cantidad: despues, umbralMinimo: umbralDespues, creado: !nivel.existe },
      umbral: bajoDespues && !bajoAntes ? 'BAJO' : bajoAntes && !bajoDespues && !retirar ? 'REPUESTO' : null,
    });
    estado.set(clave(cambio.bodegaId, cambio.productoId), {
      ...nivel,
      existe: !retirar,
      cantidad: despues,
      umbralMinimo: retirar ? null : umbralDespues,
      version,
    });
    ocupacion.set(cambio.bodegaId, (ocupacion.get(cambio.bodegaId) ?? 0) + despues - antes);
  }
  for (const [bodegaId, delta] of ocupacion) {
    const bodega = bodegas.get(bodegaId);
    if (!bodega) throw new Error(`planOperation: warehouse ${bodegaId} was not locked`);
    if (delta > 0 && bodega.ocupacion + delta > bodega.capacidad) throw capacidadExcedida(bodega, delta);
  }
  return { lineas, ocupacion };
}

/** What a threshold change makes of a level: its next version, and the low-stock edge it crossed, if any. */
export interface UmbralPlaneado {
  version: number;
  umbral: 'BAJO' | 'REPUESTO' | null;
}

/**
 * A threshold change moves no units, so it writes no line: the ledger records what moved, and a
 * threshold is a setting of the level, not a movement. The level's version still grows by one,
 * because the version is the level's ETag and the level it answers changed (a cached copy must not
 * be confirmed by a 304, and an If-Match naming the old version must fail). The low-stock edge is
 * judged as for a line, so a threshold raised above the units alerts (StockBajo) and one lowered
 * below them, or removed, ends the alert (StockRepuesto).
 */
export function planUmbral(
  nivel: NivelActual & { reservada?: number; bajoDisponible?: boolean },
  umbralMinimo: number | null,
  alertaSobre: AlertaSobre = nivel.alertaSobre ?? 'CANTIDAD',
): UmbralPlaneado {
  // Watching `disponible`, the alert raised is the one recorded (the store keeps it, alertas-disponible.ts); the
  // edge is crossed when what the level watches after the change says otherwise, also when it changes what it watches.
  const bajoAntes =
    (nivel.alertaSobre ?? 'CANTIDAD') === 'CANTIDAD'
      ? esBajo(nivel.cantidad, nivel.umbralMinimo)
      : nivel.bajoDisponible === true;
  const bajoDespues = esBajo(
    alertaSobre === 'CANTIDAD' ? nivel.cantidad : nivel.cantidad - (nivel.reservada ?? 0),
    umbralMinimo,
  );
  return {
    version: nivel.version + 1,
    umbral: bajoDespues && !bajoAntes ? 'BAJO' : bajoAntes && !bajoDespues ? 'REPUESTO' : null,
  };
}

/** The compensating changes of a reversal: each line undone, last first. */
export function cambiosDeReverso(original: Operacion): Cambio[] {
  if (original.tipo === 'REVERSO' || original.tipo === 'PRODUCTO_ELIMINADO' || original.tipo === 'BODEGA_ELIMINADA') {
    throw new FailedPreconditionError(`la operación ${original.id} (${original.tipo}) no se puede revertir`, {
      reason: 'OPERACION_NO_REVERSIBLE',
      datos: { operacionId: original.id },
    });
  }
  if (original.revertidaPor !== null) {
    throw new FailedPreconditionError(
      `la operación ${original.id} ya fue revertida por la operación ${original.revertidaPor}`,
      {
        reason: 'OPERACION_YA_REVERTIDA',
        datos: { operacionId: original.id, revertidaPor: original.revertidaPor },
      },
    );
  }
  return [...original.movimientos].reverse().map((m) => ({
    bodegaId: m.bodegaId,
    productoId: m.productoId,
    tipo: m.tipo,
    motivo: 'REVERSO' as const,
    delta: -m.cantidad,
  }));
}

// --- Validation of commands (INVALID_ARGUMENT naming every bad field), from platform's building blocks ---

const cantidad = (min: 0 | 1) =>
  entero(PROTO_NUMBER, min, MAX_CANTIDAD, min === 0 ? FIELD_MENSAJES.mayorOIgualQueCero : FIELD_MENSAJES.mayorQueCero);
const NIVEL = { bodegaId: idNumero(), productoId: idNumero() };
/** Trimmed; blank is no comment. */
const comentario = textoHasta(MAX_COMENTARIO, texto().trim())
  .nullish()
  .transform((value) => value || null);

export interface Asignacion {
  bodegaId: number;
  productoId: number;
  cantidad: number;
  /** undefined: the threshold stays as it is; null: it is removed. */
  umbralMinimo: number | null | undefined;
}

export function validateAsignacion(input: {
  bodegaId: number;
  productoId: number;
  cantidad: number;
  umbralMinimo?: number;
  quitarUmbralMinimo?: boolean;
}): Asignacion {
  if (input.quitarUmbralMinimo === true) {
    const conflicto = z.undefined({ error: 'no se puede fijar y quitar a la vez' }).optional();
    return {
      ...parseFields(z.object({ umbralMinimo: conflicto, ...NIVEL, cantidad: cantidad(0) }), input),
      umbralMinimo: null,
    };
  }
  const { umbralMinimo, ...nivel } = parseFields(
    z.object({ ...NIVEL, cantidad: cantidad(0), umbralMinimo: cantidad(0).optional() }),
    input,
  );
  return { ...nivel, umbralMinimo };
}

/** Exactly one of a new threshold and its removal; `alertaSobre` absent keeps what the level watches. */
export function validateUmbral(input: {
  bodegaId: number;
  productoId: number;
  umbralMinimo?: number;
  quitarUmbralMinimo?: boolean;
  alertaSobre?: string;
}): {
  bodegaId: number;
  productoId: number;
  umbralMinimo: number | null;
  alertaSobre?: AlertaSobre;
} {
  const quitar = input.quitarUmbralMinimo === true;
  const umbral = quitar
    ? z.undefined({ error: 'no se puede fijar y quitar a la vez' }).optional()
    : cantidad(0)
        .optional()
        .refine((u) => u !== undefined, FIELD_MENSAJES.obligatorio);
  const { umbralMinimo, alertaSobre, ...nivel } = parseFields(
    z.object({
      ...NIVEL,
      umbralMinimo: umbral,
      alertaSobre: z.enum(ALERTAS_SOBRE, { error: 'debe ser CANTIDAD o DISPONIBLE' }).optional(),
    }),
    input,
  );
  return {
    ...nivel,
    umbralMinimo: quitar ? null : (umbralMinimo ?? null),
    ...(alertaSobre === undefined ? {} : { alertaSobre }),
  };
}

export const validateNivel = (input: {
  bodegaId: number;
  productoId: number;
}): { bodegaId: number; productoId: number } => parseFields(z.object(NIVEL), input);

export interface MovimientoSolicitado {
  bodegaId: number;
  productoId: number;
  tipo: TipoMovimientoRegistrable;
  motivo: MotivoMovimiento;
  cantidad: number;
  comentario: string | null;
}

export function validateMovimiento(input: {
  bodegaId: number;
  productoId: number;
  tipo: string | undefined;
  motivo: string | undefined;
  cantidad: number;
  comentario?: string;
  expectedVersion?: number;
}): MovimientoSolicitado {
  const tipo = TIPOS_MOVIMIENTO_REGISTRABLES.find((t) => t === input.tipo);
  const { expectedVersion: _version, ...out } = parseFields(esquemaMovimiento(tipo), input);
  return out;
}

/**
 * zod compiles an object schema on its first parse (about 0.1 ms): one schema per movement type,
 * built once, rather than one per call on every stock write's path.
 */
const esquemasMovimiento = new Map<TipoMovimientoRegistrable | undefined, ReturnType<typeof crearEsquemaMovimiento>>();
function esquemaMovimiento(tipo: TipoMovimientoRegistrable | undefined) {
  let esquema = esquemasMovimiento.get(tipo);
  if (!esquema) esquemasMovimiento.set(tipo, (esquema = crearEsquemaMovimiento(tipo)));
  return esquema;
}

function crearEsquemaMovimiento(tipo: TipoMovimientoRegistrable | undefined) {
  // The rules and their wording are the contract's (@inventario/contract), which the BFF's early refusal shares.
  return z.object({
    tipo: z.enum(TIPOS_MOVIMIENTO_REGISTRABLES, { error: STOCK_MENSAJES.tipo('tiene su propio comando') }),
    motivo: z
      .string()
      .optional()
      .refine((m) => !tipo || m === undefined || motivoAdmitido(tipo, m), tipo && STOCK_MENSAJES.motivoDeTipo(tipo))
      .transform((m) => (m as MotivoMovimiento | undefined) ?? (tipo && MOTIVOS_POR_TIPO[tipo][0]) ?? 'CONTEO'),
    ...NIVEL,
    // Judged against a valid tipo only; without one, the field's plain bound.
    cantidad: !tipo
      ? cantidad(1)
      : cantidadMinima(tipo) === 1
        ? cantidad(0).refine((n) => n >= 1, STOCK_MENSAJES.cantidadPositiva)
        : cantidad(0),
    comentario,
    expectedVersion:
      tipo && exigeVersion(tipo)
        ? z.number({ error: STOCK_MENSAJES.ajusteSinVersion('expectedVersion', 'GetExistencia') })
        : z.unknown().optional(),
  });
}

export interface Transferencia {
  productoId: number;
  origenId: number;
  destinoId: number;
  cantidad: number;
  comentario: string | null;
}

export function validateTransferencia(input: {
  productoId: number;
  origenId: number;
  destinoId: number;
  cantidad: number;
  comentario?: string;
}): Transferencia {
  const misma = 'ok' in checkPositiveId(input.origenId) && mismaBodega(input.origenId, input.destinoId);
  return parseFields(misma ? TRANSFERENCIA_MISMA_BODEGA : TRANSFERENCIA, input);
}

// Built once (see esquemaMovimiento); the same warehouse at both ends adds its own issue, also beside others.
const TRANSFERENCIA = z.object({
  productoId: idNumero(),
  origenId: idNumero(),
  destinoId: idNumero(),
  cantidad: cantidad(1),
  comentario,
});
const TRANSFERENCIA_MISMA_BODEGA = TRANSFERENCIA.check(
  z.refine(() => false, { path: ['destinoId'], message: STOCK_MENSAJES.mismaBodega, when: () => true }),
);

const REVERSO = z.object({
  operacionId: z
    .number({ error: ID_MENSAJES.positivo })
    .refine((id) => Number.isSafeInteger(id) && id > 0, ID_MENSAJES.positivo),
  comentario,
});

export const validateReverso = (input: {
  operacionId: number;
  comentario?: string;
}): { operacionId: number; comentario: string | null } => parseFields(REVERSO, input);

/** Line type of each operation type that writes one kind of line. */
export const TIPO_LINEA: Partial<Record<TipoOperacion, TipoMovimiento>> = {
  ASIGNACION: 'AJUSTE',
  AJUSTE: 'AJUSTE',
  ENTRADA: 'ENTRADA',
  SALIDA: 'SALIDA',
  RETIRO: 'SALIDA',
  PRODUCTO_ELIMINADO: 'SALIDA',
  BODEGA_ELIMINADA: 'SALIDA',
  TRANSFERENCIA: 'TRANSFERENCIA',
};
