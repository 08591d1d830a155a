import { randomUUID } from 'node:crypto';
import type { LineaReserva, MotivoMovimiento, TipoMovimiento, TipoOperacion } from '@inventario/contract';
import { formatLocalUtc } from './time';

/** Envelope and subjects: docs/contract.md §5 (proto/inventario/v1/events.proto for other languages). */
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
  // The one reservation event the notifier e-mails (docs/contract.md §13.8); the other four stay bodega-svc's own.
  'ReservaDescubierta',
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
  ReservaDescubierta: 'reserva.descubierta',
};

export type EventSource = 'producto-svc' | 'bodega-svc';

/** Each type has one producer (envelope `source`). */
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
  ReservaDescubierta: 'bodega-svc',
};

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
  ReservaDescubierta: /^\/reservas\/[1-9][0-9]*$/,
};

export function eventSubject(prefix: string, type: EventType): string {
  return `${prefix}.${SUBJECT_SUFFIX[type]}`;
}

export function eventTypeOfSubject(prefix: string, subject: string): EventType | undefined {
  return EVENT_TYPES.find((type) => eventSubject(prefix, type) === subject);
}

export type Accion = 'CREAR' | 'ACTUALIZAR' | 'ELIMINAR';
export type Operacion = 'CREATE' | 'UPDATE' | 'DELETE';

export interface EventAudit {
  /** ISO 8601 local form, UTC. */
  timestamp: string;
  /** `system` for internal work. */
  usuario: string;
  accion: Accion;
  operacion: Operacion;
}

/** Public (REST) names, in the order events list them. */
export const PRODUCTO_CAMPOS = ['nombre', 'descripcion', 'precio', 'cantidadEnStock', 'bodegaId'] as const;
export type ProductoCampo = (typeof PRODUCTO_CAMPOS)[number];

export const BODEGA_CAMPOS = ['nombre', 'ubicacion', 'capacidad'] as const;
export type BodegaCampo = (typeof BODEGA_CAMPOS)[number];

/** Carries the fields of both historical variants. */
export interface ProductoEventData extends EventAudit {
  productoId: number;
  nombre: string;
  descripcion: string | null;
  /** JSON number rendered from the stored decimal; never computed. */
  precio: number;
  cantidadEnStock: number;
  cantidad: number;
  bodegaId: number | null;
  /** ProductoActualizado only (additive): fields whose stored value changed; `[]` when none did. */
  camposModificados?: ProductoCampo[];
  /** After the write (additive), so a consumer can order updates and ignore an older one. */
  version: number;
}

export interface BodegaEventData extends EventAudit {
  bodegaId: number;
  nombre: string;
  ubicacion: string | null;
  capacidad: number;
  /** BodegaActualizada only (additive), as for products. */
  camposModificados?: BodegaCampo[];
  version: number;
}

/** `nombre` and `version` are additive. */
export interface DeletedEventData extends EventAudit {
  id: number;
  nombre: string;
  version: number;
}

export interface MovimientoData {
  id: number;
  operacionId: number;
  bodegaId: number;
  productoId: number;
  tipo: TipoMovimiento;
  motivo: MotivoMovimiento;
  /** Signed. */
  cantidad: number;
  cantidadAnterior: number;
  cantidadPosterior: number;
  version: number;
  usuario: string;
  comentario: string | null;
  /** ISO 8601 local form, UTC. */
  fecha: string;
}

/** One operation with all its lines, so a transfer is never seen half-done. */
export interface MovimientoRegistradoData {
  operacionId: number;
  tipoOperacion: TipoOperacion;
  usuario: string;
  comentario: string | null;
  revierteA: number | null;
  timestamp: string;
  movimientos: MovimientoData[];
  /** The verified principal of the call (issue 26, docs/contract.md §12.9); absent without one. */
  principalId?: number;
  /** `password`, `token` or `system`, with principalId. */
  metodoAuth?: string;
  /** The API token used, when metodoAuth is `token`. */
  tokenId?: number;
}

/** The level after the write that crossed its threshold. */
export interface StockUmbralData {
  bodegaId: number;
  productoId: number;
  cantidad: number;
  umbralMinimo: number | null;
  version: number;
  /** The operation whose line crossed the threshold; null when a threshold change (no line) did. */
  operacionId: number | null;
  usuario: string;
  timestamp: string;
  /**
   * Added (issue 24, docs/contract.md §13.9): present when the level's threshold watches `disponible`
   * (`cantidad - reservada`), with the figures it was judged on; absent, the threshold watches `cantidad`.
   */
  alertaSobre?: 'DISPONIBLE';
  reservada?: number;
  disponible?: number;
}

/** A reservation's line as its events carry it (docs/contract.md §13.1): the contract's line, field for field. */
export type ReservaLineaData = LineaReserva;

/**
 * ReservaDescubierta (docs/contract.md §13.3, §13.4): the reservation after a count (or a deletion) left its levels
 * short, ended DESCUBIERTA on all of them; `faltante` says, per level, the units promised that are not there.
 */
export interface ReservaDescubiertaData {
  reservaId: number;
  referencia: string;
  estado: 'DESCUBIERTA';
  /** ISO 8601 in UTC with its zone (`2026-11-25T10:20:00.000Z`): the exact instant the hold would have ended. */
  expiraEn: string;
  version: number;
  lineas: ReservaLineaData[];
  faltante: { bodegaId: number; productoId: number; unidades: number }[];
  usuario: string;
  timestamp: string;
}

export type EventData =
  | ProductoEventData
  | BodegaEventData
  | DeletedEventData
  | MovimientoRegistradoData
  | StockUmbralData
  | ReservaDescubiertaData;

export interface EventEnvelope<D extends EventData = EventData> {
  /** UUID; also the `Nats-Msg-Id` header, so JetStream drops re-publications. */
  id: string;
  eventType: string;
  subject: string;
  eventTime: string;
  dataVersion: '1.0';
  /** Additive: consumers refuse a source other than EVENT_SOURCE[type]. */
  source?: EventSource;
  data: D;
}

export const ACCION: Record<Operacion, Accion> = { CREATE: 'CREAR', UPDATE: 'ACTUALIZAR', DELETE: 'ELIMINAR' };

export function eventAudit(operacion: Operacion, usuario: string, at: Date): EventAudit {
  return { timestamp: formatLocalUtc(at), usuario, accion: ACCION[operacion], operacion };
}

export interface NewEvent<D extends EventData> {
  namespace: string;
  type: EventType;
  source: EventSource;
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
 * Why an envelope is not what the producer of `natsSubject` would publish,
 * so a forged or misrouted event fails before anything acts on it.
 * `requireSource` false accepts a missing `source`, never a wrong one.
 */
export function envelopeMismatch(
  envelope: { eventType: string; subject: string; source?: unknown },
  expected: { prefix: string; namespace: string; natsSubject: string; requireSource: boolean },
): string | undefined {
  const type = eventTypeOfSubject(expected.prefix, expected.natsSubject);
  if (!type) return `subject ${expected.natsSubject} carries no event type`;
  if (envelope.eventType !== `${expected.namespace}.Inventario.${type}`)
    return `eventType ${envelope.eventType} does not match subject ${expected.natsSubject}`;
  if (!EVENT_SUBJECT_PATTERN[type].test(envelope.subject))
    return `subject ${envelope.subject} is not a record of ${type}`;
  if (envelope.source === undefined && !expected.requireSource) return undefined;
  if (envelope.source !== EVENT_SOURCE[type])
    return `source ${String(envelope.source)} is not ${EVENT_SOURCE[type]}, the producer of ${type}`;
  return undefined;
}

/** Compared with `===`, so values must be in stored form (precio as its decimal string, absent as null). */
export function changedFields<C extends string>(
  campos: readonly C[],
  before: { readonly [K in C]: unknown },
  after: { readonly [K in C]: unknown },
): C[] {
  return campos.filter((campo) => before[campo] !== after[campo]);
}
