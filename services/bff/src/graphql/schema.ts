import { buildSchema, type GraphQLSchema } from 'graphql';
import { bindResolvers, type Resolvers } from './bind-resolvers';

/**
 * The public GraphQL contract: the spec's typed schema exactly (ids are `ID`
 * strings, `cantidad` is the stock, `precio: Float!`), plus the additive
 * fields of ARCHITECTURE §3 (marked "Adición" below). Changes here are
 * additive only: clients of the old service query this schema unchanged.
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
    "Unidades en stock (cantidadEnStock en la API REST)."
    cantidad: Int!
    fechaCreacion: DateTime
    fechaActualizacion: DateTime
    "Adición: id de la bodega que guarda el producto, o null."
    bodegaId: ID
    "Adición: la bodega que guarda el producto, o null."
    bodega: Bodega
    "Adición: 1 al crearse, +1 en cada escritura; pásela como version a una mutación para que solo se aplique sobre esta versión."
    version: Int!
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
  }

  "Adición en todas las mutaciones de escritura: idempotencyKey (1 a 255 caracteres ASCII visibles) hace segura la repetición: la misma clave con la misma petición devuelve el resultado guardado de la primera sin volver a ejecutarla; con otra petición, success false. version (eliminaciones) solo aplica la escritura sobre esa versión."
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
  }
`;

/** The executable schema: `typeDefs` with `resolvers` bound to its fields. */
export function createInventarioSchema(resolvers: Resolvers): GraphQLSchema {
  return bindResolvers(buildSchema(typeDefs), resolvers);
}
