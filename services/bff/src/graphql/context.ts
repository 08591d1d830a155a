import type { GraphQLFieldResolver } from 'graphql';
import type { Caller, InventarioApi } from '../inventario/model';
import {
  createExecutionGuard,
  type Disconnection,
  type ExecutionGuard,
  type ExecutionLimits,
} from './execution-limits';
import { createLoaders, type Loaders } from './loaders';
import type { ExactVariables } from './number-text';

/** What every resolver of one request sees; `caller` goes on to the services and into the events. */
export type GraphqlContext = {
  caller: Caller;
  loaders: Loaders;
  guard: ExecutionGuard;
  exactVariables: ExactVariables | undefined;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type FieldResolver = GraphQLFieldResolver<any, GraphqlContext, any>;

/** `clientGone`: aborted when the HTTP client disconnects, which stops the request's reads. */
export function createGraphqlContext(
  inventario: InventarioApi,
  caller: Caller,
  limits: ExecutionLimits,
  exactVariables?: ExactVariables,
  clientGone?: Disconnection,
): GraphqlContext {
  const guard = createExecutionGuard(limits, Date.now, clientGone);
  return { caller, loaders: createLoaders(inventario, caller, guard), guard, exactVariables };
}
