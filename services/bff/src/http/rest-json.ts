import type { Response } from 'express';
import { isNumber, LosslessNumber, stringify } from 'lossless-json';
import type { Bodega, Producto } from '../inventario/model';

/**
 * The REST bodies. `precio` is a JSON number written from the stored
 * decimal text as is (`19.90`), so no float ever rounds it on the way out.
 */

export function productoJson(p: Producto) {
  return {
    id: p.id,
    nombre: p.nombre,
    descripcion: p.descripcion,
    precio: new LosslessNumber(p.precio),
    cantidadEnStock: p.cantidadEnStock,
    bodegaId: p.bodegaId,
    fechaCreacion: p.fechaCreacion,
    fechaActualizacion: p.fechaActualizacion,
    version: p.version,
  };
}

export function bodegaJson(b: Bodega) {
  return {
    id: b.id,
    nombre: b.nombre,
    ubicacion: b.ubicacion,
    capacidad: b.capacidad,
    fechaCreacion: b.fechaCreacion,
    fechaActualizacion: b.fechaActualizacion,
    version: b.version,
  };
}

/** An item of GET /api/bodegas/{id}/productos (the spec's listing shape). */
export function productoDeBodegaJson(p: Producto) {
  return { id: p.id, nombre: p.nombre, cantidad: p.cantidadEnStock, precio: new LosslessNumber(p.precio) };
}

/** Sends `body` as JSON, LosslessNumbers written verbatim. */
export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status).type('application/json').send(stringify(body) ?? 'null');
}

/**
 * JSON text of `{...before, [key]: number, ...after}`, the number written
 * verbatim from `numberText`: what lossless-json's stringify writes for the
 * same object with a LosslessNumber there, at the speed of native
 * JSON.stringify (about 3 times lossless-json's), since a full list writes
 * one of these per row.
 */
function withNumber(before: object, key: string, numberText: string, after: object): string {
  // LosslessNumber refuses the same texts: never an invalid JSON number on the wire.
  if (!isNumber(numberText)) throw new Error(`Invalid number: ${JSON.stringify(numberText)}`);
  const head = JSON.stringify(before);
  const tail = JSON.stringify(after);
  const field = `${JSON.stringify(key)}:${numberText}`;
  return `${head.length > 2 ? `${head.slice(0, -1)},` : '{'}${field}${tail.length > 2 ? `,${tail.slice(1)}` : '}'}`;
}

/** stringify(productoJson(p)), for the rows of a streamed list. */
export function productoJsonText(p: Producto): string {
  return withNumber({ id: p.id, nombre: p.nombre, descripcion: p.descripcion }, 'precio', p.precio, {
    cantidadEnStock: p.cantidadEnStock,
    bodegaId: p.bodegaId,
    fechaCreacion: p.fechaCreacion,
    fechaActualizacion: p.fechaActualizacion,
    version: p.version,
  });
}

/** stringify(productoDeBodegaJson(p)), for the rows of a streamed list. */
export function productoDeBodegaJsonText(p: Producto): string {
  return withNumber({ id: p.id, nombre: p.nombre, cantidad: p.cantidadEnStock }, 'precio', p.precio, {});
}

/** stringify(bodegaJson(b)): no number needs lossless-json in a warehouse. */
export function bodegaJsonText(b: Bodega): string {
  return JSON.stringify(bodegaJson(b));
}
