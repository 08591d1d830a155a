import { z } from 'zod';
import { checkPositiveId, ID_MENSAJES, IDEMPOTENCY_KEY_MENSAJE, InvalidArgumentError, isIdempotencyKey, MAX_INT32 } from '@inventario/platform';
import type { BodegaInput, BodegaPatch, ProductoInput, ProductoPatch, WriteOptions } from '../inventario/model';
import { integerFromNumberText, precioFromNumberText, type Checked } from '../http/json-number';
import { fromChecked, opcionalNoNulo } from '../http/rest-fields';
import { parseWith } from '../http/validate';
import { isWellFormedText, TEXTO_MENSAJES } from '../inventario/texto';

/**
 * GraphQL inputs to the BFF model (REST form), as zod schemas like REST's
 * bodies. Only the shape changes here (`cantidad` -> `cantidadEnStock`, ID
 * strings -> numbers, Float -> decimal text); the business rules stay with
 * the services, whose violations name the same fields. Only what the services
 * cannot see is checked here: ids, nulls for NOT NULL fields, text that is
 * not well-formed Unicode (which would reach them already altered), and the
 * price and stock as the client wrote them (which reach them as a double's
 * text), under REST's rules and messages (json-number.ts). Every problem is
 * an InvalidArgumentError naming the GraphQL field, which a mutation turns
 * into `success: false`.
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

export interface ProductoUpdateInputArgs extends Partial<Omit<ProductoInputArgs, 'nombre' | 'precio' | 'cantidad'>> {
  id: string;
  nombre?: string | null;
  precio?: number | null;
  cantidad?: number | null;
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

/** The number texts the client wrote for an input's numeric fields (read by number-text.ts from the document or the JSON variables). */
export interface InputNumberTexts {
  precio?: string;
  cantidad?: string;
}

/** An `ID` argument: plain decimal digits naming a positive id. */
export const id = z
  .string()
  .transform(fromChecked((text: string): Checked<number> => (/^\d{1,10}$/.test(text) ? checkPositiveId(Number(text)) : { mensaje: ID_MENSAJES.positivo })));

/** A text argument as is, unless it holds a lone UTF-16 surrogate (which the services would store as U+FFFD). */
export const texto = z.string().refine(isWellFormedText, TEXTO_MENSAJES.malFormado);

/** A field that may be left out of an update, but not set to null (its column is NOT NULL). */
export const noNulo = <T extends z.ZodType>(schema: T) => opcionalNoNulo(schema, 'no puede ser null');

/**
 * A number argument judged by the text the client wrote (`texts`), under
 * REST's rule: an Int variable written `19.999999999999999999` is the double
 * 20 to graphql-js, but not a whole number. graphql-js's double is only the
 * fallback for a caller that has no text (none over HTTP): its shortest text
 * (`String()`) is exact for every price with at most 2 decimals.
 */
export const numberText = (value: number | null | undefined, text: string | undefined) =>
  value === null || value === undefined ? value : (text ?? String(value));
export const enteroDesde = (min: number) => z.string().transform(fromChecked((text: string) => integerFromNumberText(text, min, MAX_INT32)));
const precio = z.string().transform(fromChecked(precioFromNumberText));

/** `value` parsed by `schema`, or InvalidArgumentError naming `campo`. */
export function parseId(value: string, campo: string): number {
  return parseWith(id, value, { root: campo });
}

/**
 * A mutation's `version` and `idempotencyKey` as WriteOptions: a version is
 * a positive Int, a key 1 to 255 visible ASCII characters, else an
 * InvalidArgumentError naming the argument (success false).
 */
export function toWriteOptions({ idempotencyKey, version }: SafeWriteArgs): WriteOptions {
  const write: WriteOptions = {};
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

/** Copies the keys whose value is not undefined: absent fields of an update keep their value. */
function present<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** An update must change something (docs/contract.md §2.6, §4.3); checked here too, so the message names the GraphQL fields. */
function requireSomething<T extends object>(patch: T, admitidos: string): Partial<T> {
  const changes = present(patch);
  if (Object.keys(changes).length === 0) throw InvalidArgumentError.field('input', `no contiene ningún campo que actualizar (admitidos: ${admitidos})`);
  return changes;
}

const productoInput = z.object({ nombre: texto, descripcion: texto.nullish(), precio, cantidad: enteroDesde(0), bodegaId: id.nullish() });
const productoUpdate = z.object({
  id,
  nombre: noNulo(texto),
  descripcion: texto.nullish(),
  precio: noNulo(precio),
  cantidad: noNulo(enteroDesde(0)),
  bodegaId: id.nullish(),
});
const bodegaInput = z.object({ nombre: texto, ubicacion: texto });
const bodegaUpdate = z.object({ id, nombre: noNulo(texto), ubicacion: texto.nullish(), capacidad: noNulo(z.number()) });

export function toProductoInput(input: ProductoInputArgs, texts: InputNumberTexts = {}): ProductoInput {
  const fields = parseWith(productoInput, {
    ...input,
    precio: numberText(input.precio, texts.precio),
    cantidad: numberText(input.cantidad, texts.cantidad),
  });
  // On create, an omitted optional field and an explicit null both mean "none".
  const { nombre, descripcion, precio: precioTexto, cantidad, bodegaId } = fields;
  return { nombre, descripcion: descripcion ?? null, precio: precioTexto, cantidadEnStock: cantidad, bodegaId: bodegaId ?? null };
}

/** The id and the fields to change (only those present in the input). */
export function toProductoUpdate(input: ProductoUpdateInputArgs, texts: InputNumberTexts = {}): { id: number; patch: ProductoPatch } {
  const { version: _version, ...rest } = input;
  const fields = parseWith(productoUpdate, { ...rest, precio: numberText(input.precio, texts.precio), cantidad: numberText(input.cantidad, texts.cantidad) });
  const { nombre, descripcion, precio: precioTexto, cantidad, bodegaId } = fields;
  const patch = requireSomething<ProductoPatch>(
    { nombre, descripcion, precio: precioTexto, cantidadEnStock: cantidad, bodegaId },
    'nombre, descripcion, precio, cantidad, bodegaId',
  );
  return { id: fields.id, patch };
}

export function toBodegaInput(input: BodegaInputArgs): BodegaInput {
  const fields = parseWith(bodegaInput, input);
  // The spec's default applies when capacidad is omitted; an explicit null means "not given" too.
  return { ...fields, capacidad: input.capacidad ?? CAPACIDAD_POR_DEFECTO };
}

export function toBodegaUpdate(input: BodegaUpdateInputArgs): { id: number; patch: BodegaPatch } {
  const { version: _version, ...rest } = input;
  const { id: bodegaId, ...changes } = parseWith(bodegaUpdate, rest);
  return { id: bodegaId, patch: requireSomething<BodegaPatch>(changes, 'nombre, ubicacion, capacidad') };
}
