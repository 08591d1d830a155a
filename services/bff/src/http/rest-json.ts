import type { Response } from 'express';
import { LosslessNumber, stringify } from 'lossless-json';
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
