import type { Logger } from '@inventario/platform';
import { createHandler, type Handler } from 'graphql-http';
import type { Caller, InventarioApi } from '../inventario/model';
import { createGraphqlContext, type GraphqlContext } from './context';
import { createDocumentCache } from './document-cache';
import { createErrorFormatter } from './errors';
import { createLimitedExecute, DEFAULT_EXECUTION_LIMITS, limitExecution, type ExecutionLimits } from './execution-limits';
import { limitRules } from './limits';
import { exactVariablesOf, parseGraphqlRequest } from './request-params';
import { createResolvers } from './resolvers';
import { createInventarioSchema } from './schema';

export interface GraphqlHandlerDeps {
  inventario: InventarioApi;
  logger: Logger;
  /** ENABLE_INIT: whether inicializarBaseDatos may load the sample data. */
  enableInit: boolean;
  executionLimits?: ExecutionLimits;
}

export interface GraphqlRequestContext {
  caller: Caller;
}

/** The GraphQL over HTTP core (graphql-http), independent of express. */
export function createGraphqlHandler<Raw>(deps: GraphqlHandlerDeps): Handler<Raw, GraphqlRequestContext> {
  const schema = limitExecution(createInventarioSchema(createResolvers(deps)));
  const documents = createDocumentCache();
  const executionLimits = deps.executionLimits ?? DEFAULT_EXECUTION_LIMITS;
  return createHandler<Raw, GraphqlRequestContext, GraphqlContext>({
    schema,
    parse: documents.parse,
    validate: documents.validate,
    validationRules: limitRules(),
    execute: createLimitedExecute(deps.logger),
    parseRequestParams: parseGraphqlRequest,
    context: (req, params) => createGraphqlContext(deps.inventario, req.context.caller, executionLimits, exactVariablesOf(params)),
    formatError: createErrorFormatter(deps.logger),
  });
}
