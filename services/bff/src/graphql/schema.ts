import { reservasTypeDefs } from './reservas-schema';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import type { Resolvers } from './resolvers';
import { SDL } from './schema-descriptions';

/**
 * docs/contract.md §4.2 exactly, plus the additive fields and the ledger of §10.3: changes are
 * additive only. `tipo` and `motivo` are Strings, not enums: a bad value is then a mutation's
 * `success: false` like any bad input, and a value added later breaks no client.
 */
export const typeDefs = /* GraphQL */ `
  """
  Fecha y hora UTC en la forma YYYY-MM-DDTHH:mm:ss (ISO 8601 sin zona), la misma de la API REST.
  """
  scalar DateTime

  type Producto {
    id: ID!
    nombre: String!
    descripcion: String
    precio: Float!
    "${SDL.productoCantidad}"
    cantidad: Int!
    fechaCreacion: DateTime
    fechaActualizacion: DateTime
    "Adición: id de la bodega que guarda el producto, o null."
    bodegaId: ID
    "Adición: la bodega que guarda el producto, o null."
    bodega: Bodega
    "${SDL.productoVersion}"
    version: Int!
    "${SDL.productoExistencias}"
    existencias(first: Int, after: String): [Existencia!]!
  }

  type Bodega {
    id: ID!
    nombre: String!
    "Texto vacío cuando la bodega no tiene ubicación."
    ubicacion: String!
    capacidad: Int!
    fechaCreacion: DateTime
    fechaActualizacion: DateTime
    "Adición: los productos asignados a la bodega."
    productos(first: Int, after: String): [Producto!]!
    "Adición: 1 al crearse, +1 en cada actualización."
    version: Int!
    "Adición: unidades que guarda en total, la suma de sus existencias; nunca supera capacidad."
    ocupacion: Int!
    "Adición: sus existencias, en orden de id de producto; after es el cursor del último producto recibido."
    existencias(first: Int, after: String): [Existencia!]!
  }

  """
  Adición: las unidades de un producto en una bodega (un nivel de stock). Su version es la de su último movimiento:
  pásela a asignarProductoABodega, retirarProductoDeBodega o registrarMovimiento para que solo se apliquen sobre ella.
  """
  type Existencia {
    bodegaId: ID!
    productoId: ID!
    "Unidades, nunca negativas."
    cantidad: Int!
    "Umbral de stock bajo: con cantidad igual o inferior se avisa (StockBajo); null, sin aviso."
    umbralMinimo: Int
    version: Int!
    fechaCreacion: DateTime
    fechaActualizacion: DateTime
    "Unidades retenidas por reservas activas y no vencidas (0 <= reservada <= cantidad)."
    reservada: Int!
    "cantidad - reservada: lo que una salida sin reserva puede sacar."
    disponible: Int!
    "Adición: lo que vigila umbralMinimo: CANTIDAD (por defecto) o DISPONIBLE (cantidad - reservada)."
    alertaSobre: String!
    "La bodega, o null si ya no existe."
    bodega: Bodega
    "El producto, o null si ya no existe."
    producto: Producto
  }

  """
  Adición: una línea del libro de movimientos, que nunca se modifica ni se borra. tipo: ENTRADA, SALIDA,
  TRANSFERENCIA o AJUSTE. motivo: ASIGNACION, RECEPCION, DEVOLUCION, VENTA, MERMA, CONTEO, RETIRO, TRANSFERENCIA,
  REVERSO, PRODUCTO_ELIMINADO o BODEGA_ELIMINADA.
  """
  type Movimiento {
    id: ID!
    operacionId: ID!
    "La bodega de la línea; 0: las unidades sin ubicar del producto, que no están en ninguna bodega."
    bodegaId: ID!
    productoId: ID!
    tipo: String!
    motivo: String!
    "Con signo: lo que la línea sumó a la existencia."
    cantidad: Int!
    cantidadAnterior: Int!
    cantidadPosterior: Int!
    "La versión de la existencia tras esta línea."
    version: Int!
    "El usuario de la petición (autenticación Basic), o system."
    usuario: String!
    comentario: String
    fecha: DateTime!
    "La bodega, o null si ya no existe (las líneas quedan)."
    bodega: Bodega
    "El producto, o null si ya no existe (las líneas quedan)."
    producto: Producto
  }

  """
  Adición: una orden y las líneas que escribió, todas o ninguna. tipo: ASIGNACION, RETIRO, ENTRADA, SALIDA, AJUSTE,
  TRANSFERENCIA, REVERSO, PRODUCTO_ELIMINADO o BODEGA_ELIMINADA.
  """
  type Operacion {
    id: ID!
    tipo: String!
    usuario: String!
    comentario: String
    fecha: DateTime!
    "En un reverso, la operación que revierte."
    revierteA: ID
    "En una operación revertida, su reverso."
    revertidaPor: ID
    "Todas sus líneas."
    movimientos: [Movimiento!]!
  }

  "Adición: una página del libro de movimientos, de la más reciente a la más antigua."
  type MovimientosPagina {
    movimientos: [Movimiento!]!
    "Pásela como after, con el mismo filtro, para la página siguiente; null en la última."
    siguienteCursor: String
  }

  "Adición: filtros de movimientos; los ausentes no filtran."
  input MovimientoFiltro {
    bodegaId: ID
    productoId: ID
    "ENTRADA, SALIDA, TRANSFERENCIA o AJUSTE."
    tipo: String
    "Líneas en este instante o después."
    desde: DateTime
    "Líneas anteriores a este instante."
    hasta: DateTime
  }

  input ProductoInput {
    nombre: String!
    descripcion: String
    precio: Float!
    cantidad: Int!
    "Adición: la bodega que guardará el producto (debe existir)."
    bodegaId: ID
  }

  "Solo id es obligatorio; los campos ausentes conservan su valor y null borra descripcion o bodegaId."
  input ProductoUpdateInput {
    id: ID!
    nombre: String
    descripcion: String
    precio: Float
    cantidad: Int
    "Adición: null quita el producto de su bodega."
    bodegaId: ID
    "Adición: si se indica, la actualización solo se aplica si el producto sigue en esta versión."
    version: Int
  }

  input BodegaInput {
    nombre: String!
    ubicacion: String!
    capacidad: Int = 1000
  }

  "Solo id es obligatorio; los campos ausentes conservan su valor y null borra ubicacion."
  input BodegaUpdateInput {
    id: ID!
    nombre: String
    ubicacion: String
    capacidad: Int
    "Adición: si se indica, la actualización solo se aplica si la bodega sigue en esta versión."
    version: Int
  }

  """
  Adición: un movimiento en una bodega. ENTRADA y SALIDA mueven cantidad unidades (al menos 1); AJUSTE fija la cantidad
  contada (un conteo) y exige la version de la existencia contada. tipo: ENTRADA, SALIDA o AJUSTE (una transferencia es
  ${SDL.movimientoInputMotivo}
  SALIDA: VENTA, MERMA; AJUSTE: CONTEO, MERMA.
  """
  input MovimientoInput {
    bodegaId: ID!
    productoId: ID!
    tipo: String!
    cantidad: Int!
    motivo: String
    "Como mucho 500 caracteres."
    comentario: String
  }

  "Adición: unidades de un producto que pasan de una bodega a otra distinta, en una sola operación."
  input TransferenciaInput {
    productoId: ID!
    origenId: ID!
    destinoId: ID!
    "Al menos 1."
    cantidad: Int!
    "Como mucho 500 caracteres."
    comentario: String
  }

  "Resultado de una mutación de producto: si falla, success es false, error explica el motivo y producto es null."
  type ProductoResponse {
    success: Boolean
    message: String
    error: String
    producto: Producto
  }

  "Resultado de una mutación de bodega: si falla, success es false, error explica el motivo y bodega es null."
  type BodegaResponse {
    success: Boolean
    message: String
    error: String
    bodega: Bodega
  }

  type DeleteResponse {
    success: Boolean
    message: String
    error: String
  }

  """
  ${SDL.stockResponse}
  cuando lo hay (STOCK_INSUFICIENTE, CAPACIDAD_EXCEDIDA, PRODUCTO_ELIMINADO, OPERACION_YA_REVERTIDA,
  OPERACION_NO_REVERSIBLE, PRECONDITION_FAILED, PRECONDITION_REQUIRED, IDEMPOTENCY_KEY_REUSED...).
  """
  type ExistenciaResponse {
    success: Boolean
    message: String
    error: String
    "La existencia tras la asignación; null si falla."
    existencia: Existencia
  }

  "Adición: resultado de retirarProductoDeBodega (véase ExistenciaResponse)."
  type RetiroResponse {
    success: Boolean
    message: String
    error: String
    "Unidades dadas de baja (0 si no tenía existencias); null si falla."
    cantidadRetirada: Int
  }

  "Adición: resultado de un movimiento, una transferencia o un reverso (véase ExistenciaResponse)."
  type OperacionResponse {
    success: Boolean
    message: String
    error: String
    "La operación escrita, con sus líneas; null si falla."
    operacion: Operacion
  }

  type Query {
    """
    Adición, first y after (también en bodegas y en Bodega.productos): las listas van en orden de id; sin first
    ni after, completas. first (0..1000): como mucho tantos elementos. after: solo los posteriores al cursor,
    que es el id del último elemento recibido en base64url (el id "20" es "MjA").
    """
    productos(first: Int, after: String): [Producto!]!
    "null si no existe un producto con ese id."
    producto(id: ID!): Producto
    bodegas(first: Int, after: String): [Bodega!]!
    "null si no existe una bodega con ese id."
    bodega(id: ID!): Bodega
    health: String!
    """
    ${SDL.queryMovimientos}
    por página. after: el siguienteCursor de la página anterior, con el mismo filtro.
    """
    movimientos(filtro: MovimientoFiltro, first: Int, after: String): MovimientosPagina!
    "Adición: una operación con sus líneas; null si no existe."
    operacion(id: ID!): Operacion
    "Adición: las unidades de un producto en una bodega; null si la bodega no tiene existencias de él."
    existencia(bodegaId: ID!, productoId: ID!): Existencia
  }

  "${SDL.mutationIdempotencyKey}"
  type Mutation {
    crearProducto(input: ProductoInput!, idempotencyKey: String): ProductoResponse!
    actualizarProducto(input: ProductoUpdateInput!, idempotencyKey: String): ProductoResponse!
    eliminarProducto(id: ID!, version: Int, idempotencyKey: String): DeleteResponse!
    crearBodega(input: BodegaInput!, idempotencyKey: String): BodegaResponse!
    actualizarBodega(input: BodegaUpdateInput!, idempotencyKey: String): BodegaResponse!
    "Se niega (success false) si la bodega tiene productos asignados."
    eliminarBodega(id: ID!, version: Int, idempotencyKey: String): DeleteResponse!
    "Adición: carga los datos de ejemplo que falten y devuelve un texto de estado; requiere ENABLE_INIT=true."
    inicializarBaseDatos: String!
    """
    ${SDL.asignarExistencia}
    el nuevo umbral de stock bajo; null lo quita; si se omite, se conserva. version: la de la existencia.
    """
    asignarProductoABodega(
      bodegaId: ID!
      productoId: ID!
      cantidad: Int!
      umbralMinimo: Int
      version: Int
      idempotencyKey: String
    ): ExistenciaResponse!
    """
    Adición: da de baja las unidades del producto en la bodega (motivo RETIRO), quita su existencia y, si el producto
    ${SDL.retirarExistencia}
    """
    retirarProductoDeBodega(bodegaId: ID!, productoId: ID!, version: Int, idempotencyKey: String): RetiroResponse!
    """
    ${SDL.cambiarUmbral}
    ${SDL.cambiarUmbralSinMovimiento}
    el nuevo umbral, o null para quitarlo. version: la de la existencia.
    alertaSobre (adición): lo que vigila el umbral desde ahora (CANTIDAD o DISPONIBLE; otro valor es
    success: false); ausente, no cambia.
    """
    cambiarUmbralMinimo(
      bodegaId: ID!
      productoId: ID!
      umbralMinimo: Int
      alertaSobre: String
      version: Int
      idempotencyKey: String
    ): ExistenciaResponse!
    "Adición: una ENTRADA, una SALIDA o un AJUSTE; version, la de la existencia, es obligatoria en un AJUSTE."
    registrarMovimiento(input: MovimientoInput!, version: Int, idempotencyKey: String): OperacionResponse!
    "Adición: una transferencia entre dos bodegas: dos líneas en una operación, ambas o ninguna."
    transferirStock(input: TransferenciaInput!, idempotencyKey: String): OperacionResponse!
    "Adición: revierte una operación, una sola vez, con líneas opuestas a las suyas (motivo REVERSO)."
    revertirOperacion(id: ID!, comentario: String, idempotencyKey: String): OperacionResponse!
  }
`;

/** A resolver naming a type or field the SDL does not declare throws at start-up, so a typo cannot go unnoticed. */
export function createInventarioSchema(resolvers: Resolvers, extraTypeDefs: readonly string[] = []): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: [typeDefs, reservasTypeDefs, ...extraTypeDefs],
    resolvers,
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
}
