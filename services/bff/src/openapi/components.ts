import { ERROR_CODES } from '../http/error-middleware';
import { BODY_MENSAJES } from '../http/http-errors';
import type { Example, Header, Parameter, Reference, Response } from './openapi-types';
import { schemaRef } from './schemas';

/**
 * The shared pieces of the document: parameters, headers and the error
 * responses of docs/contract.md §3.2's status mapping. Every error answers the
 * same body (`Error`); the tests constrain its shape, not the code values,
 * which may grow.
 */

export const parameters = {
  ProductoId: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'Id del producto: un entero positivo (si no, 400).',
    schema: { type: 'integer', minimum: 1, maximum: 4294967295 },
  },
  BodegaId: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'Id de la bodega: un entero positivo (si no, 400).',
    schema: { type: 'integer', minimum: 1, maximum: 4294967295 },
  },
  Limit: {
    name: 'limit',
    in: 'query',
    description: 'Devuelve a lo sumo este número de productos. Sin limit, offset, bodegaId ni q se devuelve la lista completa.',
    schema: { type: 'integer', minimum: 1, maximum: 1000 },
  },
  Offset: {
    name: 'offset',
    in: 'query',
    description: 'Salta este número de productos (en orden de id) antes de devolver.',
    schema: { type: 'integer', minimum: 0, maximum: 2147483647, default: 0 },
  },
  BodegaIdFiltro: {
    name: 'bodegaId',
    in: 'query',
    description: 'Solo los productos guardados en esta bodega.',
    schema: { type: 'integer', minimum: 1, maximum: 4294967295 },
  },
  Q: {
    name: 'q',
    in: 'query',
    description: 'Solo los productos cuyo nombre contiene este texto (sin distinguir mayúsculas ni acentos).',
    schema: { type: 'string', maxLength: 255 },
  },
  Force: {
    name: 'force',
    in: 'query',
    description:
      'Con `true` la bodega se elimina aunque guarde productos, que quedan sin bodega (respuesta 200 con el detalle). ' +
      'Sin él, una bodega con productos no se elimina (409).',
    schema: { type: 'boolean', default: false },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    description:
      'Hace segura la repetición de una escritura: la primera petición con la clave se ejecuta y su respuesta se guarda 24 h; ' +
      'una repetición con la misma petición recibe la respuesta guardada (Idempotent-Replayed: true) sin ejecutar nada; ' +
      'con otra petición, 422; mientras la primera sigue en curso, 409 con Retry-After. La clave es del usuario y de la operación.',
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$', examples: ['8f14e45f-ceea-467e-9a4b-2c1d2b9a4e31'] },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    description:
      'Escritura condicional: solo se aplica si el registro sigue en la versión de esta ETag (p. ej. "3", o "3.540" de una bodega, ' +
      'de la que cuenta la versión); si no, 412 con versionActual. `*` exige solo que exista. Sin ella, la escritura es incondicional.',
    schema: { type: 'string', examples: ['"3"', '"3.540"', '*'] },
  },
  ProductoIdDeRuta: {
    name: 'productoId',
    in: 'path',
    required: true,
    description: 'Id del producto: un entero positivo (si no, 400).',
    schema: { type: 'integer', minimum: 1, maximum: 4294967295 },
  },
  OperacionId: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'Id de la operación: un entero positivo (si no, 400).',
    schema: { type: 'integer', minimum: 1, maximum: 4294967295 },
  },
  IfMatchExistencia: {
    name: 'If-Match',
    in: 'header',
    description:
      'Escritura condicional sobre la existencia: solo se aplica si sigue en la versión de esta ETag (p. ej. "3"); si no, 412 con versionActual. ' +
      '`*` exige solo que exista. Obligatoria en un AJUSTE (si falta, 428).',
    schema: { type: 'string', examples: ['"3"', '*'] },
  },
  MovimientosBodegaId: {
    name: 'bodegaId',
    in: 'query',
    description: 'Solo las líneas de esta bodega.',
    schema: { type: 'integer', minimum: 1, maximum: 4294967295 },
  },
  MovimientosProductoId: {
    name: 'productoId',
    in: 'query',
    description: 'Solo las líneas de este producto.',
    schema: { type: 'integer', minimum: 1, maximum: 4294967295 },
  },
  MovimientosTipo: {
    name: 'tipo',
    in: 'query',
    description: 'Solo las líneas de este tipo.',
    schema: { enum: ['ENTRADA', 'SALIDA', 'TRANSFERENCIA', 'AJUSTE'] },
  },
  Desde: {
    name: 'desde',
    in: 'query',
    description: 'Solo las líneas de este instante en adelante (inclusive): `YYYY-MM-DDTHH:mm:ss` en UTC (con Z opcional) o `YYYY-MM-DD`.',
    schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}Z?)?$', examples: ['2026-11-25', '2026-11-25T10:00:00Z'] },
  },
  Hasta: {
    name: 'hasta',
    in: 'query',
    description: 'Solo las líneas anteriores a este instante (exclusive), en el formato de `desde`.',
    schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}Z?)?$', examples: ['2026-11-26'] },
  },
  LimitMovimientos: {
    name: 'limit',
    in: 'query',
    description: 'Líneas por página.',
    schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
  },
  Cursor: {
    name: 'cursor',
    in: 'query',
    description: 'El `siguienteCursor` de la página anterior (opaco), con los mismos filtros.',
    schema: { type: 'string', minLength: 1, maxLength: 1024 },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    description: 'Si nombra la ETag actual, la respuesta es 304 sin cuerpo.',
    schema: { type: 'string', examples: ['"3"'] },
  },
} as const satisfies Record<string, Parameter>;

export const headers = {
  Location: {
    description: 'Ruta del recurso creado.',
    required: true,
    schema: { type: 'string', pattern: '^/api/(v1/)?(productos|bodegas|operaciones)/[1-9][0-9]*$', examples: ['/api/productos/12'] },
  },
  WwwAuthenticate: {
    description: 'Pide credenciales HTTP Basic.',
    required: true,
    schema: { type: 'string', pattern: '^Basic realm="inventario"', examples: ['Basic realm="inventario", charset="UTF-8"'] },
  },
  RetryAfter: {
    description: 'Segundos tras los que conviene reintentar.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  RetryAfterSiClaveEnUso: {
    description: 'Solo con IDEMPOTENCY_KEY_IN_USE: segundos tras los que conviene repetir la petición.',
    required: false,
    schema: { type: 'integer', minimum: 0 },
  },
  ETag: {
    description: 'La versión del registro, entre comillas: envíela en If-Match para escribir sobre ella.',
    required: true,
    schema: { type: 'string', pattern: '^"[1-9][0-9]*"$', examples: ['"3"'] },
  },
  ETagBodega: {
    description:
      'La versión de la bodega y su ocupación, "<version>.<ocupacion>": cambia cuando cambia cualquiera de las dos, así que If-None-Match ' +
      'solo da 304 si ambas siguen igual; en If-Match cuenta solo la versión (que las unidades se muevan no es editar la bodega).',
    required: true,
    schema: { type: 'string', pattern: '^"[1-9][0-9]*\\.[0-9]+"$', examples: ['"3.540"'] },
  },
  IdempotentReplayed: {
    description: 'Presente (true) cuando la respuesta es la guardada para esta Idempotency-Key: no se ejecutó nada.',
    required: false,
    schema: { const: 'true' },
  },
} as const satisfies Record<string, Header>;

/** `$ref` to a parameter of this file. */
export function parameterRef(name: keyof typeof parameters): Reference {
  return { $ref: `#/components/parameters/${name}` };
}

/** `$ref` to a header of this file. */
export function headerRef(name: keyof typeof headers): Reference {
  return { $ref: `#/components/headers/${name}` };
}

/** An error response with the shared Error body and its examples. */
function errorResponse(description: string, examples: Record<string, Example>, extraHeaders?: Response['headers']): Response {
  return {
    description,
    ...(extraHeaders ? { headers: extraHeaders } : {}),
    content: { 'application/json': { schema: schemaRef('Error'), examples } },
  };
}

// Examples use the BFF's real codes (ERROR_CODES) so they stay what a client sees.
export const responses = {
  BadRequest: errorResponse(
    'Petición inválida: campos que no cumplen las reglas (cada uno en `detalles`), un id o parámetro mal formado, o JSON mal formado.',
    {
      validacion: {
        value: {
          error: ERROR_CODES.validation,
          mensaje: 'Datos no válidos: precio: admite a lo sumo 2 decimales',
          detalles: [{ campo: 'precio', mensaje: 'admite a lo sumo 2 decimales' }],
        },
      },
      jsonMalFormado: { value: { error: 'MALFORMED_JSON', mensaje: 'El cuerpo no es JSON válido' } },
    },
  ),
  Unauthorized: errorResponse(
    'Faltan las credenciales HTTP Basic o no son válidas.',
    { ejemplo: { value: { error: ERROR_CODES.unauthorized, mensaje: 'Se requiere autenticación HTTP Basic' } } },
    { 'WWW-Authenticate': headerRef('WwwAuthenticate') },
  ),
  NotFound: errorResponse('No existe un recurso con ese id.', {
    ejemplo: { value: { error: ERROR_CODES.notFound, mensaje: 'No existe el producto 42' } },
  }),
  Conflict: errorResponse(
    'Conflicto con el estado actual: ya existe una bodega con ese nombre, o la petición con esta Idempotency-Key aún se está ejecutando (repítala tras Retry-After).',
    {
      ejemplo: { value: { error: ERROR_CODES.alreadyExists, mensaje: 'Ya existe una bodega llamada "Bodega Central"' } },
      claveEnUso: {
        value: {
          error: ERROR_CODES.idempotencyKeyInUse,
          mensaje: 'La clave de idempotencia está en uso: otra petición con la misma clave de idempotencia se está ejecutando; reintente en unos instantes',
        },
      },
    },
    { 'Retry-After': headerRef('RetryAfterSiClaveEnUso') },
  ),
  PreconditionFailed: errorResponse('If-Match no coincide con la versión guardada (o `*` y el registro no existe): no se escribió nada.', {
    ejemplo: {
      value: {
        error: ERROR_CODES.preconditionFailed,
        mensaje: 'La condición If-Match no se cumple: la versión actual es 4, no 3',
        detalles: [{ campo: 'If-Match', mensaje: 'la versión actual es 4, no 3' }],
        versionActual: 4,
      },
    },
  }),
  PreconditionRequired: errorResponse('Falta If-Match: un AJUSTE (un conteo) debe nombrar la versión de la existencia contada. No se escribió nada.', {
    ejemplo: {
      value: {
        error: ERROR_CODES.preconditionRequired,
        mensaje: 'Falta la condición If-Match: un AJUSTE (un conteo) requiere la versión de la existencia contada en If-Match',
        detalles: [{ campo: 'If-Match', mensaje: 'un AJUSTE (un conteo) requiere la versión de la existencia contada en If-Match' }],
      },
    },
  }),
  ConflictoDeExistencias: {
    description:
      'Una regla de las existencias rechaza la escritura y no se escribe nada: STOCK_INSUFICIENTE, CAPACIDAD_EXCEDIDA, CAPACIDAD_INSUFICIENTE, ' +
      'PRODUCTO_ELIMINADO, OPERACION_YA_REVERTIDA, OPERACION_NO_REVERSIBLE, con sus cifras. O la petición con esta Idempotency-Key aún ' +
      'se está ejecutando (IDEMPOTENCY_KEY_IN_USE, con Retry-After), o el nombre de bodega ya existe (ALREADY_EXISTS).',
    headers: { 'Retry-After': headerRef('RetryAfterSiClaveEnUso') },
    content: {
      'application/json': {
        schema: schemaRef('ErrorDeExistencias'),
        examples: {
          stockInsuficiente: {
            value: {
              error: 'STOCK_INSUFICIENTE',
              mensaje: 'stock insuficiente del producto 12 en la bodega 3: hay 2, se piden 5',
              bodegaId: 3,
              productoId: 12,
              disponible: 2,
              solicitado: 5,
            },
          },
          capacidadExcedida: {
            value: {
              error: 'CAPACIDAD_EXCEDIDA',
              mensaje: 'la bodega 3 no tiene capacidad: capacidad 1000, ocupación 990, se piden 20 unidades más',
              bodegaId: 3,
              capacidad: 1000,
              ocupacion: 990,
              solicitado: 20,
            },
          },
        },
      },
    },
  },
  UnprocessableEntity: errorResponse('La Idempotency-Key ya se usó con una petición distinta: no se ejecutó nada.', {
    ejemplo: {
      value: {
        error: ERROR_CODES.idempotencyKeyReused,
        mensaje: 'La clave de idempotencia ya se usó con una petición distinta; use una clave nueva para cada operación',
        detalles: [{ campo: 'Idempotency-Key', mensaje: 'ya se usó con una petición distinta; use una clave nueva para cada operación' }],
      },
    },
  }),
  PayloadTooLarge: errorResponse('El cuerpo supera 1 MiB.', {
    ejemplo: { value: { error: 'PAYLOAD_TOO_LARGE', mensaje: BODY_MENSAJES.demasiadoGrande } },
  }),
  UnsupportedMediaType: errorResponse('El cuerpo no es `application/json`.', {
    ejemplo: { value: { error: 'UNSUPPORTED_MEDIA_TYPE', mensaje: 'Tipo de contenido no admitido: envíe Content-Type: application/json' } },
  }),
  TooManyRequests: errorResponse(
    'Demasiadas peticiones de esta IP en el último minuto (RATE_LIMIT_PER_MINUTE).',
    { ejemplo: { value: { error: ERROR_CODES.tooManyRequests, mensaje: 'Demasiadas solicitudes; reintente en 30 s' } } },
    { 'Retry-After': headerRef('RetryAfter') },
  ),
  InternalError: errorResponse('Error inesperado. El cuerpo solo trae un id de registro, nunca detalles internos.', {
    ejemplo: { value: { error: ERROR_CODES.internal, mensaje: 'Error interno (id de registro 0f8fad5b-d9cb-469f-a165-70867728950e)' } },
  }),
  ServiceUnavailable: errorResponse(
    'Un servicio interno no está disponible o su circuito está abierto.',
    {
      ejemplo: {
        value: {
          error: ERROR_CODES.serviceUnavailable,
          mensaje: 'El servicio producto-svc no está disponible en este momento; reintente en 10 s',
        },
      },
    },
    { 'Retry-After': headerRef('RetryAfter') },
  ),
  GatewayTimeout: errorResponse('Un servicio interno no respondió dentro del plazo.', {
    ejemplo: { value: { error: ERROR_CODES.gatewayTimeout, mensaje: 'El servicio producto-svc no respondió a tiempo' } },
  }),
} as const satisfies Record<string, Response>;

/** HTTP status -> the shared error response for it. */
const errorByStatus = {
  400: 'BadRequest',
  401: 'Unauthorized',
  404: 'NotFound',
  409: 'Conflict',
  412: 'PreconditionFailed',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'UnprocessableEntity',
  428: 'PreconditionRequired',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'GatewayTimeout',
} as const satisfies Record<number, keyof typeof responses>;

export type ErrorStatus = keyof typeof errorByStatus;

/** The `responses` entries of these error statuses, as `$ref`s to the shared responses. */
export function errorResponses(...statuses: ErrorStatus[]): Record<string, Reference> {
  return Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/${errorByStatus[status]}` }]));
}

/** Errors any authenticated /api call can answer, whatever it does. */
export const API_ERRORS: ErrorStatus[] = [401, 429, 500];
/** Errors of a call that reaches a downstream service (breaker open / deadline). */
export const DOWNSTREAM_ERRORS: ErrorStatus[] = [503, 504];
/** Errors of a write that carries an Idempotency-Key: in use (409), reused (422). */
export const KEYED_ERRORS: ErrorStatus[] = [409, 422];
/** Errors of a call that carries a JSON body. */
export const BODY_ERRORS: ErrorStatus[] = [400, 413, 415];

/** The 409 of the stock routes: a stock rule's refusal with its figures, or the other conflicts. */
export const CONFLICTO_DE_EXISTENCIAS: Reference = { $ref: '#/components/responses/ConflictoDeExistencias' };
