import { formatPrecio, orElse, shorten } from '../email/format';
import type { BodegaData, DeletedData, ProductoData, StockUmbralData } from '../events/envelope';

/**
 * The display fields of each kind of record: every value a string, so the
 * templates hold no logic beyond `{{#if}}` and Handlebars escapes each one.
 *
 * Update events carry the record as it is after the change and, from
 * producers that add it, `camposModificados`: the public names of the fields
 * whose value the update changed (events.proto). An update email shows the
 * record now, says which fields changed and marks their rows; an update
 * event without the list (an older producer) gets the email without that
 * line or marks, as before the list existed.
 */

/** Display length of a descripcion (up to 65 535 bytes when stored): enough to read, short enough for a mail client. */
export const DESCRIPCION_MAX_CHARS = 2000;

/** The additive part of an update event's data; absent on creations and from older producers. */
export interface CamposModificadosData {
  camposModificados?: readonly string[] | null | undefined;
}

/** What the `camposModificados` line says when the update changed no value. */
export const NINGUN_CAMPO_MODIFICADO = 'ninguno (los valores enviados coinciden con los guardados)';

/** The tag on a changed row; empty on the others (templates test it with `{{#if}}`). */
const MODIFICADO = 'modificado';

/** Row labels of the templates, by the event's field name (`cantidad` is variant 2's cantidadEnStock). */
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

/**
 * `camposModificados` for the templates: the changed fields' labels
 * (`Precio, Cantidad en stock`), NINGUN_CAMPO_MODIFICADO for an empty list,
 * `''` when the event has no list (the templates then leave the line out).
 * A name this notifier does not know (a newer producer's field) is shown as sent.
 */
function camposModificadosLine(campos: readonly string[] | null | undefined, etiquetas: ReadonlyMap<string, string>): string {
  if (!campos) return '';
  const labels = [...new Set(campos.map((campo) => etiquetas.get(campo) ?? campo))];
  return labels.length > 0 ? labels.join(', ') : NINGUN_CAMPO_MODIFICADO;
}

/** `modificado` when one of `campos` (the names of one row) is in the event's list, else `''`. */
function marca(data: CamposModificadosData, ...campos: string[]): string {
  return campos.some((campo) => data.camposModificados?.includes(campo)) ? MODIFICADO : '';
}

export function productoRecord(data: ProductoData & CamposModificadosData): Record<string, string> {
  return {
    id: String(data.productoId),
    nombre: data.nombre,
    descripcion: orElse(data.descripcion == null ? null : shorten(data.descripcion, DESCRIPCION_MAX_CHARS), '(sin descripción)'),
    precio: formatPrecio(data.precio),
    // One product form (docs/contract.md §5.3) says cantidadEnStock, the other cantidad.
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

/** Deletions carry the id; `nombre` only from producers that add it (ours do). */
export function deletedRecord(data: DeletedData): Record<string, string> {
  return {
    id: String(data.id),
    nombre: orElse(data.nombre, '(no incluido en el evento)'),
  };
}

/**
 * A stock level by ids only: the event does not carry the product's or the
 * warehouse's name, and the notifier asks no service for them (it has no
 * gRPC client, and a name read later could differ from the one at the time).
 */
export function stockRecord(data: StockUmbralData): Record<string, string> {
  return {
    productoId: String(data.productoId),
    bodegaId: String(data.bodegaId),
    cantidad: String(data.cantidad),
    umbralMinimo: orElse(data.umbralMinimo, '(sin umbral)'),
    operacionId: orElse(data.operacionId, '(no incluida en el evento)'),
  };
}
