import type { ProductoDe } from '@inventario/contract';
import { z } from 'zod';
import {
  anulable,
  entero,
  FIELD_MENSAJES,
  ID_MENSAJES,
  idNumero,
  InvalidArgumentError,
  MAX_DESCRIPCION_BYTES,
  MAX_INT32,
  MAX_TEXTO,
  nombre,
  NUMBER_TEXT,
  parseChanges,
  parseFields,
  precio,
  PROTO_NUMBER,
  requerido,
  textoLibre,
  type IdempotencyKey,
} from '@inventario/platform';

/**
 * Producto: the pure rules of the resource (docs/contract.md §2.5, §7.2).
 * Nothing here touches a transport or the database. Violations name the
 * public camelCase field (`campo`) and carry a Spanish message (`mensaje`).
 */

/** A product as stored: its instants are `Date`s. */
export type Producto = ProductoDe<Date>;

/** The writable fields of a product, validated and normalised. */
export interface NewProducto {
  nombre: string;
  descripcion: string | null;
  precio: string;
  cantidadEnStock: number;
  bodegaId: number | null;
}

/** A partial update: a key that is present is set (null clears a nullable field). */
export type ProductoChanges = Partial<NewProducto>;

/** Unvalidated input from a transport: any field may be missing or of the wrong type. */
export type ProductoDraft = { [K in keyof NewProducto]?: unknown };

/** Who makes a write; ends up in the event's `usuario` and headers. */
export interface WriteContext {
  /** Basic-auth user of the public call, or `system` for internal work. */
  usuario: string;
  /** W3C trace context of the call, forwarded as event headers. */
  traceparent?: string;
  tracestate?: string;
  /** The write's idempotency key, when the call carries one. */
  idempotency?: IdempotencyKey;
  /** Aborted when the caller is gone: the write rolls back instead of committing. */
  signal?: AbortSignal;
}

/** The column limits (platform's field rules): INT, VARCHAR(255) in code points, TEXT in bytes. */
export const MAX_INT = MAX_INT32;
export const MAX_NOMBRE_CHARS = MAX_TEXTO;
export { MAX_DESCRIPCION_BYTES };

export const MENSAJES = {
  ...FIELD_MENSAJES,
  nombreLargo: FIELD_MENSAJES.maxCaracteres(MAX_NOMBRE_CHARS),
  descripcionLarga: FIELD_MENSAJES.maxBytes(MAX_DESCRIPCION_BYTES),
  enteroMaximo: FIELD_MENSAJES.maximo(MAX_INT),
  idPositivo: ID_MENSAJES.positivo,
  idMaximo: ID_MENSAJES.maximo,
  perBodegaSinBodegas: 'solo se admite junto con bodegaIds',
} as const;

/** bodegaId names no warehouse: bodega-svc does not have it, or BodegaEliminada reported it deleted. */
export function bodegaEliminadaError(bodegaId: number): InvalidArgumentError {
  return InvalidArgumentError.field('bodegaId', `no existe la bodega ${bodegaId}`);
}

/**
 * The fields' rules, platform's building blocks (the BFF's too): nombre is
 * trimmed (as a warehouse's), precio is decimal text read exactly, as the
 * BFF reads a JSON number (`1.500`, `1e3` and `-0` are valid; the result is
 * canonical, "1.50", "1000.00", "0.00"), never through a float, never rounded.
 * Whether bodegaId names a warehouse is asked of bodega-svc by the handlers (grpc/bodega-lookup.ts).
 */
const CAMPOS = z.object({
  nombre: requerido(nombre()),
  descripcion: anulable(textoLibre()),
  precio: requerido(precio(NUMBER_TEXT)),
  cantidadEnStock: entero(PROTO_NUMBER, 0, MAX_INT),
  bodegaId: anulable(idNumero()),
});

/** Validates a new product: every required field present and valid; every violation named at once, in field order. */
export const validateNewProducto = (draft: ProductoDraft): NewProducto => parseFields(CAMPOS, draft);

/**
 * Validates a partial update: only the keys present in `draft` are checked
 * and returned. A present required field must be valid (an update cannot
 * blank nombre or precio); a present nullable field may be null to clear it.
 */
export const validateProductoChanges = (draft: ProductoDraft): ProductoChanges => parseChanges(CAMPOS, draft);
