import { formatLocalUtc } from '@inventario/platform';
import type { Bodega as BodegaProto, Producto as ProductoProto } from '@inventario/proto';
import type { Bodega, Producto, WriteOptions } from '../inventario/model';

/**
 * Generated proto types stop here: everything above src/downstream speaks
 * the BFF model (REST form, timestamps as `YYYY-MM-DDTHH:mm:ss` UTC).
 */

/** A response without its resource breaks the contract: a 500, not a guess. */
export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`downstream response without ${what}`);
  return value;
}

/** The request fields of a safe write: its key (AIP-155 request_id) and the version it expects. */
export function safeWriteFields(write: WriteOptions): { requestId: string; expectedVersion: number | undefined } {
  return { requestId: write.idempotencyKey ?? '', expectedVersion: typeof write.ifMatch === 'number' ? write.ifMatch : undefined };
}

function timestamp(date: Date | undefined, what: string): string {
  return formatLocalUtc(required(date, what));
}

export function productoFromProto(p: ProductoProto): Producto {
  return {
    id: p.id,
    nombre: p.nombre,
    descripcion: p.descripcion ?? null,
    precio: p.precio,
    cantidadEnStock: p.cantidadEnStock,
    bodegaId: p.bodegaId ?? null,
    fechaCreacion: timestamp(p.fechaCreacion, 'producto.fechaCreacion'),
    fechaActualizacion: timestamp(p.fechaActualizacion, 'producto.fechaActualizacion'),
    version: p.version,
  };
}

export function bodegaFromProto(b: BodegaProto): Bodega {
  return {
    id: b.id,
    nombre: b.nombre,
    ubicacion: b.ubicacion ?? null,
    capacidad: b.capacidad,
    fechaCreacion: timestamp(b.fechaCreacion, 'bodega.fechaCreacion'),
    fechaActualizacion: timestamp(b.fechaActualizacion, 'bodega.fechaActualizacion'),
    version: b.version,
  };
}
