import { randomUUID } from 'node:crypto';
import { formatLocalUtc } from './time';

/**
 * Business events. The envelope and subjects are the public contract of
 * docs/contract.md §5 (documented for other languages in
 * proto/inventario/v1/events.proto).
 */

/**
 * The event types, past tense, in Spanish: the six of docs/contract.md §5.1, and
 * the stock events (added): one MovimientoRegistrado per ledger operation,
 * StockBajo / StockRepuesto when a level crosses its threshold.
 */
export const EVENT_TYPES = [
  'ProductoCreado',
  'ProductoActualizado',
  'ProductoEliminado',
  'BodegaCreada',
  'BodegaActualizada',
  'BodegaEliminada',
  'MovimientoRegistrado',
  'StockBajo',
  'StockRepuesto',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const SUBJECT_SUFFIX: Record<EventType, string> = {
  ProductoCreado: 'producto.creado',
  ProductoActualizado: 'producto.actualizado',
  ProductoEliminado: 'producto.eliminado',
  BodegaCreada: 'bodega.creada',
  BodegaActualizada: 'bodega.actualizada',
  BodegaEliminada: 'bodega.eliminada',
  MovimientoRegistrado: 'movimiento.registrado',
  StockBajo: 'stock.bajo',
  StockRepuesto: 'stock.repuesto',
};

/** The services that publish events: each owns the subjects of its entity. */
export type EventSource = 'producto-svc' | 'bodega-svc';

/** The one service that produces each event type (envelope `source`). */
export const EVENT_SOURCE: Record<EventType, EventSource> = {
  ProductoCreado: 'producto-svc',
  ProductoActualizado: 'producto-svc',
  ProductoEliminado: 'producto-svc',
  BodegaCreada: 'bodega-svc',
  BodegaActualizada: 'bodega-svc',
  BodegaEliminada: 'bodega-svc',
  MovimientoRegistrado: 'bodega-svc',
  StockBajo: 'bodega-svc',
  StockRepuesto: 'bodega-svc',
};

/**
 * What an envelope's `subject` names, per event type: a product, a
 * warehouse, a ledger operation (`/operaciones/{id}`) or a stock level
 * (`/bodegas/{id}/existencias/{productoId}`).
 */
export const EVENT_SUBJECT_PATTERN: Record<EventType, RegExp> = {
  ProductoCreado: /^\/productos\/[1-9][0-9]*$/,
  ProductoActualizado: /^\/productos\/[1-9][0-9]*$/,
  ProductoEliminado: /^\/productos\/[1-9][0-9]*$/,
  BodegaCreada: /^\/bodegas\/[1-9][0-9]*$/,
  BodegaActualizada: /^\/bodegas\/[1-9][0-9]*$/,
  BodegaEliminada: /^\/bodegas\/[1-9][0-9]*$/,
  MovimientoRegistrado: /^\/operaciones\/[1-9][0-9]*$/,
  StockBajo: /^\/bodegas\/[1-9][0-9]*\/existencias\/[1-9][0-9]*$/,
  StockRepuesto: /^\/bodegas\/[1-9][0-9]*\/existencias\/[1-9][0-9]*$/,
};

/** NATS subject of an event type, e.g. `inventario.producto.creado`. */
export function eventSubject(prefix: string, type: EventType): string {
  return `${prefix}.${SUBJECT_SUFFIX[type]}`;
}

/** The event type published on `subject` under `prefix`, if any. */
export function eventTypeOfSubject(prefix: string, subject: string): EventType | undefined {
  return EVENT_TYPES.find((type) => eventSubject(prefix, type) === subject);
}

export type Accion = 'CREAR' | 'ACTUALIZAR' | 'ELIMINAR';
export type Operacion = 'CREATE' | 'UPDATE' | 'DELETE';

/** Who and when, common to every `data`. */
export interface EventAudit {
  /** ISO 8601 local form, UTC. */
  timestamp: string;
  /** Basic-auth user of the call, or `system` for internal work. */
  usuario: string;
  accion: Accion;
  operacion: Operacion;
}

/** The public (REST) names of a product's writable fields, in the order events list them. */
export const PRODUCTO_CAMPOS = ['nombre', 'descripcion', 'precio', 'cantidadEnStock', 'bodegaId'] as const;
export type ProductoCampo = (typeof PRODUCTO_CAMPOS)[number];

/** The public (REST) names of a warehouse's writable fields, in the order events list them. */
export const BODEGA_CAMPOS = ['nombre', 'ubicacion', 'capacidad'] as const;
export type BodegaCampo = (typeof BODEGA_CAMPOS)[number];

/** data of ProductoCreado / ProductoActualizado: the fields of both historical variants. */
export interface ProductoEventData extends EventAudit {
  productoId: number;
  nombre: string;
  descripcion: string | null;
  /** JSON number rendered from the stored decimal; never computed. */
  precio: number;
  cantidadEnStock: number;
  cantidad: number;
  bodegaId: number | null;
  /**
   * ProductoActualizado only (additive; absent on ProductoCreado and from
   * older producers): the fields whose stored value the update changed, in
   * PRODUCTO_CAMPOS order. A field the update set to the value it already
   * had is not listed (the store compares with the row it locked), so `[]`
   * means the update changed no value. See {@link changedFields}.
   */
  camposModificados?: ProductoCampo[];
  /**
   * The product's version after the write (additive): 1 on creation, +1 on
   * each update, so a consumer can order updates and ignore an older one.
   */
  version: number;
}

/** data of BodegaCreada / BodegaActualizada. */
export interface BodegaEventData extends EventAudit {
  bodegaId: number;
  nombre: string;
  ubicacion: string | null;
  capacidad: number;
  /**
   * BodegaActualizada only (additive; absent on BodegaCreada and from older
   * producers): the fields whose stored value the update changed, in
   * BODEGA_CAMPOS order; `[]` when no value differed. See {@link changedFields}.
   */
  camposModificados?: BodegaCampo[];
  /** The warehouse's version after the write (additive), as for products. */
  version: number;
}

/** data of ProductoEliminado / BodegaEliminada (`nombre` is an additive field). */
export interface DeletedEventData extends EventAudit {
  id: number;
  nombre: string;
  /** The record's last version before the delete (additive). */
  version: number;
}

/** Line types of the stock ledger. */
export const TIPOS_MOVIMIENTO = ['ENTRADA', 'SALIDA', 'TRANSFERENCIA', 'AJUSTE'] as const;
export type TipoMovimiento = (typeof TIPOS_MOVIMIENTO)[number];

/** Why units moved: the closed list of reasons a ledger line carries. */
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
] as const;
export type MotivoMovimiento = (typeof MOTIVOS_MOVIMIENTO)[number];

/** The movement types a client registers on one warehouse (a transfer has its own command). */
export const TIPOS_MOVIMIENTO_REGISTRABLES = ['ENTRADA', 'SALIDA', 'AJUSTE'] as const;
export type TipoMovimientoRegistrable = (typeof TIPOS_MOVIMIENTO_REGISTRABLES)[number];

/** The reasons a client may give for each movement type; the first is the default (docs/contract.md §10.2). */
export const MOTIVOS_POR_TIPO: Readonly<Record<TipoMovimientoRegistrable, readonly MotivoMovimiento[]>> = {
  ENTRADA: ['RECEPCION', 'DEVOLUCION'],
  SALIDA: ['VENTA', 'MERMA'],
  AJUSTE: ['CONTEO', 'MERMA'],
};

/** The commands that write ledger lines: one operation each. */
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

/** One ledger line, as events and the REST API show it. */
export interface MovimientoData {
  id: number;
  operacionId: number;
  bodegaId: number;
  productoId: number;
  tipo: TipoMovimiento;
  motivo: MotivoMovimiento;
  /** Signed: what the line added to the level. */
  cantidad: number;
  cantidadAnterior: number;
  cantidadPosterior: number;
  /** The level's version after the line. */
  version: number;
  usuario: string;
  comentario: string | null;
  /** ISO 8601 local form, UTC. */
  fecha: string;
}

/** data of MovimientoRegistrado: one operation with all its lines, so a transfer is never seen half-done. */
export interface MovimientoRegistradoData {
  operacionId: number;
  tipoOperacion: TipoOperacion;
  usuario: string;
  comentario: string | null;
  /** For a reversal: the operation it reversed; else null. */
  revierteA: number | null;
  timestamp: string;
  movimientos: MovimientoData[];
}

/** data of StockBajo / StockRepuesto: the level after the write that crossed its threshold. */
export interface StockUmbralData {
  bodegaId: number;
  productoId: number;
  cantidad: number;
  umbralMinimo: number | null;
  /** The level's version after the write. */
  version: number;
  /** The operation whose line crossed the threshold. */
  operacionId: number;
  /** Who made that operation (Basic-auth user, or `system`). */
  usuario: string;
  timestamp: string;
}

export type EventData = ProductoEventData | BodegaEventData | DeletedEventData | MovimientoRegistradoData | StockUmbralData;

/** The envelope every event travels in. */
export interface EventEnvelope<D extends EventData = EventData> {
  /** UUID; also the `Nats-Msg-Id` header, so JetStream drops re-publications. */
  id: string;
  /** `<namespace>.Inventario.<EventType>`. */
  eventType: string;
  /** What the event is about: see EVENT_SUBJECT_PATTERN. */
  subject: string;
  eventTime: string;
  dataVersion: '1.0';
  /**
   * The producing service (additive): `producto-svc` or `bodega-svc`, the
   * one EVENT_SOURCE names for the type. Consumers refuse an event whose
   * source is another; absent only in events of releases before it.
   */
  source?: EventSource;
  data: D;
}

export const ACCION: Record<Operacion, Accion> = { CREATE: 'CREAR', UPDATE: 'ACTUALIZAR', DELETE: 'ELIMINAR' };

/** The audit block for `operacion` at `at` by `usuario`. */
export function eventAudit(operacion: Operacion, usuario: string, at: Date): EventAudit {
  return { timestamp: formatLocalUtc(at), usuario, accion: ACCION[operacion], operacion };
}

export interface NewEvent<D extends EventData> {
  namespace: string;
  type: EventType;
  /** The service building it: must be EVENT_SOURCE[type] (consumers check it). */
  source: EventSource;
  /** `/productos/{id}` or `/bodegas/{id}`. */
  subject: string;
  data: D;
  at: Date;
}

export function buildEnvelope<D extends EventData>(event: NewEvent<D>): EventEnvelope<D> {
  return {
    id: randomUUID(),
    eventType: `${event.namespace}.Inventario.${event.type}`,
    subject: event.subject,
    eventTime: formatLocalUtc(event.at),
    dataVersion: '1.0',
    source: event.source,
    data: event.data,
  };
}

/**
 * Why an envelope received on `natsSubject` is not what the producer of that
 * subject would publish, or undefined when it is: its eventType must be the
 * subject's own (`<namespace>.Inventario.<Type>`), its `subject` a record of
 * the type's entity, and its `source` the type's producer. `requireSource`
 * false accepts an envelope without `source` (an older producer), never a
 * wrong one. A forged or misrouted event fails here before anything acts on it.
 */
export function envelopeMismatch(
  envelope: { eventType: string; subject: string; source?: unknown },
  expected: { prefix: string; namespace: string; natsSubject: string; requireSource: boolean },
): string | undefined {
  const type = eventTypeOfSubject(expected.prefix, expected.natsSubject);
  if (!type) return `subject ${expected.natsSubject} carries no event type`;
  if (envelope.eventType !== `${expected.namespace}.Inventario.${type}`) return `eventType ${envelope.eventType} does not match subject ${expected.natsSubject}`;
  if (!EVENT_SUBJECT_PATTERN[type].test(envelope.subject)) return `subject ${envelope.subject} is not a record of ${type}`;
  if (envelope.source === undefined && !expected.requireSource) return undefined;
  if (envelope.source !== EVENT_SOURCE[type]) return `source ${String(envelope.source)} is not ${EVENT_SOURCE[type]}, the producer of ${type}`;
  return undefined;
}

/**
 * The names in `campos` whose value differs between `before` and `after`,
 * in `campos` order: what an update event lists as `camposModificados`.
 * Values are compared with `===`, so they must be in their stored form
 * (precio as its canonical decimal string, absent as null).
 */
export function changedFields<C extends string>(
  campos: readonly C[],
  before: { readonly [K in C]: unknown },
  after: { readonly [K in C]: unknown },
): C[] {
  return campos.filter((campo) => before[campo] !== after[campo]);
}
