import { API_ERRORS, BODY_ERRORS, DOWNSTREAM_ERRORS, errorResponses, headerRef, parameterRef } from './components';
import { otroProductoEjemplo, productoEjemplo } from './examples';
import type { PathItem } from './openapi-types';
import { schemaRef } from './schemas';

/** The product routes of ARCHITECTURE §2. */

const tags = ['Productos'];

const productoResponse = (description: string) => ({
  description,
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
      description: 'Publica el evento ProductoCreado. Si trae `bodegaId`, la bodega debe existir (si no, 400).',
      tags,
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
        '201': { ...productoResponse('El producto creado.'), headers: { Location: headerRef('Location') } },
        ...errorResponses(...BODY_ERRORS, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
  },
  '/api/productos/{id}': {
    parameters: [parameterRef('ProductoId')],
    get: {
      operationId: 'obtenerProducto',
      summary: 'Obtiene un producto',
      tags,
      responses: {
        '200': productoResponse('El producto.'),
        ...errorResponses(400, 404, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
    put: {
      operationId: 'actualizarProducto',
      summary: 'Actualiza un producto (parcialmente)',
      description: 'Solo cambian los campos presentes. Publica el evento ProductoActualizado.',
      tags,
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
        '200': productoResponse('El producto actualizado.'),
        ...errorResponses(...BODY_ERRORS, 404, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
    delete: {
      operationId: 'eliminarProducto',
      summary: 'Elimina un producto',
      description: 'Publica el evento ProductoEliminado.',
      tags,
      responses: {
        '204': { description: 'Eliminado; sin cuerpo.' },
        ...errorResponses(400, 404, ...API_ERRORS, ...DOWNSTREAM_ERRORS),
      },
    },
  },
} as const satisfies Record<string, PathItem>;
