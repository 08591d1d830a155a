import { API_ERRORS, BODY_ERRORS, DOWNSTREAM_ERRORS, errorResponses, headerRef, KEYED_ERRORS, parameterRef } from './components';
import { otroProductoEjemplo, productoEjemplo } from './examples';
import type { PathItem } from './openapi-types';
import { schemaRef } from './schemas';

/** The product routes of docs/contract.md §2.2. */

const tags = ['Productos'];

const productoResponse = (description: string, headers: Record<string, ReturnType<typeof headerRef>> = {}) => ({
  description,
  headers: { ETag: headerRef('ETag'), ...headers },
  content: { 'application/json': { schema: schemaRef('Producto'), examples: { producto: { value: productoEjemplo } } } },
});

export const productosPaths = {
  '/api/productos': {
    get: {
      operationId: 'listarProductos',
      summary: 'Lista los productos',
      description: 'En orden de id. Sin parámetros devuelve la lista completa; `limit` y `offset` paginan, `bodegaId` y `q` filtran.',
      tags,
      parameters: [parameterRef('Limit'), parameterRef('Offset'), parameterRef('BodegaIdFiltro'), parameterRef('Q')],
      responses: {
        '200': {
          description: 'Los productos.',
          content: {
            'application/json': {
              schema: { type: 'array', items: schemaRef('Producto') },
              examples: { productos: { value: [productoEjemplo, otroProductoEjemplo] } },
            },
          },
        },
        ...errorResponses(400, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
    post: {
      operationId: 'crearProducto',
      summary: 'Crea un producto',
      description:
        'Publica el evento ProductoCreado. Si trae `bodegaId`, la bodega debe existir (si no, 400). ' +
        'Con Idempotency-Key, repetirla es seguro: nunca crea un segundo producto.',
      tags,
      parameters: [parameterRef('IdempotencyKey')],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: schemaRef('ProductoCreate'),
            examples: {
              producto: {
                value: {
                  nombre: 'Tornillo M6',
                  descripcion: 'Tornillo de acero inoxidable, caja de 100',
                  precio: 19.9,
                  cantidadEnStock: 500,
                  bodegaId: 3,
                },
              },
            },
          },
        },
      },
      responses: {
        '201': productoResponse('El producto creado (versión 1).', {
          Location: headerRef('Location'),
          'Idempotent-Replayed': headerRef('IdempotentReplayed'),
        }),
        ...errorResponses(...BODY_ERRORS, ...KEYED_ERRORS, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
  },
  '/api/productos/{id}': {
    parameters: [parameterRef('ProductoId')],
    get: {
      operationId: 'obtenerProducto',
      summary: 'Obtiene un producto',
      tags,
      parameters: [parameterRef('IfNoneMatch')],
      responses: {
        '200': productoResponse('El producto; su ETag es su versión.'),
        '304': { description: 'If-None-Match nombra la versión actual; sin cuerpo.', headers: { ETag: headerRef('ETag') } },
        ...errorResponses(400, 404, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
    put: {
      operationId: 'actualizarProducto',
      summary: 'Actualiza un producto (parcialmente)',
      description:
        'Solo cambian los campos presentes. Publica el evento ProductoActualizado. ' +
        'Con If-Match solo se aplica sobre esa versión (si no, 412); admite Idempotency-Key.',
      tags,
      parameters: [parameterRef('IfMatch'), parameterRef('IdempotencyKey')],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: schemaRef('ProductoUpdate'),
            examples: { precio: { summary: 'Cambiar solo el precio', value: { precio: 21.5 } } },
          },
        },
      },
      responses: {
        '200': productoResponse('El producto actualizado; la ETag es la nueva versión.', { 'Idempotent-Replayed': headerRef('IdempotentReplayed') }),
        ...errorResponses(...BODY_ERRORS, 404, 412, ...KEYED_ERRORS, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
    delete: {
      operationId: 'eliminarProducto',
      summary: 'Elimina un producto',
      description: 'Publica el evento ProductoEliminado. Admite If-Match e Idempotency-Key.',
      tags,
      parameters: [parameterRef('IfMatch'), parameterRef('IdempotencyKey')],
      responses: {
        '204': { description: 'Eliminado; sin cuerpo.', headers: { 'Idempotent-Replayed': headerRef('IdempotentReplayed') } },
        ...errorResponses(400, 404, 412, ...KEYED_ERRORS, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
  },
} as const satisfies Record<string, PathItem>;
