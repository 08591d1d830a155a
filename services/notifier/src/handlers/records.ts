import { formatPrecio, orElse, shorten } from '../email/format';
import type { BodegaData, DeletedData, ProductoData, StockUmbralData } from '../events/envelope';

/**
 * Every value a string, so templates hold no logic beyond `{{#if}}`. An
 * update without `camposModificados` (an older producer) gets the email
 * without the changed-fields line and marks.
 */

/** Enough to read, short enough for a mail client (stored: up to 64 KiB). */
export const DESCRIPCION_MAX_CHARS = 2000;

export interface CamposModificadosData {
  camposModificados?: readonly string[] | null | undefined;
}

export const NINGUN_CAMPO_MODIFICADO = 'ninguno (los valores enviados coinciden con los guardados)';

const MODIFICADO = 'modificado';

/** `cantidad` is variant 2's cantidadEnStock. */
const PRODUCTO_ETIQUETAS: ReadonlyMap<string, string> = new Map([
  ['nombre', 'Nombre'],
  ['descripcion', 'Descripción'],
  ['precio', 'Precio'],
  ['cantidadEnStock', 'Cantidad en stock'],
  ['cantidad', 'Cantidad en stock'],
  ['bodegaId', 'Bodega'],
]);

const BODEGA_ETIQUETAS: ReadonlyMap<string, string> = new Map([
  ['nombre', 'Nombre'],
  ['ubicacion', 'Ubicación'],
  ['capacidad', 'Capacidad'],
]);

/** `''` without a list (the line is left out); a field name we do not know (newer producer) is shown as sent. */
function camposModificadosLine(campos: readonly string[] | null | undefined, etiquetas: ReadonlyMap<string, string>): string {
  if (!campos) return '';
  const labels = [...new Set(campos.map((campo) => etiquetas.get(campo) ?? campo))];
  return labels.length > 0 ? labels.join(', ') : NINGUN_CAMPO_MODIFICADO;
}

function marca(data: CamposModificadosData, ...campos: string[]): string {
  return campos.some((campo) => data.camposModificados?.includes(campo)) ? MODIFICADO : '';
}

export function productoRecord(data: ProductoData & CamposModificadosData): Record<string, string> {
  return {
    id: String(data.productoId),
    nombre: data.nombre,
    descripcion: orElse(data.descripcion == null ? null : shorten(data.descripcion, DESCRIPCION_MAX_CHARS), '(sin descripción)'),
    precio: formatPrecio(data.precio),
    // docs/contract.md §5.3: one product form says cantidadEnStock, the other cantidad.
    cantidadEnStock: orElse(data.cantidadEnStock ?? data.cantidad, '—'),
    bodega: orElse(data.bodegaId, 'Sin bodega asignada'),
    camposModificados: camposModificadosLine(data.camposModificados, PRODUCTO_ETIQUETAS),
    nombreModificado: marca(data, 'nombre'),
    descripcionModificado: marca(data, 'descripcion'),
    precioModificado: marca(data, 'precio'),
    cantidadEnStockModificado: marca(data, 'cantidadEnStock', 'cantidad'),
    bodegaModificado: marca(data, 'bodegaId'),
  };
}

export function bodegaRecord(data: BodegaData & CamposModificadosData): Record<string, string> {
  return {
    id: String(data.bodegaId),
    nombre: data.nombre,
    ubicacion: orElse(data.ubicacion, '(sin ubicación)'),
    capacidad: orElse(data.capacidad, '—'),
    camposModificados: camposModificadosLine(data.camposModificados, BODEGA_ETIQUETAS),
    nombreModificado: marca(data, 'nombre'),
    ubicacionModificado: marca(data, 'ubicacion'),
    capacidadModificado: marca(data, 'capacidad'),
  };
}

export function deletedRecord(data: DeletedData): Record<string, string> {
  return {
    id: String(data.id),
    nombre: orElse(data.nombre, '(no incluido en el evento)'),
  };
}

/** Ids only: the notifier asks no service for names, which read later could differ from the ones at the time. */
export function stockRecord(data: StockUmbralData): Record<string, string> {
  return {
    productoId: String(data.productoId),
    bodegaId: String(data.bodegaId),
    cantidad: String(data.cantidad),
    umbralMinimo: orElse(data.umbralMinimo, '(sin umbral)'),
    operacionId: orElse(data.operacionId, '(no incluida en el evento)'),
  };
}
