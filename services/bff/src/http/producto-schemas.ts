import { z } from 'zod';
import { MAX_INT32, MAX_UNSIGNED_INT, nombre, textoLibre } from '@inventario/platform';
import type { ProductoInput, ProductoPatch } from '@inventario/contract';
import { entero, opcionalNoNulo, parseBody, precio } from './rest-fields';

const descripcion = textoLibre()
  .nullish()
  .meta({ description: 'Texto libre opcional, de a lo sumo 65535 bytes en UTF-8.' });
const bodegaId = entero(1, MAX_UNSIGNED_INT)
  .nullish()
  .meta({ description: 'Bodega que guarda el producto, o null. Debe existir (si no, 400).' });
const cantidadEnStock = () => entero(0, MAX_INT32).meta({ description: 'Unidades en existencia.' });

/** POST /api/productos (docs/contract.md §2.5): nombre, precio and cantidadEnStock required. */
export const productoCreateSchema = z
  .strictObject({ nombre: nombre(), descripcion, precio: precio(), cantidadEnStock: cantidadEnStock(), bodegaId })
  .meta({
    description: 'Datos de un producto nuevo. Los campos de solo lectura se ignoran; uno desconocido es un 400.',
  });

/** PUT /api/productos/{id}: every field optional; null clears descripcion or bodegaId. */
const patch = {
  nombre: opcionalNoNulo(nombre()),
  descripcion,
  precio: opcionalNoNulo(precio()),
  cantidadEnStock: opcionalNoNulo(cantidadEnStock()),
  bodegaId,
};
export const productoPatchSchema = z.strictObject(patch).meta({
  description:
    'Actualización parcial: los campos ausentes conservan su valor, null borra un campo anulable (descripcion, ' +
    'bodegaId), los campos de solo lectura se ignoran y uno desconocido es un 400. Debe traer al menos un campo ' +
    'actualizable (uno que no sea de solo lectura).',
  // "At least one field" as minProperties, not as an anyOf of `required`s, which Swagger UI renders as alternatives
  // ("object | any | any ...") instead of the fields; a body of read-only fields only is still a 400, as the
  // description says.
  minProperties: 1,
});

export const parseProductoInput = (body: unknown): ProductoInput => parseBody(productoCreateSchema, body);
export const parseProductoPatch = (body: unknown): ProductoPatch => parseBody(productoPatchSchema, body);
