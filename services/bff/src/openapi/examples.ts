/**
 * Sample values for the document's examples, in Spanish like the data the
 * service holds. The unit test validates every example against its schema,
 * so they cannot drift from the schemas either.
 */

const creado = { fechaCreacion: '2026-11-22T14:03:07', fechaActualizacion: '2026-11-22T14:03:07' };

export const productoEjemplo = {
  id: 12,
  nombre: 'Tornillo M6',
  descripcion: 'Tornillo de acero inoxidable, caja de 100',
  precio: 19.9,
  cantidadEnStock: 500,
  bodegaId: 3,
  ...creado,
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
  ocupacion: 540,
  fechaCreacion: '2026-11-20T08:00:00',
  fechaActualizacion: '2026-11-20T08:00:00',
  version: 1,
};

export const existenciaEjemplo = {
  bodegaId: 3,
  productoId: 12,
  cantidad: 40,
  umbralMinimo: 5,
  version: 3,
  fechaCreacion: '2026-11-25T10:00:00',
  fechaActualizacion: '2026-11-25T10:05:00',
};

export const movimientoEjemplo = {
  id: 31,
  operacionId: 9,
  bodegaId: 3,
  productoId: 12,
  tipo: 'SALIDA',
  motivo: 'VENTA',
  cantidad: -3,
  cantidadAnterior: 43,
  cantidadPosterior: 40,
  version: 3,
  usuario: 'admin',
  comentario: null,
  fecha: '2026-11-25T10:05:00',
};

const operacion = { usuario: 'admin', revierteA: null, revertidaPor: null };
export const operacionEjemplo = { id: 9, tipo: 'SALIDA', ...operacion, comentario: null, fecha: '2026-11-25T10:05:00', movimientos: [movimientoEjemplo] };

const reposicion = { operacionId: 10, tipo: 'TRANSFERENCIA', motivo: 'TRANSFERENCIA', comentario: 'Reposición de la tienda', fecha: '2026-11-25T11:00:00' };
export const transferenciaEjemplo = {
  id: 10,
  tipo: 'TRANSFERENCIA',
  ...operacion,
  comentario: 'Reposición de la tienda',
  fecha: '2026-11-25T11:00:00',
  movimientos: [
    { ...movimientoEjemplo, ...reposicion, id: 32, cantidad: -5, cantidadAnterior: 40, cantidadPosterior: 35, version: 4 },
    { ...movimientoEjemplo, ...reposicion, id: 33, bodegaId: 4, cantidad: 5, cantidadAnterior: 0, cantidadPosterior: 5, version: 1 },
  ],
};
