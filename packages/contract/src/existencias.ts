/**
 * The stock ledger's vocabulary and the rules of a stock command that need no stored state
 * (docs/contract.md §10.2), each with its one wording. bodega-svc's domain judges every command
 * by them; the BFF's REST and GraphQL refuse a malformed request early with the same functions
 * and words, so no surface can say a rule differently from its owner (issue 25: each rule once).
 * The rules of the levels themselves (stock, capacity, versions) need the locked rows: bodega-svc's.
 */

export const TIPOS_MOVIMIENTO = ['ENTRADA', 'SALIDA', 'TRANSFERENCIA', 'AJUSTE'] as const;
export type TipoMovimiento = (typeof TIPOS_MOVIMIENTO)[number];

export const MOTIVOS_MOVIMIENTO = [
  'ASIGNACION',
  'RECEPCION',
  'VENTA',
  'CONTEO',
  'RETIRO',
  'TRANSFERENCIA',
  'REVERSO',
  'PRODUCTO_ELIMINADO',
  'BODEGA_ELIMINADA',
  'DEVOLUCION',
  'MERMA',
  // A product's units from before the ledger knew them (docs/contract.md §10.6): never a client's choice.
  'STOCK_INICIAL',
  'MIGRACION',
] as const;
export type MotivoMovimiento = (typeof MOTIVOS_MOVIMIENTO)[number];

/**
 * What a client may name as a movement's motivo: every motivo but those only the services write (a product's initial
 * stock, the migration).
 */
export const MOTIVOS_DE_CLIENTE = MOTIVOS_MOVIMIENTO.filter(
  (m): m is Exclude<MotivoMovimiento, 'STOCK_INICIAL' | 'MIGRACION'> => m !== 'STOCK_INICIAL' && m !== 'MIGRACION',
) as [
  Exclude<MotivoMovimiento, 'STOCK_INICIAL' | 'MIGRACION'>,
  ...Exclude<MotivoMovimiento, 'STOCK_INICIAL' | 'MIGRACION'>[],
];

/** A transfer has its own command. */
export const TIPOS_MOVIMIENTO_REGISTRABLES = ['ENTRADA', 'SALIDA', 'AJUSTE'] as const;
export type TipoMovimientoRegistrable = (typeof TIPOS_MOVIMIENTO_REGISTRABLES)[number];

/** The first is the default (docs/contract.md §10.2). */
export const MOTIVOS_POR_TIPO: Readonly<Record<TipoMovimientoRegistrable, readonly MotivoMovimiento[]>> = {
  ENTRADA: ['RECEPCION', 'DEVOLUCION'],
  SALIDA: ['VENTA', 'MERMA'],
  AJUSTE: ['CONTEO', 'MERMA'],
};

export const TIPOS_OPERACION = [
  'ASIGNACION',
  'RETIRO',
  'ENTRADA',
  'SALIDA',
  'AJUSTE',
  'TRANSFERENCIA',
  'REVERSO',
  'PRODUCTO_ELIMINADO',
  'BODEGA_ELIMINADA',
] as const;
export type TipoOperacion = (typeof TIPOS_OPERACION)[number];

/** The one wording of each rule below, as the field it names reads it. */
export const STOCK_MENSAJES = {
  /** `transferencia`: how the surface names a transfer's own command, e.g. "tiene su propia ruta". */
  tipo: (transferencia: string) =>
    `debe ser uno de ${TIPOS_MOVIMIENTO_REGISTRABLES.join(', ')} (una transferencia ${transferencia})`,
  motivo: `debe ser uno de ${MOTIVOS_DE_CLIENTE.join(', ')}`,
  motivoDeTipo: (tipo: TipoMovimientoRegistrable) =>
    `no es un motivo de ${tipo} (admitidos: ${MOTIVOS_POR_TIPO[tipo].join(', ')})`,
  cantidadPositiva: 'debe ser al menos 1 en una ENTRADA o una SALIDA',
  mismaBodega: 'debe ser distinta de origenId',
  /**
   * `version`: how the surface carries the level's version (REST: "la versión en If-Match"); `lectura`: where
   * the client reads it.
   */
  ajusteSinVersion: (version: string, lectura: string) =>
    `un AJUSTE (un conteo) requiere ${version}, la de la existencia contada: léala en ${lectura}`,
} as const;

/** A movement's motivo must be one its tipo allows; absent, the tipo's first is taken. */
export const motivoAdmitido = (tipo: TipoMovimientoRegistrable, motivo: string): boolean =>
  MOTIVOS_POR_TIPO[tipo].some((m) => m === motivo);

/** ENTRADA and SALIDA move at least one unit; an AJUSTE sets the counted quantity, 0 included. */
export const cantidadMinima = (tipo: TipoMovimientoRegistrable): 0 | 1 => (tipo === 'AJUSTE' ? 0 : 1);

/**
 * A count records what was found against a state the counter saw: without the level's version, a
 * count taken while units moved would silently erase those movements.
 */
export const exigeVersion = (tipo: TipoMovimientoRegistrable): boolean => tipo === 'AJUSTE';

/** A transfer moves units between two different warehouses. */
export const mismaBodega = (origenId: number, destinoId: number): boolean => origenId === destinoId;
