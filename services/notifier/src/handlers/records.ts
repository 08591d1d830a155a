import { formatPrecio, orElse } from '../email/format';
import type { BodegaData, DeletedData, ProductoData } from '../events/envelope';

/**
 * The display fields of each kind of record. Update events carry the record
 * as it is after the change, not the previous values, so an update email
 * shows the record now (the templates say so).
 */

export function productoRecord(data: ProductoData): Record<string, string> {
  return {
    id: String(data.productoId),
    nombre: data.nombre,
    descripcion: orElse(data.descripcion, '(sin descripción)'),
    precio: formatPrecio(data.precio),
    // Variant 1 of the spec says cantidadEnStock, variant 2 cantidad.
    cantidadEnStock: orElse(data.cantidadEnStock ?? data.cantidad, '—'),
    bodega: orElse(data.bodegaId, 'Sin bodega asignada'),
  };
}

export function bodegaRecord(data: BodegaData): Record<string, string> {
  return {
    id: String(data.bodegaId),
    nombre: data.nombre,
    ubicacion: orElse(data.ubicacion, '(sin ubicación)'),
    capacidad: orElse(data.capacidad, '—'),
  };
}

/** Deletions carry the id; `nombre` only from producers that add it (ours do). */
export function deletedRecord(data: DeletedData): Record<string, string> {
  return {
    id: String(data.id),
    nombre: orElse(data.nombre, '(no incluido en el evento)'),
  };
}
