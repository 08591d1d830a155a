import { formatLocalUtc } from '@inventario/platform';
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import type { InventarioApi } from '../inventario/model';
import type { FieldResolver } from './context';
import { createMutationResolvers } from './mutation-resolvers';
import { bodegaResolvers, createQueryResolvers, existenciaResolvers, movimientoResolvers, productoResolvers } from './query-resolvers';

export type Resolvers = Record<string, Record<string, FieldResolver> | GraphQLScalarType>;

export interface ResolverDeps {
  inventario: InventarioApi;
  enableInit: boolean;
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
export function createResolvers({ inventario, enableInit }: ResolverDeps): Resolvers {
  return {
    DateTime: dateTimeScalar,
    Query: createQueryResolvers(inventario),
    Mutation: createMutationResolvers({ inventario, enableInit }),
    Producto: productoResolvers,
    Bodega: bodegaResolvers,
    Existencia: existenciaResolvers,
    Movimiento: movimientoResolvers,
  };
}
