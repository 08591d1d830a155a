import { z } from 'zod';
import { MAX_INT32, nombre, textoCorto } from '@inventario/platform';
import type { BodegaInput, BodegaPatch } from '@inventario/contract';
import { entero, opcionalNoNulo, parseBody, READ_ONLY_FIELDS } from './rest-fields';

/** A warehouse's read-only fields: its `ocupacion` too, so a body copied from a GET can be sent back. */
export const BODEGA_READ_ONLY = [...READ_ONLY_FIELDS, 'ocupacion'];

const ubicacion = textoCorto().nullish().meta({
  description:
    'Ubicación opcional; se eliminan los espacios de los extremos y una cadena en blanco se guarda como null.',
});
const capacidad = () => entero(0, MAX_INT32).meta({ description: 'Capacidad de la bodega en unidades.' });

/** POST /api/bodegas: nombre and capacidad required in REST (GraphQL defaults capacidad). */
export const bodegaCreateSchema = z
  .strictObject({
    nombre: nombre().meta({ description: 'Único entre las bodegas (si no, 409).' }),
    ubicacion,
    capacidad: capacidad(),
  })
  .meta({
    description: 'Datos de una bodega nueva. Los campos de solo lectura se ignoran; uno desconocido es un 400.',
  });

/** PUT /api/bodegas/{id}: every field optional; null clears ubicacion. */
const CAPACIDAD_NUEVA = 'Capacidad en unidades; por debajo de la ocupación actual, 409 CAPACIDAD_INSUFICIENTE.';
const patch = {
  nombre: opcionalNoNulo(nombre()),
  ubicacion,
  capacidad: opcionalNoNulo(capacidad().meta({ description: CAPACIDAD_NUEVA })),
};
export const bodegaPatchSchema = z.strictObject(patch).meta({
  description:
    'Actualización parcial, como la de productos. Debe traer al menos un campo actualizable (uno que no ' +
    'sea de solo lectura).',
  // "At least one field" as minProperties, not as an anyOf of `required`s, which Swagger UI renders as alternatives
  // ("object | any | any ...") instead of the fields; a body of read-only fields only is still a 400, as the
  // description says.
  minProperties: 1,
});

export const parseBodegaInput = (body: unknown): BodegaInput => parseBody(bodegaCreateSchema, body, BODEGA_READ_ONLY);
export const parseBodegaPatch = (body: unknown): BodegaPatch => parseBody(bodegaPatchSchema, body, BODEGA_READ_ONLY);
