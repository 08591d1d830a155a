import type { Logger } from '@inventario/platform';
import { createHandler, type Handler } from 'graphql-http';
import type { ReservaClient } from '../downstream/reserva-client';
import type { Caller, InventarioApi } from '../inventario/model';
import { createGraphqlContext, type GraphqlContext } from './context';
import { createDocumentCache } from './document-cache';
import { createErrorFormatter } from './errors';
import {
  createLimitedExecute,
  DEFAULT_EXECUTION_LIMITS,
  limitExecution,
  type Disconnection,
  type ExecutionLimits,
} from './execution-limits';
import { limitRules, type QueryLimits } from './limits';
import { exactVariablesOf, parseGraphqlRequest } from './request-params';
import type { IdentidadClient } from '../downstream/identidad-client';
import { IDENTIDAD_TYPEDEFS } from './identidad';
import { createResolvers } from './resolvers';
import { createInventarioSchema } from './schema';

export interface GraphqlHandlerDeps {
  inventario: InventarioApi;
  /** bodega-svc's reservations (docs/contract.md §13). */
  reservas?: ReservaClient;
  logger: Logger;
  /** ENABLE_INIT: whether inicializarBaseDatos may load the sample data. */
  enableInit: boolean;
  executionLimits?: ExecutionLimits;
  /** The validation limits (QUERY_LIMITS; GET_QUERY_LIMITS for GET). */
  queryLimits?: QueryLimits;
  /** With identidad-svc: its queries and mutations join the schema. */
  identidad?: IdentidadClient;
}

export interface GraphqlRequestContext {
  caller: Caller;
  /** Aborted when the client disconnects before its answer. */
  clientGone?: Disconnection;
}

/** The GraphQL over HTTP core (graphql-http), independent of express. */
export function createGraphqlHandler<Raw>(deps: GraphqlHandlerDeps): Handler<Raw, GraphqlRequestContext> {
  const schema = limitExecution(
    createInventarioSchema(createResolvers(deps), deps.identidad ? [IDENTIDAD_TYPEDEFS] : []),
  );
  const documents = createDocumentCache();
  const executionLimits = deps.executionLimits ?? DEFAULT_EXECUTION_LIMITS;
  return createHandler<Raw, GraphqlRequestContext, GraphqlContext>({
    schema,
    parse: documents.parse,
    validate: documents.validate,
    validationRules: limitRules(deps.queryLimits),
    execute: createLimitedExecute(deps.logger),
    parseRequestParams: parseGraphqlRequest,
    context: (req, params) =>
      createGraphqlContext(
        deps.inventario,
        req.context.caller,
        executionLimits,
        exactVariablesOf(params),
        req.context.clientGone,
      ),
    formatError: createErrorFormatter(deps.logger),
  });
}
