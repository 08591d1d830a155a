import type { Caller, InventarioApi } from '../inventario/model';
import { createExecutionGuard, type ExecutionGuard, type ExecutionLimits } from './execution-limits';
import { createLoaders, type Loaders } from './loaders';

/**
 * What every resolver of one GraphQL request sees: who is calling (the
 * Basic-auth user, passed on to the services and into the events), the
 * request's own DataLoaders, and its guard (node cap and deadline).
 */
export type GraphqlContext = {
  caller: Caller;
  loaders: Loaders;
  guard: ExecutionGuard;
};

export function createGraphqlContext(inventario: InventarioApi, caller: Caller, limits: ExecutionLimits): GraphqlContext {
  const guard = createExecutionGuard(limits);
  return { caller, loaders: createLoaders(inventario, caller, guard), guard };
}
