import { z } from 'zod';
import { MAX_UNSIGNED_INT } from '@inventario/platform';
import type { ProductoInput, ProductoPatch } from '../inventario/model';
import { MAX_INT32 } from './json-number';
import { entero, nombre, opcionalNoNulo, precio, textoLibre } from './rest-fields';
import { parseBody } from './validate';

/** POST /api/productos (docs/contract.md §2.5): nombre, precio and cantidadEnStock required. */
const productoCreateSchema = z.strictObject({
  nombre: nombre(),
  descripcion: textoLibre().nullish(),
  precio: precio(),
  cantidadEnStock: entero(0, MAX_INT32),
  bodegaId: entero(1, MAX_UNSIGNED_INT).nullish(),
});

/** PUT /api/productos/{id}: every field optional; null clears descripcion or bodegaId. */
const productoPatchSchema = z.strictObject({
  nombre: opcionalNoNulo(nombre()),
  descripcion: textoLibre().nullish(),
  precio: opcionalNoNulo(precio()),
  cantidadEnStock: opcionalNoNulo(entero(0, MAX_INT32)),
  bodegaId: entero(1, MAX_UNSIGNED_INT).nullish(),
});

export function parseProductoInput(body: unknown): ProductoInput {
  return parseBody(productoCreateSchema, body);
}

export function parseProductoPatch(body: unknown): ProductoPatch {
  return parseBody(productoPatchSchema, body);
}
