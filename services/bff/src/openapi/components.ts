import { z } from 'zod';
import type {
  ExampleObject,
  HeaderObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from 'openapi3-ts/oas31';
import { MAX_UNSIGNED_INT } from '@inventario/platform';
import { ERROR_CODES } from '../http/error-middleware';
import { AJUSTE_SIN_VERSION } from '../http/existencia-schemas';
import { BODY_MENSAJES } from '../http/http-errors';
import {
  deleteBodegaShape,
  movimientoFilterShape as movimientos,
  productoFilterShape as productos,
} from '../http/request-params';
import { jsonOf, schemaRef, type SchemaName } from './schemas';

/**
 * The document's shared parameters (a query parameter's schema is the zod field its route parses), headers and error
 * responses (docs/contract.md §3.2).
 */

const ID = jsonOf(z.int().min(1).max(MAX_UNSIGNED_INT));
const pathId = (name: string, what: string): ParameterObject => {
  return { name, in: 'path', required: true, description: `Id ${what}: un entero positivo (si no, 400).`, schema: ID };
};
const query = (name: string, schema: z.ZodType, description: string, extra: SchemaObject = {}): ParameterObject => {
  return { name, in: 'query', description, schema: { ...jsonOf(schema), ...extra } };
};
const header = (name: string, description: string, ...examples: string[]): ParameterObject => {
  return { name, in: 'header', description, schema: { type: 'string', examples } };
};
const SIN_IF_MATCH = 'Sin ella, la escritura es incondicional.';
const ETAG_NO_COINCIDE = 'si no, 412 con versionActual. `*` exige solo que exista.';

export const parameters = {
  ProductoId: pathId('id', 'del producto'),
  BodegaId: pathId('id', 'de la bodega'),
  Limit: query(
    'limit',
    productos.limit,
    'Devuelve a lo sumo este número de productos. Sin limit, offset, bodegaId ni q se devuelve la lista completa.',
  ),
  Offset: query('offset', productos.offset, 'Salta este número de productos (en orden de id) antes de devolver.', {
    default: 0,
  }),
  BodegaIdFiltro: query('bodegaId', productos.bodegaId, 'Solo los productos guardados en esta bodega.'),
  Q: query(
    'q',
    productos.q,
    'Solo los productos cuyo nombre contiene este texto (sin distinguir mayúsculas ni acentos).',
  ),
  Force: query(
    'force',
    deleteBodegaShape.force,
    'Con `true` la bodega se elimina aunque guarde productos, que quedan sin bodega (respuesta 200 con el ' +
      'detalle). Sin él, una bodega con productos no se elimina (409).',
  ),
  IdempotencyKey: {
    ...header(
      'Idempotency-Key',
      'Hace segura la repetición de una escritura: la primera petición con la clave se ejecuta y su respuesta se ' +
        'guarda 24 h; una repetición con la misma petición recibe la respuesta guardada (Idempotent-Replayed: ' +
        'true) sin ejecutar nada; con otra petición, 422; mientras la primera sigue en curso, 409 con Retry-After. ' +
        'La clave es del usuario y de la operación.',
    ),
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$', examples: ['8f14e45f-ceea-467e-9a4b-2c1d2b9a4e31'] },
  },
  IfMatch: header(
    'If-Match',
    `Escritura condicional: solo se aplica si el registro sigue en la versión de esta ETag (p. ej. "3", o "3.540" ` +
      `de una bodega, de la que cuenta la versión); ${ETAG_NO_COINCIDE} ${SIN_IF_MATCH}`,
    '"3"',
    '"3.540"',
    '*',
  ),
  ProductoIdDeRuta: pathId('productoId', 'del producto'),
  OperacionId: pathId('id', 'de la operación'),
  ReservaId: pathId('id', 'de la reserva'),
  UsuarioId: pathId('id', 'del usuario'),
  TokenId: pathId('id', 'del token'),
  IfMatchExistencia: header(
    'If-Match',
    `Escritura condicional sobre la existencia: solo se aplica si sigue en la versión de esta ETag (p. ej. ` +
      `"3"); ${ETAG_NO_COINCIDE} Obligatoria en un AJUSTE y al fijar una existencia que ya existe (si falta, 428).`,
    '"3"',
    '*',
  ),
  MovimientosBodegaId: query('bodegaId', movimientos.bodegaId, 'Solo las líneas de esta bodega.'),
  MovimientosProductoId: query('productoId', movimientos.productoId, 'Solo las líneas de este producto.'),
  MovimientosTipo: query('tipo', movimientos.tipo, 'Solo las líneas de este tipo.'),
  Desde: query(
    'desde',
    movimientos.desde,
    'Solo las líneas de este instante en adelante (inclusive): `YYYY-MM-DDTHH:mm:ss` en UTC (con Z ' +
      'opcional) o `YYYY-MM-DD`.',
    { examples: ['2026-11-25', '2026-11-25T10:00:00Z'] },
  ),
  Hasta: query(
    'hasta',
    movimientos.hasta,
    'Solo las líneas anteriores a este instante (exclusive), en el formato de `desde`.',
    { examples: ['2026-11-26'] },
  ),
  LimitMovimientos: query('limit', movimientos.limit, 'Líneas por página.', { default: 100 }),
  Cursor: query(
    'cursor',
    movimientos.cursor,
    'El `siguienteCursor` de la página anterior (opaco), con los mismos filtros.',
  ),
  IfNoneMatch: header('If-None-Match', 'Si nombra la ETag actual, la respuesta es 304 sin cuerpo.', '"3"'),
} as const satisfies Record<string, ParameterObject>;

const texto = (pattern: string, ...examples: string[]): SchemaObject => ({ type: 'string', pattern, examples });
const retryAfter = (description: string, required = true): HeaderObject => ({
  description,
  required,
  schema: { type: 'integer', minimum: 0 },
});

/** Response headers, by component name; `http` is the header's own name where it differs. */
type HeaderDefinition = HeaderObject & { http?: string };
const HEADERS = {
  Location: {
    description: 'Ruta del recurso creado.',
    schema: texto(
      '^/api/(v1/)?(productos|bodegas|operaciones|reservas|usuarios|tokens)/[1-9][0-9]*$',
      '/api/productos/12',
    ),
  },
  LocationDocs: {
    http: 'Location',
    description: 'La página de referencia, con la barra final (y la consulta de la petición, si la traía).',
    schema: texto('^/api/(v1/)?docs/(\\?.*)?$', '/api/docs/'),
  },
  WwwAuthenticate: {
    http: 'WWW-Authenticate',
    description: 'Pide credenciales HTTP Basic.',
    schema: texto('^Basic realm="inventario"', 'Basic realm="inventario", charset="UTF-8"'),
  },
  RetryAfter: { http: 'Retry-After', ...retryAfter('Segundos tras los que conviene reintentar.') },
  RetryAfterSiClaveEnUso: {
    http: 'Retry-After',
    ...retryAfter('Solo con IDEMPOTENCY_KEY_IN_USE: segundos tras los que conviene repetir la petición.', false),
  },
  ETag: {
    description: 'La versión del registro, entre comillas: envíela en If-Match para escribir sobre ella.',
    schema: texto('^"[1-9][0-9]*"$', '"3"'),
  },
  ETagBodega: {
    http: 'ETag',
    description:
      'La versión de la bodega y su ocupación, "<version>.<ocupacion>": cambia cuando cambia cualquiera de las ' +
      'dos, así que If-None-Match solo da 304 si ambas siguen igual; en If-Match cuenta solo la versión (que las ' +
      'unidades se muevan no es editar la bodega).',
    schema: texto('^"[1-9][0-9]*\\.[0-9]+"$', '"3.540"'),
  },
  IdempotentReplayed: {
    http: 'Idempotent-Replayed',
    description: 'Presente (true) cuando la respuesta es la guardada para esta Idempotency-Key: no se ejecutó nada.',
    required: false,
    schema: { const: 'true' },
  },
} satisfies Record<string, HeaderDefinition>;
export type HeaderName = keyof typeof HEADERS;

export const headers = Object.fromEntries(
  Object.entries<HeaderDefinition>(HEADERS).map(([name, { description, required = true, schema }]) => [
    name,
    { description, required, schema },
  ]),
);

/** `headers` of a response: each named component under its HTTP name. */
export const headerRefs = (...names: HeaderName[]): Record<string, ReferenceObject> =>
  Object.fromEntries(
    names.map((name) => [(HEADERS[name] as HeaderDefinition).http ?? name, { $ref: `#/components/headers/${name}` }]),
  );

export type ParameterName = keyof typeof parameters;
export const parameterRef = (name: ParameterName): ReferenceObject => ({ $ref: `#/components/parameters/${name}` });

/** A response with a JSON body of `schema` (a component's name, or a schema) and its examples, by name. */
export function json(
  schema: SchemaName | SchemaObject,
  description: string,
  examples: object = {},
  ...names: HeaderName[]
) {
  const named = Object.entries<unknown>(examples as Record<string, unknown>).map(
    ([name, value]): [string, ExampleObject] => [name, { value }],
  );
  const media = {
    schema: typeof schema === 'string' ? schemaRef(schema) : schema,
    ...(named.length ? { examples: Object.fromEntries(named) } : {}),
  };
  return {
    description,
    ...(names.length ? { headers: headerRefs(...names) } : {}),
    content: { 'application/json': media },
  } satisfies ResponseObject;
}

/** `{error, mensaje, ...extra}` bodies from `[error, mensaje, extra?]`, by example name. */
const cuerpos = (examples: Record<string, [string, string, object?]>) =>
  Object.fromEntries(
    Object.entries(examples).map(([name, [error, mensaje, extra]]) => [name, { error, mensaje, ...extra }]),
  );
/** The header each error status carries: a Basic challenge, or when to retry. */
const ERROR_HEADERS: Record<number, HeaderName> = {
  401: 'WwwAuthenticate',
  409: 'RetryAfterSiClaveEnUso',
  429: 'RetryAfter',
  503: 'RetryAfter',
};
/** A shared error response for `status`: the Error body and its examples. */
const errorResponse = <S extends number>(
  status: S,
  description: string,
  examples: Record<string, [string, string, object?]>,
) => {
  const headers = ERROR_HEADERS[status] ? [ERROR_HEADERS[status]] : [];
  return { status, response: json('Error', description, cuerpos(examples), ...headers) };
};
const detalle = (campo: string, mensaje: string) => ({ detalles: [{ campo, mensaje }] });
const PRECONDICION = AJUSTE_SIN_VERSION;
const CLAVE_REUSADA = 'ya se usó con una petición distinta; use una clave nueva para cada operación';
const CLAVE_EN_USO = 'otra petición con la misma clave de idempotencia se está ejecutando; reintente en unos instantes';
const REGLAS =
  'STOCK_INSUFICIENTE, CAPACIDAD_EXCEDIDA, CAPACIDAD_INSUFICIENTE, PRODUCTO_ELIMINADO, OPERACION_YA_REVERTIDA, ' +
  'OPERACION_NO_REVERSIBLE';

// Examples use the BFF's real codes (ERROR_CODES), so they stay what a client sees.
const ERRORS = {
  BadRequest: errorResponse(
    400,
    'Petición inválida: campos que no cumplen las reglas (cada uno en `detalles`), un id o parámetro mal formado, ' +
      'o JSON mal formado.',
    {
      validacion: [
        ERROR_CODES.validation,
        'Datos no válidos: precio: admite a lo sumo 2 decimales',
        detalle('precio', 'admite a lo sumo 2 decimales'),
      ],
      jsonMalFormado: ['MALFORMED_JSON', 'El cuerpo no es JSON válido'],
    },
  ),
  Unauthorized: errorResponse(401, 'Faltan las credenciales HTTP Basic o no son válidas.', {
    ejemplo: [ERROR_CODES.unauthorized, 'Se requiere autenticación HTTP Basic'],
  }),
  Forbidden: errorResponse(
    403,
    'Quien llama no tiene el permiso (`permiso`), en la bodega `bodegaId` si es de una; no se hizo nada.',
    {
      ejemplo: [
        ERROR_CODES.forbidden,
        'No tiene el permiso existencias:mover en la bodega 3',
        { permiso: 'existencias:mover', bodegaId: '3' },
      ],
    },
  ),
  NotFound: errorResponse(404, 'No existe un recurso con ese id.', {
    ejemplo: [ERROR_CODES.notFound, 'No existe el producto 42'],
  }),
  Conflict: errorResponse(
    409,
    'Conflicto con el estado actual: ya existe una bodega con ese nombre, o la petición con esta Idempotency-Key ' +
      'aún se está ejecutando (repítala tras Retry-After).',
    {
      ejemplo: [ERROR_CODES.alreadyExists, 'Ya existe una bodega llamada "Bodega Central"'],
      claveEnUso: [ERROR_CODES.idempotencyKeyInUse, `La clave de idempotencia está en uso: ${CLAVE_EN_USO}`],
    },
  ),
  PreconditionFailed: errorResponse(
    412,
    'If-Match no coincide con la versión guardada (o `*` y el registro no existe): no se escribió nada.',
    {
      ejemplo: [
        ERROR_CODES.preconditionFailed,
        'La condición If-Match no se cumple: la versión actual es 4, no 3',
        { ...detalle('If-Match', 'la versión actual es 4, no 3'), versionActual: 4 },
      ],
    },
  ),
  PreconditionRequired: errorResponse(
    428,
    'Falta If-Match: un AJUSTE (un conteo), o fijar una existencia que ya existe, debe nombrar la versión de la ' +
      'existencia. No se escribió nada.',
    {
      ejemplo: [
        ERROR_CODES.preconditionRequired,
        `Falta la condición If-Match: ${PRECONDICION}`,
        detalle('If-Match', PRECONDICION),
      ],
    },
  ),
  UnprocessableEntity: errorResponse(
    422,
    'La Idempotency-Key ya se usó con una petición distinta: no se ejecutó nada.',
    {
      ejemplo: [
        ERROR_CODES.idempotencyKeyReused,
        `La clave de idempotencia ${CLAVE_REUSADA}`,
        detalle('Idempotency-Key', CLAVE_REUSADA),
      ],
    },
  ),
  PayloadTooLarge: errorResponse(413, 'El cuerpo supera 1 MiB.', {
    ejemplo: ['PAYLOAD_TOO_LARGE', BODY_MENSAJES.demasiadoGrande],
  }),
  UnsupportedMediaType: errorResponse(415, 'El cuerpo no es `application/json`.', {
    ejemplo: ['UNSUPPORTED_MEDIA_TYPE', 'Tipo de contenido no admitido: envíe Content-Type: application/json'],
  }),
  TooManyRequests: errorResponse(429, 'Demasiadas peticiones de esta IP en el último minuto (RATE_LIMIT_PER_MINUTE).', {
    ejemplo: [ERROR_CODES.tooManyRequests, 'Demasiadas solicitudes; reintente en 30 s'],
  }),
  InternalError: errorResponse(
    500,
    'Error inesperado. El cuerpo solo trae un id de registro, nunca detalles internos.',
    {
      ejemplo: [ERROR_CODES.internal, 'Error interno (id de registro 0f8fad5b-d9cb-469f-a165-70867728950e)'],
    },
  ),
  ServiceUnavailable: errorResponse(503, 'Un servicio interno no está disponible o su circuito está abierto.', {
    ejemplo: [
      ERROR_CODES.serviceUnavailable,
      'El servicio producto-svc no está disponible en este momento; reintente en 10 s',
    ],
  }),
  GatewayTimeout: errorResponse(504, 'Un servicio interno no respondió dentro del plazo.', {
    ejemplo: [ERROR_CODES.gatewayTimeout, 'El servicio producto-svc no respondió a tiempo'],
  }),
};
export type ErrorStatus = (typeof ERRORS)[keyof typeof ERRORS]['status'];

export const CONFLICTO_DE_EXISTENCIAS: ReferenceObject = { $ref: '#/components/responses/ConflictoDeExistencias' };
export const responses: Record<string, ResponseObject> = {
  ...Object.fromEntries(Object.entries(ERRORS).map(([name, { response }]) => [name, response])),
  // The 409 of the stock routes: a stock rule's refusal with its figures, or the other conflicts.
  ConflictoDeExistencias: json(
    'ErrorDeExistencias',
    `Una regla de las existencias rechaza la escritura y no se escribe nada: ${REGLAS}, con sus cifras. O la ` +
      `petición con esta Idempotency-Key aún se está ejecutando (IDEMPOTENCY_KEY_IN_USE, con Retry-After), o el ` +
      `nombre de bodega ya existe (ALREADY_EXISTS).`,
    cuerpos({
      stockInsuficiente: [
        'STOCK_INSUFICIENTE',
        'Stock insuficiente del producto 12 en la bodega 3: hay 2, se piden 5',
        { bodegaId: 3, productoId: 12, disponible: 2, solicitado: 5 },
      ],
      capacidadExcedida: [
        'CAPACIDAD_EXCEDIDA',
        'La bodega 3 no tiene capacidad: capacidad 1000, ocupación 990, se piden 20 unidades más',
        { bodegaId: 3, capacidad: 1000, ocupacion: 990, solicitado: 20 },
      ],
    }),
    ERROR_HEADERS[409]!,
  ),
};

/** The `responses` entries of these error statuses, as `$ref`s to the shared responses. */
export function errorResponses(statuses: readonly ErrorStatus[]): Record<string, ReferenceObject> {
  const names = Object.entries(ERRORS).map(([name, { status }]) => [status, name] as const);
  return Object.fromEntries(
    statuses.map((status) => [String(status), { $ref: `#/components/responses/${new Map(names).get(status)}` }]),
  );
}
