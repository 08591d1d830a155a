import type { Logger } from '@inventario/platform';
import { createHandler, type Handler } from 'graphql-http';
import type { Caller, InventarioApi } from '../inventario/model';
import { createGraphqlContext, type GraphqlContext } from './context';
import { createDocumentCache } from './document-cache';
import { createErrorFormatter } from './errors';
import { limitRules } from './limits';
import { parseGraphqlRequest } from './request-params';
import { createResolvers } from './resolvers';
import { createInventarioSchema } from './schema';

export interface GraphqlHandlerDeps {
  inventario: InventarioApi;
  logger: Logger;
  /** ENABLE_INIT: whether inicializarBaseDatos may load the sample data. */
  enableInit: boolean;
}

/** What the transport hands the handler with each request: the authenticated caller. */
export interface GraphqlRequestContext {
  caller: Caller;
}

/**
 * The GraphQL over HTTP core (graphql-http), independent of express: the
 * schema and its resolvers, parse/validate once per distinct query text,
 * depth/cost/alias limits as validation rules, one error formatter, and a
 * fresh context (caller + DataLoaders) per request.
 */
export function createGraphqlHandler<Raw>(deps: GraphqlHandlerDeps): Handler<Raw, GraphqlRequestContext> {
  const schema = createInventarioSchema(createResolvers(deps));
  const documents = createDocumentCache();
  return createHandler<Raw, GraphqlRequestContext, GraphqlContext>({
    schema,
    parse: documents.parse,
    validate: documents.validate,
    validationRules: limitRules(),
    parseRequestParams: parseGraphqlRequest,
    context: (req) => createGraphqlContext(deps.inventario, req.context.caller),
    formatError: createErrorFormatter(deps.logger),
  });
}
