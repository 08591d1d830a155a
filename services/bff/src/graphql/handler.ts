import type { Logger } from '@inventario/platform';
import type { ExecutionResult } from 'graphql';
import { createHandler, type Handler, type RequestHeaders, type Response } from 'graphql-http';
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

/** graphql-http's answer type for the Accept headers clients send most (its choice: the first acceptable one). */
export const ANSWER_TYPE_BY_ACCEPT: ReadonlyMap<string | undefined, string> = new Map([
  [undefined, 'application/json; charset=utf-8'],
  ['*/*', 'application/json; charset=utf-8'],
  ['application/json', 'application/json; charset=utf-8'],
  ['application/graphql-response+json', 'application/graphql-response+json; charset=utf-8'],
  ['application/graphql-response+json, application/json', 'application/graphql-response+json; charset=utf-8'],
]);

function acceptOf(headers: RequestHeaders): string | undefined {
  if (typeof headers.get === 'function') return headers.get('accept') ?? undefined;
  const accept = (headers as Record<string, unknown>).accept;
  return typeof accept === 'string' ? accept : undefined;
}

/**
 * A result without errors answered as graphql-http's makeResponse would, but stringified without its replacer,
 * which only rewrites Error values and cost a cached read ~1.5 % (issue 23): an executed result's data holds none.
 * Undefined (graphql-http answers) for anything else.
 */
export function answerWithoutErrors(headers: RequestHeaders, result: ExecutionResult): Response | undefined {
  if (result.errors !== undefined || result.extensions !== undefined || Symbol.asyncIterator in result) return;
  const contentType = ANSWER_TYPE_BY_ACCEPT.get(acceptOf(headers));
  if (contentType === undefined) return;
  return [JSON.stringify(result), { status: 200, statusText: 'OK', headers: { 'content-type': contentType } }];
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
    onOperation: (req, _args, result) => answerWithoutErrors(req.headers, result),
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
