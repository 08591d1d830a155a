import { formatFecha, formatPrecio, orElse, shorten } from '../email/format';
import type {
  BodegaData,
  DeletedData,
  ProductoData,
  ReservaDescubiertaData,
  StockUmbralData,
} from '../events/envelope';
import type { Nombres, NombresPorBuscar } from './event-handler';

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
function camposModificadosLine(
  campos: readonly string[] | null | undefined,
  etiquetas: ReadonlyMap<string, string>,
): string {
  if (!campos) return '';
  const labels = [...new Set(campos.map((campo) => etiquetas.get(campo) ?? campo))];
  return labels.length > 0 ? labels.join(', ') : NINGUN_CAMPO_MODIFICADO;
}

function marca(data: CamposModificadosData, ...campos: string[]): string {
  return campos.some((campo) => data.camposModificados?.includes(campo)) ? MODIFICADO : '';
}

/** `Bodega Central (3)`: the name and the id; the id alone (`3`) when the name is unknown. */
export function conNombre(id: number, nombre: string | undefined): string {
  return nombre === undefined || nombre === '' ? String(id) : `${nombre} (${id})`;
}

/** A record named in a subject: its name, else its kind and id (`producto 12`). */
function nombrado(tipo: 'producto' | 'bodega', id: number, nombre: string | undefined | null): string {
  return nombre === undefined || nombre === null || nombre === '' ? `${tipo} ${id}` : nombre;
}

export const productoAbout = (data: ProductoData): string => data.nombre;
export const bodegaAbout = (data: BodegaData): string => data.nombre;
export const deletedAbout =
  (tipo: 'producto' | 'bodega') =>
  (data: DeletedData): string =>
    nombrado(tipo, data.id, data.nombre);
export const stockAbout = (data: StockUmbralData, nombres: Nombres): string =>
  `${nombrado('producto', data.productoId, nombres.producto)} en ${nombrado('bodega', data.bodegaId, nombres.bodega)}`;

/** A product's email names its warehouse, which its event gives by id only. */
export const productoPorBuscar = (data: ProductoData): NombresPorBuscar =>
  data.bodegaId == null ? {} : { bodega: data.bodegaId };
/** A stock alert names its product and warehouse, which its event gives by id only. */
export const stockPorBuscar = (data: StockUmbralData): NombresPorBuscar => ({
  producto: data.productoId,
  bodega: data.bodegaId,
});

export function productoRecord(
  data: ProductoData & CamposModificadosData,
  nombres: Nombres = {},
): Record<string, string> {
  return {
    id: String(data.productoId),
    nombre: data.nombre,
    descripcion: orElse(
      data.descripcion == null ? null : shorten(data.descripcion, DESCRIPCION_MAX_CHARS),
      '(sin descripción)',
    ),
    precio: formatPrecio(data.precio),
    // docs/contract.md §5.3: one product form says cantidadEnStock, the other cantidad.
    cantidadEnStock: orElse(data.cantidadEnStock ?? data.cantidad, '—'),
    bodega: data.bodegaId == null ? 'Sin bodega asignada' : conNombre(data.bodegaId, nombres.bodega),
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

/**
 * The event gives the level by ids; the names are looked up (names/name-lookup.ts), the ids shown alone without them.
 */
export function stockRecord(data: StockUmbralData, nombres: Nombres = {}): Record<string, string> {
  return {
    productoId: String(data.productoId),
    bodegaId: String(data.bodegaId),
    producto: conNombre(data.productoId, nombres.producto),
    bodega: conNombre(data.bodegaId, nombres.bodega),
    // For the opening sentence: "El stock de Tornillo M6 (12) en Bodega Central (3)", or by ids "del producto 12 en la
    // bodega 3".
    deProducto: nombres.producto
      ? `de ${conNombre(data.productoId, nombres.producto)}`
      : `del producto ${data.productoId}`,
    enBodega: nombres.bodega ? conNombre(data.bodegaId, nombres.bodega) : `la bodega ${data.bodegaId}`,
    cantidad: String(data.cantidad),
    // A threshold watching `disponible` (§13.9) is judged on it, so the email shows it; '' leaves the rows out.
    disponible: data.alertaSobre === 'DISPONIBLE' ? orElse(data.disponible, '—') : '',
    reservada: data.alertaSobre === 'DISPONIBLE' ? orElse(data.reservada, '—') : '',
    umbralMinimo: orElse(data.umbralMinimo, '(sin umbral)'),
    // null: a threshold change crossed it, or (watching disponible) a reservation: neither belongs to an operation.
    operacionId:
      data.operacionId === null
        ? data.alertaSobre === 'DISPONIBLE'
          ? 'ninguna (una reserva o un cambio del umbral)'
          : 'ninguna (cambio del umbral)'
        : orElse(data.operacionId, '(no incluida en el evento)'),
  };
}

const unidades = (n: number): string => (n === 1 ? '1 unidad' : `${n} unidades`);

/** A reservation is known by its caller's order: the email's subject names it. */
export const reservaAbout = (data: ReservaDescubiertaData): string => data.referencia;

/**
 * ReservaDescubierta (docs/contract.md §13.8): what is missing, level by level, by ids (a reservation may span many
 * levels, so no names are looked up), and what it had asked for. One string per row, so the templates stay logic-free
 * and Handlebars escapes each value.
 */
export function reservaDescubiertaRecord(data: ReservaDescubiertaData): Record<string, string> {
  return {
    reservaId: String(data.reservaId),
    referencia: data.referencia,
    faltante: data.faltante
      .map((f) => `${unidades(f.unidades)} del producto ${f.productoId} en la bodega ${f.bodegaId}`)
      .join('; '),
    lineas: orElse(
      (data.lineas ?? [])
        .map(
          (l) =>
            `${unidades(l.cantidad)} del producto ${l.productoId} en la bodega ${l.bodegaId}` +
            (l.consumida ? ` (${l.consumida} ya consumidas)` : ''),
        )
        .join('; '),
      '(no incluidas en el evento)',
    ),
    expiraEn: data.expiraEn ? formatFecha(data.expiraEn) : '(no incluida en el evento)',
  };
}
