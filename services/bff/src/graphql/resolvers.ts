import { formatLocalUtc } from '@inventario/platform';
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import type { ReservaClient } from '../downstream/reserva-client';
import type { IdentidadClient } from '../downstream/identidad-client';
import type { InventarioApi } from '../inventario/model';
import { createIdentidadResolvers } from './identidad';
import type { FieldResolver } from './context';
import { createMutationResolvers } from './mutation-resolvers';
import { createReservaMutationResolvers, createReservaQueryResolvers } from './reserva-resolvers';
import {
  bodegaResolvers,
  createQueryResolvers,
  existenciaResolvers,
  movimientoResolvers,
  productoResolvers,
} from './query-resolvers';

export type Resolvers = Record<string, Record<string, FieldResolver> | GraphQLScalarType>;

export interface ResolverDeps {
  inventario: InventarioApi;
  enableInit: boolean;
  /** bodega-svc's reservations (docs/contract.md §13); absent: their fields fail (tests of other parts). */
  reservas?: ReservaClient;
  /** With identidad-svc: the identity queries and mutations (graphql/identidad.ts). */
  identidad?: IdentidadClient;
}

const LOCAL_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

function parseDateTime(value: unknown): string {
  if (typeof value === 'string' && LOCAL_UTC.test(value) && !Number.isNaN(Date.parse(`${value}Z`))) return value;
  throw new GraphQLError('DateTime debe tener la forma YYYY-MM-DDTHH:mm:ss (UTC, sin zona)');
}

/** REST's timestamp text (UTC, no zone). Output only here; the input side accepts the same form. */
export const dateTimeScalar = new GraphQLScalarType<string, string>({
  name: 'DateTime',
  serialize: (value) => (value instanceof Date ? formatLocalUtc(value) : parseDateTime(value)),
  parseValue: parseDateTime,
  parseLiteral(node: ValueNode): string {
    if (node.kind !== Kind.STRING) throw new GraphQLError('DateTime debe ser un texto', { nodes: node });
    return parseDateTime(node.value);
  },
});

/** InventarioApi only, never gRPC: REST and GraphQL share one set of use cases. */
export function createResolvers({ inventario, enableInit, identidad, reservas }: ResolverDeps): Resolvers {
  const deIdentidad = identidad ? createIdentidadResolvers(identidad) : undefined;
  return {
    DateTime: dateTimeScalar,
    Query: { ...createQueryResolvers(inventario), ...createReservaQueryResolvers(reservas), ...deIdentidad?.Query },
    Mutation: {
      ...createMutationResolvers({ inventario, enableInit }),
      ...createReservaMutationResolvers(reservas),
      ...deIdentidad?.Mutation,
    },
    Producto: productoResolvers,
    Bodega: bodegaResolvers,
    Existencia: existenciaResolvers,
    Movimiento: movimientoResolvers,
  };
}
