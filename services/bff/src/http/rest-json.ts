import type { Response } from 'express';
import { isLosslessNumber, isNumber, LosslessNumber, stringify } from 'lossless-json';
import type { Bodega, Existencia, Producto, ProductoDeBodega } from '@inventario/contract';
import type { Movimiento, Operacion } from '../inventario/model';

/** The REST bodies (docs/contract.md §2.3): `precio` is the stored decimal text as is, never rounded by a float. */

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
    ocupacion: b.ocupacion,
    fechaCreacion: b.fechaCreacion,
    fechaActualizacion: b.fechaActualizacion,
    version: b.version,
  };
}

export function productoDeBodegaJson(p: ProductoDeBodega) {
  return { id: p.id, nombre: p.nombre, cantidad: p.cantidad, precio: new LosslessNumber(p.precio) };
}

export function existenciaJson(e: Existencia) {
  return {
    bodegaId: e.bodegaId,
    productoId: e.productoId,
    cantidad: e.cantidad,
    umbralMinimo: e.umbralMinimo,
    version: e.version,
    fechaCreacion: e.fechaCreacion,
    fechaActualizacion: e.fechaActualizacion,
    reservada: e.reservada ?? 0,
    disponible: e.disponible ?? e.cantidad,
    alertaSobre: e.alertaSobre ?? 'CANTIDAD',
  };
}

export function existenciaJsonText(e: Existencia): string {
  return JSON.stringify(existenciaJson(e));
}

export function movimientoJson(m: Movimiento) {
  return {
    id: m.id,
    operacionId: m.operacionId,
    bodegaId: m.bodegaId,
    productoId: m.productoId,
    tipo: m.tipo,
    motivo: m.motivo,
    cantidad: m.cantidad,
    cantidadAnterior: m.cantidadAnterior,
    cantidadPosterior: m.cantidadPosterior,
    version: m.version,
    usuario: m.usuario,
    comentario: m.comentario,
    fecha: m.fecha,
  };
}

export function operacionJson(o: Operacion) {
  return {
    id: o.id,
    tipo: o.tipo,
    usuario: o.usuario,
    comentario: o.comentario,
    fecha: o.fecha,
    revierteA: o.revierteA,
    revertidaPor: o.revertidaPor,
    movimientos: o.movimientos.map(movimientoJson),
  };
}

/** Deeper than any answer: a value nested further (or a cycle) is left to lossless-json, as before. */
const MAX_PLAIN_DEPTH = 32;

/**
 * Whether lossless-json's stringify writes what JSON.stringify writes for `value`: it differs only on a LosslessNumber
 * (its text), a bigint (its digits; JSON.stringify throws) and a `toJSON` (called without the key). A false is only
 * "not sure".
 */
function isPlainJson(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'bigint';
  if (depth === MAX_PLAIN_DEPTH || isLosslessNumber(value)) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!isPlainJson(item, depth + 1)) return false;
    return true;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const key of Object.keys(value))
    if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
}

/** lossless-json's text for `body`, by the native JSON.stringify when that writes the same (issue 23). */
export function jsonText(body: unknown): string {
  return (isPlainJson(body, 0) ? JSON.stringify(body) : stringify(body)) ?? 'null';
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * An answer's JSON text as `res.status(status).type('application/json').send(text)` writes it: the same status,
 * headers (express's ETag included), freshness check and bytes. The text goes as a Buffer with its content type
 * already whole, which spares express's parsing of the content type of a string answer on every request (issue 23).
 */
export function sendJsonAnswer(res: Response, status: number, text: string): void {
  res.status(status).setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.send(Buffer.from(text, 'utf8'));
}

export function sendJson(res: Response, status: number, body: unknown): void {
  sendJsonAnswer(res, status, jsonText(body));
}

/**
 * A record's answer once sendRecord has set its ETag: the bytes and headers express's res.send writes for
 * `.type('application/json').send(text)` (charset, Content-Length, no body for HEAD), without its per-request
 * content-type parsing and freshness check, which sendRecord has already answered (the cached read path, issue 26).
 */
export function sendJsonText(res: Response, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text, 'utf8'));
  if (res.req.method === 'HEAD') res.end();
  else res.end(text, 'utf8');
}

/** LosslessNumber refuses the same texts, so an invalid number never reaches the wire. */
function numberJson(text: string): string {
  if (!isNumber(text)) throw new Error(`Invalid number: ${JSON.stringify(text)}`);
  return text;
}

const nullableJson = (value: string | number | null) => (value === null ? 'null' : JSON.stringify(value));

/**
 * The bytes of stringify(productoJson(p)) with no object built per row, since a list writes one
 * per product (docs/decisions.md, "Lists at database speed").
 */
export function productoJsonText(p: Producto): string {
  return (
    `{"id":${p.id},"nombre":${JSON.stringify(p.nombre)},"descripcion":${nullableJson(p.descripcion)},` +
    `"precio":${numberJson(p.precio)},"cantidadEnStock":${p.cantidadEnStock},"bodegaId":${nullableJson(p.bodegaId)},` +
    `"fechaCreacion":${JSON.stringify(p.fechaCreacion)},` +
    `"fechaActualizacion":${JSON.stringify(p.fechaActualizacion)},"version":${p.version}}`
  );
}

export function productoDeBodegaJsonText(p: ProductoDeBodega): string {
  const precio = numberJson(p.precio);
  return `{"id":${p.id},"nombre":${JSON.stringify(p.nombre)},"cantidad":${p.cantidad},"precio":${precio}}`;
}

export function bodegaJsonText(b: Bodega): string {
  return JSON.stringify(bodegaJson(b));
}
