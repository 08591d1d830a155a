/**
 * Sample values for the document's examples, in Spanish like the data the
 * service holds. The unit test validates every example against its schema,
 * so they cannot drift from the schemas either.
 */

export const productoEjemplo = {
  id: 12,
  nombre: 'Tornillo M6',
  descripcion: 'Tornillo de acero inoxidable, caja de 100',
  precio: 19.9,
  cantidadEnStock: 500,
  bodegaId: 3,
  fechaCreacion: '2026-11-22T14:03:07',
  fechaActualizacion: '2026-11-22T14:03:07',
  version: 1,
};

export const otroProductoEjemplo = {
  id: 13,
  nombre: 'Martillo de carpintero',
  descripcion: null,
  precio: 12.5,
  cantidadEnStock: 40,
  bodegaId: 3,
  fechaCreacion: '2026-11-22T14:05:41',
  fechaActualizacion: '2026-11-23T09:12:00',
  version: 4,
};

export const bodegaEjemplo = {
  id: 3,
  nombre: 'Bodega Central',
  ubicacion: 'Calle Mayor 10, Madrid',
  capacidad: 1000,
  fechaCreacion: '2026-11-20T08:00:00',
  fechaActualizacion: '2026-11-20T08:00:00',
  version: 1,
};
