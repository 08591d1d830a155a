import type { JsonSchema } from './openapi-types';

/**
 * The JSON Schemas (2020-12) of every REST body: the resources in their REST
 * form (docs/contract.md §2.3), the request bodies, the error body and the
 * warehouse-deletion bodies of docs/contract.md §2. Every object is closed
 * (`additionalProperties: false`), except the GraphQL request, whose
 * transport is graphql-http's: the BFF answers 400 to an unknown REST request
 * field (a typo must not be silently ignored), and a response field added
 * without being documented fails the contract tests.
 *
 * `precio` is `multipleOf: 0.01`; a validator must compare with a tolerance
 * for binary floating point (19.9 / 0.01 is not exactly 1990), e.g. ajv's
 * `multipleOfPrecision`.
 */

/** The component names of the schemas below, and of the stock ledger's (existencias-schemas.ts). */
export type SchemaName = ProductoBodegaSchemaName | ExistenciaSchemaName;

/** The stock ledger's schemas (docs/contract.md §10.2), in existencias-schemas.ts. */
export type ExistenciaSchemaName =
  | 'Asignacion'
  | 'AsignacionHecha'
  | 'RetiroHecho'
  | 'Existencia'
  | 'ExistenciasDeBodega'
  | 'ExistenciasDeProducto'
  | 'MovimientoCreate'
  | 'TransferenciaCreate'
  | 'ReversoCreate'
  | 'Movimiento'
  | 'Operacion'
  | 'MovimientosPagina'
  | 'Verificacion'
  | 'ErrorDeExistencias';

type ProductoBodegaSchemaName =
  | 'Producto'
  | 'ProductoCreate'
  | 'ProductoUpdate'
  | 'Bodega'
  | 'BodegaCreate'
  | 'BodegaUpdate'
  | 'BodegaCreada'
  | 'Mensaje'
  | 'ProductoDeBodega'
  | 'BodegaEliminadaForzada'
  | 'Error'
  | 'BodegaConProductos'
  | 'GraphqlInfo'
  | 'GraphqlRequest'
  | 'GraphqlResponse'
  | 'Health'
  | 'OpenApi';

/** `$ref` to a schema of this file. */
export function schemaRef(name: SchemaName): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

export const id: JsonSchema = {
  type: 'integer',
  minimum: 1,
  maximum: 4294967295,
  description: 'Identificador asignado por el servicio (entero positivo).',
};

/** `YYYY-MM-DDTHH:mm:ss` in UTC without a zone: a pattern, since `format: date-time` requires a zone. */
export const timestamp: JsonSchema = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
  description: 'Fecha y hora ISO 8601 sin zona, siempre en UTC.',
  examples: ['2026-11-22T14:03:07'],
};

/** DECIMAL(10,2): at most 8 integer digits and 2 decimals, never rounded by the service. */
const precio: JsonSchema = {
  type: 'number',
  minimum: 0,
  maximum: 99999999.99,
  multipleOf: 0.01,
  description: 'Precio con a lo sumo 2 decimales (DECIMAL(10,2)); un valor con más decimales se rechaza, nunca se redondea.',
  examples: [19.9],
};

const nombre: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: '\\S',
  description: 'Se eliminan los espacios de los extremos; no puede quedar en blanco.',
};
/** INT columns. */
export const MAX_INT32 = 2147483647;
const cantidadEnStock: JsonSchema = { type: 'integer', minimum: 0, maximum: MAX_INT32, description: 'Unidades en existencia.' };
export const capacidad: JsonSchema = { type: 'integer', minimum: 0, maximum: MAX_INT32, description: 'Capacidad de la bodega en unidades.' };
const nullableBodegaId: JsonSchema = {
  type: ['integer', 'null'],
  minimum: 1,
  maximum: 4294967295,
  description: 'Bodega que guarda el producto, o null. Debe existir (si no, 400).',
};
const descripcion: JsonSchema = { type: ['string', 'null'], description: 'Texto libre opcional, de a lo sumo 65535 bytes en UTF-8.' };
const ubicacion: JsonSchema = {
  type: ['string', 'null'],
  maxLength: 255,
  description: 'Ubicación opcional; se eliminan los espacios de los extremos y una cadena en blanco se guarda como null.',
};

/** 1 at creation, +1 on each write; the ETag is this number in quotes (docs/contract.md §9). */
export const version: JsonSchema = {
  type: 'integer',
  minimum: 1,
  maximum: 4294967295,
  description: 'Versión del registro: 1 al crearse, +1 en cada escritura. La ETag es este número entre comillas; envíela en If-Match.',
};

/** Fields a client may send (e.g. echoing a resource) but the service owns: ignored (docs/contract.md §2.5). */
export const readOnlyIgnored: Record<string, JsonSchema> = {
  id: { readOnly: true, description: 'Se ignora.' },
  fechaCreacion: { readOnly: true, description: 'Se ignora.' },
  fechaActualizacion: { readOnly: true, description: 'Se ignora.' },
  version: { readOnly: true, description: 'Se ignora: una escritura condicional usa la cabecera If-Match.' },
};

/** The fields of every error body (docs/contract.md §3.1). */
export const errorProperties: Record<string, JsonSchema> = {
  error: { type: 'string', minLength: 1, description: 'Código estable del error, para que el cliente decida, p. ej. VALIDATION_ERROR o NOT_FOUND.' },
  mensaje: { type: 'string', minLength: 1 },
  detalles: {
    type: 'array',
    description: 'En los errores de validación, un elemento por campo inválido.',
    items: {
      type: 'object',
      required: ['campo', 'mensaje'],
      additionalProperties: false,
      properties: {
        campo: { type: 'string', description: 'Nombre público del campo (camelCase).' },
        mensaje: { type: 'string' },
      },
    },
  },
  versionActual: {
    type: ['integer', 'null'],
    minimum: 1,
    description: 'Solo en PRECONDITION_FAILED (412): la versión guardada, o null si el registro no existe.',
  },
};

/** Units a warehouse holds in all (docs/contract.md §10). */
export const ocupacion: JsonSchema = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_INT32,
  description: 'Unidades que guarda en total (la suma de sus existencias); nunca supera capacidad.',
};

/** The schemas of products and warehouses, by component name. */
export const schemas: Readonly<Record<ProductoBodegaSchemaName, JsonSchema>> = {
  Producto: {
    type: 'object',
    description: 'Un producto en su forma REST.',
    required: ['id', 'nombre', 'descripcion', 'precio', 'cantidadEnStock', 'bodegaId', 'fechaCreacion', 'fechaActualizacion', 'version'],
    additionalProperties: false,
    properties: {
      id,
      nombre,
      descripcion,
      precio,
      cantidadEnStock,
      bodegaId: nullableBodegaId,
      fechaCreacion: timestamp,
      fechaActualizacion: { ...timestamp, description: 'Igual a fechaCreacion al crear.' },
      version,
    },
  },
  ProductoCreate: {
    type: 'object',
    description: 'Datos de un producto nuevo. Los campos de solo lectura se ignoran; uno desconocido es un 400.',
    required: ['nombre', 'precio', 'cantidadEnStock'],
    additionalProperties: false,
    properties: { nombre, descripcion, precio, cantidadEnStock, bodegaId: nullableBodegaId, ...readOnlyIgnored },
  },
  ProductoUpdate: {
    type: 'object',
    description:
      'Actualización parcial: los campos ausentes conservan su valor, null borra un campo anulable ' +
      '(descripcion, bodegaId), los campos de solo lectura se ignoran y uno desconocido es un 400. ' +
      'Debe traer al menos un campo actualizable.',
    additionalProperties: false,
    properties: { nombre, descripcion, precio, cantidadEnStock, bodegaId: nullableBodegaId, ...readOnlyIgnored },
    anyOf: ['nombre', 'descripcion', 'precio', 'cantidadEnStock', 'bodegaId'].map((campo) => ({ required: [campo] })),
  },
  Bodega: {
    type: 'object',
    description: 'Una bodega en su forma REST.',
    required: ['id', 'nombre', 'ubicacion', 'capacidad', 'ocupacion', 'fechaCreacion', 'fechaActualizacion', 'version'],
    additionalProperties: false,
    properties: {
      id,
      nombre: { ...nombre, description: 'Único entre las bodegas, sin distinguir mayúsculas ni acentos.' },
      ubicacion,
      capacidad,
      ocupacion,
      fechaCreacion: timestamp,
      fechaActualizacion: { ...timestamp, description: 'Igual a fechaCreacion al crear.' },
      version,
    },
  },
  BodegaCreate: {
    type: 'object',
    description: 'Datos de una bodega nueva. Los campos de solo lectura se ignoran; uno desconocido es un 400.',
    required: ['nombre', 'capacidad'],
    additionalProperties: false,
    properties: {
      nombre: { ...nombre, description: 'Único entre las bodegas (si no, 409).' },
      ubicacion,
      capacidad,
      ...readOnlyIgnored,
      ocupacion: { readOnly: true, description: 'Se ignora: la ocupación la dan sus existencias.' },
    },
  },
  BodegaUpdate: {
    type: 'object',
    description: 'Actualización parcial, como la de productos. Debe traer al menos un campo actualizable.',
    additionalProperties: false,
    properties: {
      nombre,
      ubicacion,
      capacidad: { ...capacidad, description: 'Capacidad en unidades; por debajo de la ocupación actual, 409 CAPACIDAD_INSUFICIENTE.' },
      ...readOnlyIgnored,
      ocupacion: { readOnly: true, description: 'Se ignora.' },
    },
    anyOf: ['nombre', 'ubicacion', 'capacidad'].map((campo) => ({ required: [campo] })),
  },
  BodegaCreada: {
    type: 'object',
    required: ['mensaje', 'id'],
    additionalProperties: false,
    properties: { mensaje: { type: 'string' }, id },
  },
  Mensaje: {
    type: 'object',
    required: ['mensaje'],
    additionalProperties: false,
    properties: { mensaje: { type: 'string' } },
  },
  ProductoDeBodega: {
    type: 'object',
    description:
      'Resumen de un producto de una bodega: asignado a ella (bodegaId) o con existencias en ella. ' +
      'Con existencias, cantidad son sus unidades en esta bodega; si no, su cantidadEnStock.',
    required: ['id', 'nombre', 'cantidad', 'precio'],
    additionalProperties: false,
    properties: { id, nombre, cantidad: { ...cantidadEnStock, description: 'Unidades.' }, precio },
  },
  BodegaEliminadaForzada: {
    type: 'object',
    description:
      'Resultado de DELETE con force=true: la bodega se eliminó, sus productos quedaron sin bodega y sus existencias se dieron de baja.',
    required: ['mensaje', 'bodegaId', 'productosAfectados', 'detalleProductos', 'advertencia', 'existenciasRetiradas', 'unidadesRetiradas'],
    additionalProperties: false,
    properties: {
      mensaje: { type: 'string' },
      bodegaId: { type: 'string', pattern: '^[1-9][0-9]*$', description: 'Id de la bodega eliminada, como texto (forma del contrato original).' },
      productosAfectados: {
        type: 'integer',
        minimum: 0,
        description: 'Cuántos productos perdieron la bodega, por su asignación o por sus existencias en ella (todos, cada uno una vez).',
      },
      detalleProductos: {
        type: 'array',
        maxItems: 100,
        items: schemaRef('Producto'),
        description:
          'Los primeros productos afectados por id, tal como quedaron (sin bodega): como mucho 100 y 256 KiB de JSON; ' +
          'productosAfectados los cuenta todos.',
      },
      advertencia: { type: 'string' },
      existenciasRetiradas: { type: 'integer', minimum: 0, description: 'Existencias (niveles) dadas de baja con motivo BODEGA_ELIMINADA.' },
      unidadesRetiradas: { type: 'integer', minimum: 0, description: 'Unidades que guardaban.' },
    },
  },
  Error: {
    type: 'object',
    description: 'Cuerpo de todo error REST: `error` es un código estable; `mensaje` explica el problema en español.',
    required: ['error', 'mensaje'],
    additionalProperties: false,
    properties: errorProperties,
  },
  BodegaConProductos: {
    type: 'object',
    description:
      'Error de DELETE sin force de una bodega que guarda productos (asignados o con existencias en ella): no se elimina nada.',
    required: ['error', 'mensaje', 'productos', 'bodegaId', 'totalProductos'],
    additionalProperties: false,
    properties: {
      ...errorProperties,
      productos: {
        type: 'array',
        minItems: 1,
        maxItems: 100,
        items: schemaRef('Producto'),
        description:
          'Los primeros productos de la bodega por id, asignados o con existencias: como mucho 100 y 256 KiB de JSON; totalProductos los cuenta todos.',
      },
      totalProductos: { type: 'integer', minimum: 1, description: 'Cuántos productos guarda la bodega (todos, no solo los listados).' },
      bodegaId: { type: 'string', pattern: '^[1-9][0-9]*$', description: 'Id de la bodega, como texto (forma del contrato original).' },
    },
  },
  GraphqlInfo: {
    type: 'object',
    description: 'Respuesta de GET /api/graphql sin consulta: cómo usar el endpoint.',
    required: ['message', 'ejemplo', 'endpoint'],
    additionalProperties: false,
    properties: {
      message: { type: 'string' },
      ejemplo: {
        type: 'object',
        required: ['query', 'variables', 'operationName'],
        additionalProperties: false,
        properties: {
          query: { type: 'string' },
          variables: { type: ['object', 'null'] },
          operationName: { type: ['string', 'null'] },
        },
      },
      endpoint: { type: 'string' },
    },
  },
  GraphqlRequest: {
    type: 'object',
    description: 'Petición GraphQL over HTTP.',
    required: ['query'],
    properties: {
      query: { type: 'string' },
      variables: { type: ['object', 'null'] },
      operationName: { type: ['string', 'null'] },
      extensions: { type: ['object', 'null'] },
    },
  },
  GraphqlResponse: {
    type: 'object',
    description:
      'Resultado GraphQL: `data` con los campos pedidos y/o `errors`. Los errores de validación llevan ' +
      '`extensions.classification: "ValidationError"`, los de sintaxis `"InvalidSyntax"`.',
    anyOf: [{ required: ['data'] }, { required: ['errors'] }],
    properties: {
      data: { type: ['object', 'null'] },
      errors: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['message'],
          properties: {
            message: { type: 'string' },
            locations: {
              type: 'array',
              items: {
                type: 'object',
                required: ['line', 'column'],
                properties: { line: { type: 'integer', minimum: 1 }, column: { type: 'integer', minimum: 1 } },
              },
            },
            path: { type: 'array', items: { type: ['string', 'integer'] } },
            extensions: { type: 'object' },
          },
        },
      },
      extensions: { type: 'object' },
    },
    additionalProperties: false,
  },
  Health: {
    type: 'object',
    description: 'Estado del BFF (forma de Spring Boot Actuator): UP solo si todas sus dependencias lo están.',
    required: ['status'],
    additionalProperties: false,
    properties: {
      status: { enum: ['UP', 'DOWN'] },
      components: {
        type: 'object',
        description: 'Cada servicio interno, por nombre (productoSvc, bodegaSvc).',
        additionalProperties: {
          type: 'object',
          required: ['status', 'details'],
          additionalProperties: false,
          properties: {
            status: { enum: ['UP', 'DOWN'], description: 'UP solo si su grpc.health.v1 responde SERVING.' },
            details: {
              type: 'object',
              required: ['grpc', 'breaker'],
              additionalProperties: false,
              properties: {
                grpc: {
                  type: 'string',
                  description: 'Respuesta de grpc.health.v1 (SERVING, NOT_SERVING…) o el código gRPC del fallo.',
                  examples: ['SERVING', 'UNAVAILABLE'],
                },
                breaker: { enum: ['closed', 'open', 'halfOpen'], description: 'Estado del circuit breaker hacia el servicio.' },
              },
            },
          },
        },
      },
    },
  },
  OpenApi: {
    type: 'object',
    description: 'Un documento OpenAPI 3.1.',
    required: ['openapi', 'info', 'paths'],
    properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' } },
  },
};
