import type { InventarioApi } from '../inventario/model';
import type { Resolvers } from './bind-resolvers';
import { dateTimeScalar } from './date-time';
import { createMutationResolvers } from './mutation-resolvers';
import { bodegaResolvers, createQueryResolvers, existenciaResolvers, movimientoResolvers, productoResolvers } from './query-resolvers';

export interface ResolverDeps {
  inventario: InventarioApi;
  enableInit: boolean;
}

/** Every resolver of the schema. They call InventarioApi only, never gRPC: REST and GraphQL share one set of use cases. */
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
