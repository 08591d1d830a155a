import { z } from 'zod';
import * as fields from '@inventario/platform';
import {
  IDEMPOTENCY_KEY_MENSAJE,
  InvalidArgumentError,
  isIdempotencyKey,
  MAX_INT32,
  NUMBER_TEXT,
  parseFields,
} from '@inventario/platform';
import type { BodegaInput, BodegaPatch, ProductoInput, ProductoPatch } from '@inventario/contract';
import type { WriteOptions } from '../inventario/model';

/**
 * GraphQL inputs to the BFF model (REST form), of platform's blocks. Only the shape changes (`cantidad` ->
 * `cantidadEnStock`, ID -> number, Float -> decimal
 * text); the services judge the business rules, naming the same fields. Checked here is only what they cannot see: ids,
 * nulls for NOT NULL fields, ill-formed
 * Unicode, and price and stock as the client wrote them (REST's rules and messages). A problem is an
 * InvalidArgumentError naming the GraphQL field.
 */

/** The spec's default `capacidad` of a warehouse created through GraphQL without one. */
export const CAPACIDAD_POR_DEFECTO = 1000;

export type ProductoInputArgs = {
  nombre: string;
  descripcion?: string | null;
  precio: number;
  cantidad: number;
  bodegaId?: string | null;
};
export type ProductoUpdateInputArgs = { [K in keyof ProductoInputArgs]?: ProductoInputArgs[K] | null } & {
  id: string;
  version?: number | null;
};
export type BodegaInputArgs = { nombre: string; ubicacion: string; capacidad?: number | null };
export type BodegaUpdateInputArgs = { [K in keyof BodegaInputArgs]?: BodegaInputArgs[K] | null } & {
  id: string;
  version?: number | null;
};

/**
 * The arguments that make a mutation a safe write (docs/contract.md §9); deletes carry `version` here, updates in their
 * input.
 */
export type SafeWriteArgs = { idempotencyKey?: string | null; version?: number | null };

/**
 * The number texts the client wrote for an input's numeric fields (read by number-text.ts from the document or the JSON
 * variables).
 */
export type NumberTexts = Partial<Record<'precio' | 'cantidad' | 'umbralMinimo', string>>;

/** An `ID` argument: plain decimal digits naming a positive id. */
export const id = z
  .string()
  .transform(
    fields.fromChecked((text: string) =>
      /^\d{1,10}$/.test(text) ? fields.checkPositiveId(Number(text)) : { mensaje: fields.ID_MENSAJES.positivo },
    ),
  );
/** A text argument as is, unless it holds a lone UTF-16 surrogate (which the services would store as U+FFFD). */
export const texto = fields.texto();
/** A field that may be left out of an update, but not set to null (its column is NOT NULL). */
export const noNulo = <T extends z.ZodType>(schema: T) => fields.opcionalNoNulo(schema, 'no puede ser null');
export const enteroDesde = (min: number) => fields.entero(NUMBER_TEXT, min, MAX_INT32);
const precio = fields.precio(NUMBER_TEXT);

/**
 * `input` with its numbers as the texts the client wrote, judged under REST's rule: an Int written
 * `19.999999999999999999` is 20 to graphql-js, but not whole.
 * Without a text (no caller over HTTP), the double's shortest text, exact for every price with at most 2 decimals.
 */
export function withNumberTexts<T extends object>(input: T, texts: NumberTexts): T {
  const out = { ...input } as Record<string, unknown>;
  for (const key of ['precio', 'cantidad', 'umbralMinimo'] as const)
    if (typeof out[key] === 'number') out[key] = texts[key] ?? String(out[key]);
  return out as T;
}

export const parseId = (value: string, campo: string): number => parseFields(id, value, campo);

/**
 * A mutation's `version` and `idempotencyKey` as WriteOptions: a version is a positive Int, a key 1 to 255 visible
 * ASCII characters.
 */
export function toWriteOptions({ idempotencyKey, version }: SafeWriteArgs): WriteOptions {
  if (typeof idempotencyKey === 'string' && !isIdempotencyKey(idempotencyKey))
    throw InvalidArgumentError.field('idempotencyKey', IDEMPOTENCY_KEY_MENSAJE);
  if (typeof version === 'number' && version < 1)
    throw InvalidArgumentError.field('version', 'debe ser un número entero positivo');
  return {
    ...(typeof idempotencyKey === 'string' && { idempotencyKey }),
    ...(typeof version === 'number' && { ifMatch: version }),
  };
}

/**
 * The fields present (absent ones keep their value); an update must change something (docs/contract.md §2.6), said in
 * GraphQL's field names.
 */
function requireSomething<T extends object>(patch: T, admitidos: string): Partial<T> {
  const changes = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
  if (Object.keys(changes).length === 0)
    throw InvalidArgumentError.field('input', `no contiene ningún campo que actualizar (admitidos: ${admitidos})`);
  return changes;
}

const productoInput = z.object({
  nombre: texto,
  descripcion: texto.nullish(),
  precio,
  cantidad: enteroDesde(0),
  bodegaId: id.nullish(),
});
const productoUpdate = z.object({
  id,
  ...productoInput.shape,
  nombre: noNulo(texto),
  precio: noNulo(precio),
  cantidad: noNulo(enteroDesde(0)),
});
const bodegaInput = z.object({ nombre: texto, ubicacion: texto });
const bodegaUpdate = z.object({ id, nombre: noNulo(texto), ubicacion: texto.nullish(), capacidad: noNulo(z.number()) });

export function toProductoInput(input: ProductoInputArgs, texts: NumberTexts = {}): ProductoInput {
  const {
    nombre,
    descripcion,
    precio: precioTexto,
    cantidad,
    bodegaId,
  } = parseFields(productoInput, withNumberTexts(input, texts));
  // On create, an omitted optional field and an explicit null both mean "none".
  return {
    nombre,
    descripcion: descripcion ?? null,
    precio: precioTexto,
    cantidadEnStock: cantidad,
    bodegaId: bodegaId ?? null,
  };
}

/**
 * The id and the fields to change (only those present in the input; `version` is the write's, dropped by the non-strict
 * schema).
 */
export function toProductoUpdate(
  input: ProductoUpdateInputArgs,
  texts: NumberTexts = {},
): { id: number; patch: ProductoPatch } {
  const {
    id: productoId,
    nombre,
    descripcion,
    precio: precioTexto,
    cantidad,
    bodegaId,
  } = parseFields(productoUpdate, withNumberTexts(input, texts));
  const patch = { nombre, descripcion, precio: precioTexto, cantidadEnStock: cantidad, bodegaId };
  return {
    id: productoId,
    patch: requireSomething<ProductoPatch>(patch, 'nombre, descripcion, precio, cantidad, bodegaId'),
  };
}

export function toBodegaInput(input: BodegaInputArgs): BodegaInput {
  // The spec's default applies when capacidad is omitted; an explicit null means "not given" too.
  return { ...parseFields(bodegaInput, input), capacidad: input.capacidad ?? CAPACIDAD_POR_DEFECTO };
}

export function toBodegaUpdate(input: BodegaUpdateInputArgs): { id: number; patch: BodegaPatch } {
  const { id: bodegaId, ...changes } = parseFields(bodegaUpdate, input);
  return { id: bodegaId, patch: requireSomething<BodegaPatch>(changes, 'nombre, ubicacion, capacidad') };
}
