import {
  caracteres,
  checkPositiveId,
  FIELD_MENSAJES,
  ID_MENSAJES,
  InvalidArgumentError,
  MAX_DESCRIPCION_BYTES,
  MAX_INT32,
  MAX_TEXTO,
  PRECIO,
  type FieldViolation,
  type IdempotencyKey,
} from '@inventario/platform';

// The id rule is platform's, shared with bodega-svc: one rule, one message.

/**
 * Producto: the pure rules of the resource (docs/contract.md §2.5, §7.2).
 * Nothing here touches a transport or the database. Violations name the
 * public camelCase field (`campo`) and carry a Spanish message (`mensaje`).
 */

/** A product as stored. */
export interface Producto {
  id: number;
  nombre: string;
  descripcion: string | null;
  /** The DECIMAL(10,2) as its canonical string, e.g. "1234.50": money is never a float. */
  precio: string;
  cantidadEnStock: number;
  /** The warehouse holding the product (owned by bodega-svc); null when unassigned. */
  bodegaId: number | null;
  /** UTC, whole seconds. */
  fechaCreacion: Date;
  /** UTC, whole seconds; equals fechaCreacion on creation. */
  fechaActualizacion: Date;
  /** 1 at creation, +1 on each write: what a conditional write compares (REST ETag). */
  version: number;
}

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
} as const;

/** bodegaId names a warehouse that BodegaEliminada reported deleted (the BFF's words for a missing one). */
export function bodegaEliminadaError(bodegaId: number): InvalidArgumentError {
  return InvalidArgumentError.field('bodegaId', `no existe la bodega ${bodegaId}`);
}

/** A field rule: the normalised value, or the reason it is rejected. */
type Rule<T> = (value: unknown) => { ok: T } | { mensaje: string };

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

/** Surrounding spaces are trimmed (as for warehouse names): " Tornillo " is stored as "Tornillo". */
const nombreRule: Rule<string> = (value) => {
  if (isAbsent(value) || value === '') return { mensaje: MENSAJES.obligatorio };
  if (typeof value !== 'string') return { mensaje: MENSAJES.texto };
  const nombre = value.trim();
  if (nombre === '') return { mensaje: MENSAJES.enBlanco };
  if (caracteres(nombre) > MAX_NOMBRE_CHARS) return { mensaje: MENSAJES.nombreLargo };
  return { ok: nombre };
};

const descripcionRule: Rule<string | null> = (value) => {
  if (isAbsent(value)) return { ok: null };
  if (typeof value !== 'string') return { mensaje: MENSAJES.texto };
  if (Buffer.byteLength(value, 'utf8') > MAX_DESCRIPCION_BYTES) return { mensaje: MENSAJES.descripcionLarga };
  return { ok: value };
};

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * precio is a decimal string checked digit by digit, never parsed into a
 * float: what the client wrote is what is stored, or it is rejected (never
 * silently rounded). Exponents ("1e3") and bare points (".5") are rejected.
 * The result is canonical: no leading zeros, exactly two decimals.
 */
const precioRule: Rule<string> = (value) => {
  if (isAbsent(value) || value === '') return { mensaje: MENSAJES.obligatorio };
  if (typeof value !== 'string') return { mensaje: MENSAJES.decimal };
  const match = DECIMAL.exec(value);
  if (!match) return { mensaje: MENSAJES.decimal };
  const [, sign = '', integer = '', fraction = ''] = match;
  if (sign === '-') return { mensaje: MENSAJES.negativo };
  if (fraction.length > PRECIO.decimales) return { mensaje: MENSAJES.dosDecimales };
  const significant = integer.replace(/^0+/, '');
  if (significant.length > PRECIO.digitosEnteros) return { mensaje: MENSAJES.precioMaximo };
  return { ok: `${significant || '0'}.${fraction.padEnd(2, '0')}` };
};

const cantidadEnStockRule: Rule<number> = (value) => {
  if (isAbsent(value)) return { mensaje: MENSAJES.obligatorio };
  if (typeof value !== 'number' || !Number.isInteger(value)) return { mensaje: MENSAJES.entero };
  if (value < 0) return { mensaje: MENSAJES.negativo };
  if (value > MAX_INT) return { mensaje: MENSAJES.enteroMaximo };
  return { ok: value };
};

/** A positive INT UNSIGNED id (of this or another service), up to MAX_UNSIGNED_INT. */
const idRule: Rule<number> = checkPositiveId;

/** bodegaId is optional; whether the warehouse exists is checked by the BFF, which can see bodega-svc. */
const bodegaIdRule: Rule<number | null> = (value) => (isAbsent(value) ? { ok: null } : idRule(value));

const RULES: { [K in keyof NewProducto]: Rule<NewProducto[K]> } = {
  nombre: nombreRule,
  descripcion: descripcionRule,
  precio: precioRule,
  cantidadEnStock: cantidadEnStockRule,
  bodegaId: bodegaIdRule,
};

const FIELDS = Object.keys(RULES) as Array<keyof NewProducto>;

/** Applies the rules of `fields`, collecting every violation before throwing. */
function check(draft: ProductoDraft, fields: Array<keyof NewProducto>): ProductoChanges {
  // Each value was produced by the rule of its own field.
  const out: Record<string, unknown> = {};
  const violations: FieldViolation[] = [];
  for (const field of fields) {
    const result = RULES[field](draft[field]);
    if ('mensaje' in result) violations.push({ campo: field, mensaje: result.mensaje });
    else out[field] = result.ok;
  }
  if (violations.length > 0) throw new InvalidArgumentError(violations);
  return out;
}

/** Validates a new product: every required field present and valid. */
export function validateNewProducto(draft: ProductoDraft): NewProducto {
  return check(draft, FIELDS) as NewProducto;
}

/**
 * Validates a partial update: only the keys present in `draft` are checked
 * and returned. A present required field must be valid (an update cannot
 * blank nombre or precio); a present nullable field may be null to clear it.
 */
export function validateProductoChanges(draft: ProductoDraft): ProductoChanges {
  return check(
    draft,
    FIELDS.filter((field) => field in draft),
  );
}
