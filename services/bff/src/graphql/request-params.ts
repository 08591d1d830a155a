import { GraphQLError } from 'graphql';
import { parseRequestParams, type Request as GraphqlHttpRequest, type RequestParams, type Response as GraphqlHttpResponse } from 'graphql-http';
import { parse as parseLossless } from 'lossless-json';
import { CLASSIFICATION, REQUEST_ERROR_TEXT } from './errors';
import type { ExactVariables } from './number-text';

/** The message of a batched request (a JSON array of operations), which we do not support. */
export const BATCH_NOT_SUPPORTED = 'No se admiten operaciones en lote (un array JSON): envíe una sola operación {query, variables, operationName} por petición';

/**
 * A malformed GraphQL request as a GraphQL error (classified BAD_REQUEST).
 * graphql-http answers a thrown plain Error with 400 whatever the client
 * accepts, but a GraphQLError like any other request error: 200 when the
 * response is `application/json`, 400 when it is
 * `application/graphql-response+json`. docs/contract.md §4.1 wants the former:
 * clients of the old service read every answer with `Accept:
 * application/json` as HTTP 200 and look at `errors`.
 */
function requestError(message: string): GraphQLError {
  return new GraphQLError(REQUEST_ERROR_TEXT[message] ?? message, { extensions: { classification: CLASSIFICATION.badRequest } });
}

async function parseOrRequestError(req: Parameters<typeof parseRequestParams>[0]): Promise<RequestParams | GraphqlHttpResponse> {
  try {
    return await parseRequestParams(req);
  } catch (err) {
    throw err instanceof Error ? requestError(err.message) : err;
  }
}

/** graphql-http's request parameters, plus the variables as the client wrote them (POST only). */
export interface ExactRequestParams extends RequestParams {
  exactVariables?: ExactVariables;
}

/** The exact variables of a request (see parseGraphqlRequest), or undefined when they were not read losslessly (GET). */
export function exactVariablesOf(params: RequestParams): ExactVariables | undefined {
  return (params as ExactRequestParams).exactVariables;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * graphql-http's `parseRequestParams`, with the JSON body parsed here: the
 * router reads a POST body as text (bounded), so a batched array gets its own
 * clear message instead of a generic one. The body is read twice: by
 * lossless-json, whose `variables` (every number as the text the client
 * wrote) go with the parameters as `exactVariables`, so a price is judged as
 * written (number-text.ts); and by JSON.parse, whose plain values are what
 * graphql-js coerces. lossless-json refuses a key given twice with different
 * values (as the REST bodies do), so the two readings always agree.
 * Everything else (method, media type and charset checks, parameter types)
 * is graphql-http's; its protocol answers (405, 415) stay as they are, while
 * a malformed request becomes a GraphQL error (see requestError).
 */
export async function parseGraphqlRequest<Raw, Context>(req: GraphqlHttpRequest<Raw, Context>): Promise<ExactRequestParams | GraphqlHttpResponse> {
  if (req.method !== 'POST' || typeof req.body !== 'string' || req.body.trim() === '') {
    return parseOrRequestError(req);
  }
  let exact: unknown;
  let body: unknown;
  try {
    exact = parseLossless(req.body);
    body = JSON.parse(req.body);
  } catch {
    throw requestError('Unparsable JSON body');
  }
  if (Array.isArray(body)) throw requestError(BATCH_NOT_SUPPORTED);
  // graphql-http checks that the body is an object with well-typed parameters.
  const params = await parseOrRequestError({ ...req, body: body as Record<string, unknown> });
  if (Array.isArray(params)) return params;
  const variables = isPlainObject(exact) && isPlainObject(exact.variables) ? exact.variables : {};
  return { ...params, exactVariables: variables };
}
