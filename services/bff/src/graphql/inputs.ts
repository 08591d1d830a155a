import { ID_MENSAJES, IDEMPOTENCY_KEY_MENSAJE, InvalidArgumentError, isIdempotencyKey, MAX_INT32, requirePositiveId, validateFields } from '@inventario/platform';
import type { BodegaInput, BodegaPatch, ProductoInput, ProductoPatch, WriteOptions } from '../inventario/model';
import { integerFromNumberText, precioFromNumberText } from '../http/json-number';
import { isWellFormedText, TEXTO_MENSAJES } from '../inventario/texto';

/**
 * GraphQL inputs to the BFF model (REST form). Only the shape changes here
 * (`cantidad` -> `cantidadEnStock`, ID strings -> numbers, Float -> decimal
 * text); the business rules stay with the services, whose violations name the
 * same fields. Only what the services cannot see is checked here: ids, nulls
 * for NOT NULL fields, text that is not well-formed Unicode (which would
 * reach them already altered), and the price and stock as the client wrote
 * them (which reach them as a double's text). Every problem is an InvalidArgumentError
 * naming the GraphQL field, which a mutation turns into `success: false`.
 */

/** The spec's default `capacidad` of a warehouse created through GraphQL without one. */
export const CAPACIDAD_POR_DEFECTO = 1000;

export interface ProductoInputArgs {
  nombre: string;
  descripcion?: string | null;
  precio: number;
  cantidad: number;
  bodegaId?: string | null;
}

export interface ProductoUpdateInputArgs {
  id: string;
  nombre?: string | null;
  descripcion?: string | null;
  precio?: number | null;
  cantidad?: number | null;
  bodegaId?: string | null;
  version?: number | null;
}

export interface BodegaInputArgs {
  nombre: string;
  ubicacion: string;
  capacidad?: number | null;
}

export interface BodegaUpdateInputArgs {
  id: string;
  nombre?: string | null;
  ubicacion?: string | null;
  capacidad?: number | null;
  version?: number | null;
}

/** The arguments that make a mutation a safe write (docs/contract.md §9). */
export interface SafeWriteArgs {
  idempotencyKey?: string | null;
  /** Of the delete mutations; updates carry it in their input. */
  version?: number | null;
}

/**
 * A mutation's `version` and `idempotencyKey` as WriteOptions: a version is
 * a positive Int, a key 1 to 255 visible ASCII characters, else an
 * InvalidArgumentError naming the argument (success false).
 */
export function toWriteOptions(args: SafeWriteArgs): WriteOptions {
  const write: WriteOptions = {};
  const { idempotencyKey, version } = args;
  if (idempotencyKey !== null && idempotencyKey !== undefined) {
    if (!isIdempotencyKey(idempotencyKey)) throw InvalidArgumentError.field('idempotencyKey', IDEMPOTENCY_KEY_MENSAJE);
    write.idempotencyKey = idempotencyKey;
  }
  if (version !== null && version !== undefined) {
    if (version < 1) throw InvalidArgumentError.field('version', 'debe ser un número entero positivo');
    write.ifMatch = version;
  }
  return write;
}

/** An `ID` argument as a record id: plain decimal digits naming a positive id, else InvalidArgumentError on `campo`. */
export function parseId(value: string, campo: string): number {
  if (!/^\d{1,10}$/.test(value)) throw InvalidArgumentError.field(campo, ID_MENSAJES.positivo);
  return requirePositiveId(Number(value), campo);
}

/**
 * A price argument under REST's rule (json-number.ts, same messages): the
 * decimal text the client wrote (`texto`, read by number-text.ts from the
 * document or the JSON variables) must be >= 0 with at most 2 decimals and
 * at most 99999999.99, never rounded; passed on as canonical text
 * (`"19.90"`). graphql-js's double is only the fallback for a caller that
 * has no text (none over HTTP): its shortest text (`String()`) is exact for
 * every price with at most 2 decimals.
 */
function precioArg(precio: number, texto: string | undefined, campo: string): string {
  const checked = precioFromNumberText(texto ?? String(precio));
  if ('mensaje' in checked) throw InvalidArgumentError.field(campo, checked.mensaje);
  return checked.ok;
}

/**
 * A stock argument under REST's rule for `cantidadEnStock`, on its text too:
 * an Int variable written `19.999999999999999999` is the double 20 to
 * graphql-js, but not a whole number. Checked here with the price, so one
 * answer names every bad number of the input.
 */
function cantidadArg(cantidad: number, texto: string | undefined, campo: string): number {
  const checked = integerFromNumberText(texto ?? String(cantidad), 0, MAX_INT32);
  if ('mensaje' in checked) throw InvalidArgumentError.field(campo, checked.mensaje);
  return checked.ok;
}

/** The number texts the client wrote for an input's numeric fields (see precioArg, cantidadArg). */
export interface InputNumberTexts {
  precio?: string;
  cantidad?: string;
}

export function optionalId(value: string | null | undefined, campo: string): number | null | undefined {
  return value === null || value === undefined ? value : parseId(value, campo);
}

/** A text argument as is, unless it holds a lone UTF-16 surrogate (which the services would store as U+FFFD). */
export function texto<T extends string | null | undefined>(value: T, campo: string): T {
  if (typeof value === 'string' && !isWellFormedText(value)) throw InvalidArgumentError.field(campo, TEXTO_MENSAJES.malFormado);
  return value;
}

/** A field that may be left out of an update, but not set to null (its column is NOT NULL). */
function notNull<T>(value: T | null | undefined, campo: string): T | undefined {
  if (value === null) throw InvalidArgumentError.field(campo, 'no puede ser null');
  return value;
}

/** Copies the keys whose value is not undefined: absent fields of an update keep their value. */
function present<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * An update must change something (docs/contract.md §2.6, §4.3). Checked here
 * too, not only downstream, so the message names the GraphQL fields.
 */
function requireSomething(patch: object, admitidos: string): void {
  if (Object.keys(patch).length === 0) {
    throw InvalidArgumentError.field('input', `no contiene ningún campo que actualizar (admitidos: ${admitidos})`);
  }
}

export function toProductoInput(input: ProductoInputArgs, texts: InputNumberTexts = {}): ProductoInput {
  const fields = validateFields({
    nombre: () => texto(input.nombre, 'nombre'),
    descripcion: () => texto(input.descripcion, 'descripcion'),
    precio: () => precioArg(input.precio, texts.precio, 'precio'),
    cantidad: () => cantidadArg(input.cantidad, texts.cantidad, 'cantidad'),
    bodegaId: () => optionalId(input.bodegaId, 'bodegaId'),
  });
  // On create, an omitted optional field and an explicit null both mean "none".
  return {
    nombre: fields.nombre,
    descripcion: fields.descripcion ?? null,
    precio: fields.precio,
    cantidadEnStock: fields.cantidad,
    bodegaId: fields.bodegaId ?? null,
  };
}

/** The id and the fields to change (only those present in the input). */
export function toProductoUpdate(input: ProductoUpdateInputArgs, texts: InputNumberTexts = {}): { id: number; patch: ProductoPatch } {
  const fields = validateFields({
    id: () => parseId(input.id, 'id'),
    nombre: () => notNull(texto(input.nombre, 'nombre'), 'nombre'),
    descripcion: () => texto(input.descripcion, 'descripcion'),
    precio: () => {
      const precio = notNull(input.precio, 'precio');
      return precio === undefined ? undefined : precioArg(precio, texts.precio, 'precio');
    },
    cantidad: () => {
      const cantidad = notNull(input.cantidad, 'cantidad');
      return cantidad === undefined ? undefined : cantidadArg(cantidad, texts.cantidad, 'cantidad');
    },
    bodegaId: () => optionalId(input.bodegaId, 'bodegaId'),
  });
  const patch = present<ProductoPatch>({
    nombre: fields.nombre,
    descripcion: fields.descripcion,
    precio: fields.precio,
    cantidadEnStock: fields.cantidad,
    bodegaId: fields.bodegaId,
  });
  requireSomething(patch, 'nombre, descripcion, precio, cantidad, bodegaId');
  return { id: fields.id, patch };
}

export function toBodegaInput(input: BodegaInputArgs): BodegaInput {
  const fields = validateFields({
    nombre: () => texto(input.nombre, 'nombre'),
    ubicacion: () => texto(input.ubicacion, 'ubicacion'),
  });
  // The spec's default applies when capacidad is omitted; an explicit null means "not given" too.
  return { nombre: fields.nombre, ubicacion: fields.ubicacion, capacidad: input.capacidad ?? CAPACIDAD_POR_DEFECTO };
}

export function toBodegaUpdate(input: BodegaUpdateInputArgs): { id: number; patch: BodegaPatch } {
  const fields = validateFields({
    id: () => parseId(input.id, 'id'),
    nombre: () => notNull(texto(input.nombre, 'nombre'), 'nombre'),
    ubicacion: () => texto(input.ubicacion, 'ubicacion'),
    capacidad: () => notNull(input.capacidad, 'capacidad'),
  });
  const patch = present<BodegaPatch>({ nombre: fields.nombre, ubicacion: fields.ubicacion, capacidad: fields.capacidad });
  requireSomething(patch, 'nombre, ubicacion, capacidad');
  return { id: fields.id, patch };
}
