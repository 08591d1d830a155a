import type { Caller, InventarioApi } from '../inventario/model';
import { createLoaders, type Loaders } from './loaders';

/**
 * What every resolver of one GraphQL request sees: who is calling (the
 * Basic-auth user, passed on to the services and into the events) and the
 * request's own DataLoaders.
 */
export type GraphqlContext = {
  caller: Caller;
  loaders: Loaders;
};

export function createGraphqlContext(inventario: InventarioApi, caller: Caller): GraphqlContext {
  return { caller, loaders: createLoaders(inventario, caller) };
}
