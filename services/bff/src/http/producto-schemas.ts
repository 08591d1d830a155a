import { z } from 'zod';
import { MAX_UNSIGNED_INT } from '@inventario/platform';
import type { ProductoInput, ProductoPatch } from '../inventario/model';
import { MAX_INT32 } from './json-number';
import { entero, nombre, precio, textoLibre } from './rest-fields';
import { parseBody } from './validate';

/** POST /api/productos (ARCHITECTURE §2): nombre, precio and cantidadEnStock required. */
const productoCreateSchema = z.strictObject({
  nombre: nombre(),
  descripcion: textoLibre().nullish(),
  precio: precio(),
  cantidadEnStock: entero(0, MAX_INT32),
  bodegaId: entero(1, MAX_UNSIGNED_INT).nullish(),
});

/** PUT /api/productos/{id}: every field optional; null clears descripcion or bodegaId. */
const productoPatchSchema = z.strictObject({
  nombre: nombre().optional(),
  descripcion: textoLibre().nullish(),
  precio: precio().optional(),
  cantidadEnStock: entero(0, MAX_INT32).optional(),
  bodegaId: entero(1, MAX_UNSIGNED_INT).nullish(),
});

export function parseProductoInput(body: unknown): ProductoInput {
  return parseBody(productoCreateSchema, body);
}

export function parseProductoPatch(body: unknown): ProductoPatch {
  return parseBody(productoPatchSchema, body);
}
