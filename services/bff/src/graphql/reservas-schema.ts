import { SDL } from './schema-descriptions';

/**
 * The reservations' mirror of docs/contract.md §13.2 (REST), an addition to the schema (§4.2): the same calls, in
 * GraphQL's forms.
 */
export const reservasTypeDefs = /* GraphQL */ `
  "${SDL.estadoReserva}"
  enum EstadoReserva {
    ACTIVA
    CONSUMIDA
    LIBERADA
    EXPIRADA
    DESCUBIERTA
  }

  "Adición: una línea de una reserva, un nivel (bodega, producto)."
  type LineaReserva {
    id: ID!
    bodegaId: ID!
    productoId: ID!
    cantidad: Int!
    consumida: Int!
    "Unidades que aún retiene; 0 cuando la reserva ya no está ACTIVA."
    retenida: Int!
  }

  "Adición: unidades retenidas para un pedido hasta expiraEn (POST /api/reservas)."
  type Reserva {
    id: ID!
    referencia: String!
    estado: EstadoReserva!
    "UTC, al segundo (nunca posterior al instante exacto)."
    expiraEn: DateTime!
    lineas: [LineaReserva!]!
    version: Int!
    usuario: String!
    comentario: String
    fechaCreacion: DateTime
    fechaActualizacion: DateTime
  }

  "Adición: una página de reservas, las más recientes primero."
  type ReservasPagina {
    reservas: [Reserva!]!
    siguienteCursor: String
  }

  input LineaReservaInput {
    bodegaId: ID!
    productoId: ID!
    cantidad: Int!
  }

  input ReservaInput {
    referencia: String!
    ttlSegundos: Int
    lineas: [LineaReservaInput!]!
    comentario: String
  }

  input LineaConsumoInput {
    lineaId: ID!
    cantidad: Int!
  }

  input ConsumoInput {
    lineas: [LineaConsumoInput!]
    liberarResto: Boolean
    comentario: String
  }

  input ReservaFiltro {
    referencia: String
    estado: EstadoReserva
    bodegaId: ID
    productoId: ID
  }

  """
  ${SDL.reservaResponse}
  (STOCK_INSUFICIENTE, RESERVA_ACTIVA_EXISTENTE, RESERVA_EXPIRADA, RESERVA_LIBERADA, ...).
  """
  type ReservaResponse {
    success: Boolean
    message: String
    error: String
    "La reserva tras la mutación; null si falla."
    reserva: Reserva
    "consumirReserva: la operación SALIDA escrita; null si no se sacó nada o si falla."
    operacionId: ID
  }

  extend type Query {
    "Adición: una reserva; null si no existe."
    reserva(id: ID!): Reserva
    "${SDL.queryReservas}"
    reservas(filtro: ReservaFiltro, first: Int, after: String): ReservasPagina!
  }

  extend type Mutation {
    "Adición: retiene unidades de cada línea, todas o ninguna (POST /api/reservas)."
    crearReserva(input: ReservaInput!, idempotencyKey: String): ReservaResponse!
    "${SDL.consumirReserva}"
    consumirReserva(id: ID!, input: ConsumoInput, version: Int, idempotencyKey: String): ReservaResponse!
    "Adición: libera una reserva, una sola vez (POST /api/reservas/{id}/liberacion)."
    liberarReserva(id: ID!, version: Int, idempotencyKey: String): ReservaResponse!
    "Adición: extiende una reserva activa (PATCH /api/reservas/{id}); version es obligatoria."
    extenderReserva(id: ID!, expiraEn: DateTime!, version: Int, idempotencyKey: String): ReservaResponse!
  }
`;
