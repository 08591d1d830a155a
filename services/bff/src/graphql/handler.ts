import type { Logger } from '@inventario/platform';
import {
  createHandler,
  type Handler,
  type OperationArgs,
  type Request as GraphqlHttpRequest,
  type RequestParams,
} from 'graphql-http';
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
  const context = (req: GraphqlHttpRequest<Raw, GraphqlRequestContext>, params: RequestParams): GraphqlContext =>
    createGraphqlContext(
      deps.inventario,
      req.context.caller,
      executionLimits,
      exactVariablesOf(params),
      req.context.clientGone,
    );
  return createHandler<Raw, GraphqlRequestContext, GraphqlContext>({
    schema,
    parse: documents.parse,
    validate: documents.validate,
    validationRules: limitRules(deps.queryLimits),
    execute: createLimitedExecute(deps.logger),
    parseRequestParams: parseGraphqlRequest,
    // A query text already parsed and validated without errors goes straight to execution with the arguments
    // graphql-http would build (issue 23); anything else (first sight, a syntax or validation error) takes its path.
    onSubscribe: (req, params): OperationArgs<GraphqlContext> | undefined => {
      const document = documents.valid(params.query);
      if (!document) return undefined;
      return {
        schema,
        document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue: context(req, params),
      };
    },
    context,
    formatError: createErrorFormatter(deps.logger),
  });
}
