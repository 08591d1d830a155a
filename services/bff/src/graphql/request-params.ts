import { GraphQLError } from 'graphql';
import {
  parseRequestParams,
  type Request as GraphqlHttpRequest,
  type RequestParams,
  type Response as GraphqlHttpResponse,
} from 'graphql-http';
import { CLASSIFICATION, REQUEST_ERROR_TEXT } from './errors';
import { parseExactJson, type ExactJson } from './exact-json';
import type { ExactVariables } from './number-text';

export const BATCH_NOT_SUPPORTED =
  'No se admiten operaciones en lote (un array JSON): envíe una sola operación {query, variables, ' +
  'operationName} por petición';

/**
 * A malformed request as a GraphQLError (BAD_REQUEST), which graphql-http answers with 200 under
 * `Accept: application/json` as docs/contract.md §4.1 wants; a plain Error would always be a 400.
 */
function requestError(message: string): GraphQLError {
  return new GraphQLError(REQUEST_ERROR_TEXT[message] ?? message, {
    extensions: { classification: CLASSIFICATION.badRequest },
  });
}

async function parseOrRequestError(
  req: Parameters<typeof parseRequestParams>[0],
): Promise<RequestParams | GraphqlHttpResponse> {
  try {
    return await parseRequestParams(req);
  } catch (err) {
    throw err instanceof Error ? requestError(err.message) : err;
  }
}

/** Plus the variables as the client wrote them (POST only). */
export interface ExactRequestParams extends RequestParams {
  exactVariables?: ExactVariables;
}

/** Undefined when they were not read losslessly (GET). */
export function exactVariablesOf(params: RequestParams): ExactVariables | undefined {
  return (params as ExactRequestParams).exactVariables;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * graphql-http's `parseRequestParams`, with the JSON body parsed here so a batched array gets its
 * own message. The body is read for what graphql-js coerces and losslessly for `exactVariables` (a
 * price is judged as written, number-text.ts); lossless-json refuses a key given twice with
 * different values, so the two readings agree (one reading serves as both when it can, exact-json.ts).
 */
export async function parseGraphqlRequest<Raw, Context>(
  req: GraphqlHttpRequest<Raw, Context>,
): Promise<ExactRequestParams | GraphqlHttpResponse> {
  if (req.method !== 'POST' || typeof req.body !== 'string' || req.body.trim() === '') {
    return parseOrRequestError(req);
  }
  let read: ExactJson;
  try {
    read = parseExactJson(req.body);
  } catch {
    throw requestError('Unparsable JSON body');
  }
  const { value: body, exact } = read;
  if (Array.isArray(body)) throw requestError(BATCH_NOT_SUPPORTED);
  const params = await parseOrRequestError({ ...req, body: body as Record<string, unknown> });
  if (Array.isArray(params)) return params;
  const variables = isPlainObject(exact) && isPlainObject(exact.variables) ? exact.variables : {};
  return { ...params, exactVariables: variables };
}
