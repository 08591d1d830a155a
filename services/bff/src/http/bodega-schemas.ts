import { z } from 'zod';
import type { BodegaInput, BodegaPatch } from '../inventario/model';
import { MAX_INT32 } from './json-number';
import { entero, nombre, opcionalNoNulo, textoCorto } from './rest-fields';
import { parseBody, READ_ONLY_FIELDS } from './validate';

/** A warehouse's read-only fields: its `ocupacion` too, so a body copied from a GET can be sent back. */
const BODEGA_READ_ONLY = [...READ_ONLY_FIELDS, 'ocupacion'];

/** POST /api/bodegas: nombre and capacidad required in REST (GraphQL defaults capacidad). */
const bodegaCreateSchema = z.strictObject({
  nombre: nombre(),
  ubicacion: textoCorto().nullish(),
  capacidad: entero(0, MAX_INT32),
});

/** PUT /api/bodegas/{id}: every field optional; null clears ubicacion. */
const bodegaPatchSchema = z.strictObject({
  nombre: opcionalNoNulo(nombre()),
  ubicacion: textoCorto().nullish(),
  capacidad: opcionalNoNulo(entero(0, MAX_INT32)),
});

export function parseBodegaInput(body: unknown): BodegaInput {
  return parseBody(bodegaCreateSchema, body, BODEGA_READ_ONLY);
}

export function parseBodegaPatch(body: unknown): BodegaPatch {
  return parseBody(bodegaPatchSchema, body, BODEGA_READ_ONLY);
}
