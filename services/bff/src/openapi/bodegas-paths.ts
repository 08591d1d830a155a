import { ERROR_CODES } from '../http/error-middleware';
import { API_ERRORS, BODY_ERRORS, CONFLICTO_DE_EXISTENCIAS, DOWNSTREAM_ERRORS, errorResponses, headerRef, KEYED_ERRORS, parameterRef } from './components';
import { bodegaEjemplo, otroProductoEjemplo, productoEjemplo } from './examples';
import { asignarProductoABodega } from './existencias-paths';
import type { PathItem } from './openapi-types';
import { schemaRef } from './schemas';

/** The warehouse routes of docs/contract.md §2.2, with the safe delete of §2.7. */

const tags = ['Bodegas'];

const bodegaRequest = (schema: 'BodegaCreate' | 'BodegaUpdate', value: unknown) => ({
  required: true,
  content: { 'application/json': { schema: schemaRef(schema), examples: { bodega: { value } } } },
});

export const bodegasPaths = {
  '/api/bodegas': {
    get: {
      operationId: 'listarBodegas',
      summary: 'Lista las bodegas',
      description: 'En orden de id.',
      tags,
      responses: {
        '200': {
          description: 'Las bodegas.',
          content: {
            'application/json': { schema: { type: 'array', items: schemaRef('Bodega') }, examples: { bodegas: { value: [bodegaEjemplo] } } },
          },
        },
        ...errorResponses(...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
    post: {
      operationId: 'crearBodega',
      summary: 'Crea una bodega',
      description: 'El nombre debe ser único (si no, 409). Publica el evento BodegaCreada. Admite Idempotency-Key.',
      tags,
      parameters: [parameterRef('IdempotencyKey')],
      requestBody: bodegaRequest('BodegaCreate', { nombre: 'Bodega Central', ubicacion: 'Calle Mayor 10, Madrid', capacidad: 1000 }),
      responses: {
        '201': {
          description: 'Creada: un mensaje y el id asignado.',
          headers: { Location: headerRef('Location'), ETag: headerRef('ETagBodega'), 'Idempotent-Replayed': headerRef('IdempotentReplayed') },
          content: {
            'application/json': {
              schema: schemaRef('BodegaCreada'),
              examples: { creada: { value: { mensaje: 'Bodega creada exitosamente', id: 3 } } },
            },
          },
        },
        ...errorResponses(...BODY_ERRORS, ...KEYED_ERRORS, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
  },
  '/api/bodegas/{id}': {
    parameters: [parameterRef('BodegaId')],
    get: {
      operationId: 'obtenerBodega',
      summary: 'Obtiene una bodega',
      tags,
      parameters: [parameterRef('IfNoneMatch')],
      responses: {
        '200': {
          description: 'La bodega; su ETag, su versión y su ocupación.',
          headers: { ETag: headerRef('ETagBodega') },
          content: { 'application/json': { schema: schemaRef('Bodega'), examples: { bodega: { value: bodegaEjemplo } } } },
        },
        '304': { description: 'If-None-Match nombra la ETag actual (versión y ocupación); sin cuerpo.', headers: { ETag: headerRef('ETagBodega') } },
        ...errorResponses(400, 404, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
    put: {
      operationId: 'actualizarBodega',
      summary: 'Actualiza una bodega (parcialmente)',
      description:
        'Solo cambian los campos presentes; el nombre nuevo debe ser único (si no, 409 ALREADY_EXISTS) y la capacidad no puede bajar ' +
        'de la ocupación (si no, 409 CAPACIDAD_INSUFICIENTE con capacidad y ocupacion). Publica el evento BodegaActualizada. ' +
        'Admite If-Match e Idempotency-Key.',
      tags,
      parameters: [parameterRef('IfMatch'), parameterRef('IdempotencyKey')],
      requestBody: bodegaRequest('BodegaUpdate', { capacidad: 1500 }),
      responses: {
        '200': {
          description: 'Actualizada; la ETag lleva la nueva versión.',
          headers: { ETag: headerRef('ETagBodega'), 'Idempotent-Replayed': headerRef('IdempotentReplayed') },
          content: {
            'application/json': {
              schema: schemaRef('Mensaje'),
              examples: { actualizada: { value: { mensaje: 'Bodega actualizada exitosamente' } } },
            },
          },
        },
        ...errorResponses(...BODY_ERRORS, 404, 412, ...KEYED_ERRORS, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
        '409': CONFLICTO_DE_EXISTENCIAS,
      },
    },
    delete: {
      operationId: 'eliminarBodega',
      summary: 'Elimina una bodega (borrado seguro)',
      description:
        'Sin `force`, una bodega que guarda productos (asignados o con existencias en ella) no se elimina (409 con la lista); ' +
        'una vacía se elimina (204). Con `force=true` se elimina igualmente: sus productos quedan sin bodega y sus existencias se dan de baja ' +
        '(motivo BODEGA_ELIMINADA) en la misma transacción (200 con el detalle). ' +
        'Publica el evento BodegaEliminada. Admite If-Match (comprobado antes de tocar ningún producto) e Idempotency-Key ' +
        '(con `force=true`, una repetición completa lo que faltara o devuelve el mismo informe).',
      tags,
      parameters: [parameterRef('Force'), parameterRef('IfMatch'), parameterRef('IdempotencyKey')],
      responses: {
        '200': {
          description: 'Eliminada con `force=true`; los productos afectados conservan sus datos pero pierden la bodega.',
          headers: { 'Idempotent-Replayed': headerRef('IdempotentReplayed') },
          content: {
            'application/json': {
              schema: schemaRef('BodegaEliminadaForzada'),
              examples: {
                forzada: {
                  value: {
                    mensaje: 'Bodega eliminada exitosamente',
                    bodegaId: '3',
                    productosAfectados: 2,
                    detalleProductos: [productoEjemplo, otroProductoEjemplo],
                    advertencia: '2 producto(s) quedaron sin bodega asignada; siguen existiendo y pueden asignarse a otra bodega',
                    existenciasRetiradas: 0,
                    unidadesRetiradas: 0,
                  },
                },
              },
            },
          },
        },
        '204': {
          description: 'La bodega estaba vacía y se eliminó; sin cuerpo.',
          headers: { 'Idempotent-Replayed': headerRef('IdempotentReplayed') },
        },
        '409': {
          description:
            'La bodega guarda productos y no se pasó `force=true`: no se elimina nada (BodegaConProductos). ' +
            'O la petición con esta Idempotency-Key aún se está ejecutando (Error IDEMPOTENCY_KEY_IN_USE, con Retry-After).',
          headers: { 'Retry-After': headerRef('RetryAfterSiClaveEnUso') },
          content: {
            'application/json': {
              schema: { anyOf: [schemaRef('BodegaConProductos'), schemaRef('Error')] },
              examples: {
                conProductos: {
                  value: {
                    error: ERROR_CODES.bodegaConProductos,
                    mensaje: 'La bodega 3 tiene 1 producto(s) asignado(s); use force=true para eliminarla de todos modos',
                    productos: [productoEjemplo],
                    bodegaId: '3',
                    totalProductos: 1,
                  },
                },
              },
            },
          },
        },
        ...errorResponses(400, 404, 412, 422, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
  },
  '/api/bodegas/{id}/productos': {
    parameters: [parameterRef('BodegaId')],
    get: {
      operationId: 'listarProductosDeBodega',
      summary: 'Lista los productos de una bodega',
      tags,
      responses: {
        '200': {
          description:
            'Los productos asignados a la bodega y los que tienen existencias en ella, en orden de id. ' +
            'Con existencias, cantidad son sus unidades en esta bodega; si no, su cantidadEnStock.',
          content: {
            'application/json': {
              schema: { type: 'array', items: schemaRef('ProductoDeBodega') },
              examples: { productos: { value: [{ id: 12, nombre: 'Tornillo M6', cantidad: 500, precio: 19.9 }] } },
            },
          },
        },
        ...errorResponses(400, 404, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
    post: asignarProductoABodega,
  },
} as const satisfies Record<string, PathItem>;
