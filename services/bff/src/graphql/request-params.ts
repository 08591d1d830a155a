import { GraphQLError } from 'graphql';
import {
  parseRequestParams,
  type Request as GraphqlHttpRequest,
  type RequestParams,
  type Response as GraphqlHttpResponse,
} from 'graphql-http';
import { CLASSIFICATION, REQUEST_ERROR_TEXT } from './errors';

/** The message of a batched request (a JSON array of operations), which we do not support. */
export const BATCH_NOT_SUPPORTED =
  'No se admiten operaciones en lote (un array JSON): envíe una sola operación {query, variables, operationName} por petición';

/**
 * A malformed GraphQL request as a GraphQL error (classified BAD_REQUEST).
 * graphql-http answers a thrown plain Error with 400 whatever the client
 * accepts, but a GraphQLError like any other request error: 200 when the
 * response is `application/json`, 400 when it is
 * `application/graphql-response+json`. ARCHITECTURE §3 wants the former:
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

/**
 * graphql-http's `parseRequestParams`, with the JSON body parsed here: the
 * router reads a POST body as text (bounded), so a batched array gets its own
 * clear message instead of a generic one. Everything else (method, media
 * type and charset checks, parameter types) is graphql-http's; its protocol
 * answers (405, 415) stay as they are, while a malformed request becomes a
 * GraphQL error (see requestError).
 */
export async function parseGraphqlRequest<Raw, Context>(
  req: GraphqlHttpRequest<Raw, Context>,
): Promise<RequestParams | GraphqlHttpResponse> {
  if (req.method !== 'POST' || typeof req.body !== 'string' || req.body.trim() === '') {
    return parseOrRequestError(req);
  }
  let body: unknown;
  try {
    body = JSON.parse(req.body);
  } catch {
    throw requestError('Unparsable JSON body');
  }
  if (Array.isArray(body)) throw requestError(BATCH_NOT_SUPPORTED);
  // graphql-http checks that the body is an object with well-typed parameters.
  return parseOrRequestError({ ...req, body: body as Record<string, unknown> });
}
