/// <reference lib="es2024.string" />

/**
 * The writable fields' rules and Spanish messages, for every surface (docs/contract.md §2.5, §7.2); limits are the
 * columns', past which the driver fails.
 */

/** INT columns (cantidadEnStock, capacidad, an existencia's cantidad and umbralMinimo). */
export const MAX_INT32 = 2_147_483_647;
/** VARCHAR(255) (nombre, ubicacion, the `q` filter) counts characters (code points), not UTF-16 units. */
export const MAX_TEXTO = 255;
/** TEXT (descripcion) holds at most 65535 bytes of UTF-8. */
export const MAX_DESCRIPCION_BYTES = 65_535;
/** At most this many characters in a movement's comentario. */
export const MAX_COMENTARIO = 500;
/** DECIMAL(10,2): at most 8 integer digits and 2 decimals. */
export const PRECIO = { maximo: '99999999.99', digitosEnteros: 8, decimales: 2 } as const;
/** Longest number text read: every valid value fits in far fewer, so a huge number costs nothing beyond reading it. */
export const MAX_NUMBER_TEXT = 64;

/** Characters (code points) of `text`, as VARCHAR counts them. */
export const caracteres = (text: string): number => [...text].length;

/**
 * A lone UTF-16 surrogate (`"\ud800"`) has no UTF-8 form: a service would store U+FFFD instead of what was sent, so
 * such text is refused.
 */
export const isWellFormedText = (text: string): boolean => text.isWellFormed();

export const FIELD_MENSAJES = {
  obligatorio: 'es obligatorio',
  texto: 'debe ser texto',
  numero: 'debe ser un número',
  decimal: 'debe ser un número decimal, p. ej. 1234.50',
  enBlanco: 'no puede estar en blanco',
  negativo: 'no puede ser negativo',
  /**
   * bodega-svc's words for the same lower bounds (gRPC answers, docs/contract.md §7.2); REST and GraphQL say
   * `negativo`, `minimo`.
   */
  mayorOIgualQueCero: 'debe ser mayor o igual que 0',
  mayorQueCero: 'debe ser mayor que 0',
  entero: 'debe ser un número entero',
  dosDecimales: 'admite como máximo 2 decimales',
  precioMaximo: `no puede superar ${PRECIO.maximo}`,
  demasiadoLargo: `tiene demasiados dígitos (como máximo ${MAX_NUMBER_TEXT} caracteres)`,
  malFormado: 'contiene un carácter no válido (un sustituto UTF-16 suelto): envíe texto Unicode bien formado',
  maximo: (max: number) => `no puede superar ${max}`,
  minimo: (min: number) => `debe ser al menos ${min}`,
  maxCaracteres: (max: number) => `no puede superar ${max} caracteres`,
  maxBytes: (max: number) => `no puede superar ${max} bytes`,
} as const;
