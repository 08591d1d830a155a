import {
  parseRequestParams,
  type Request as GraphqlHttpRequest,
  type RequestParams,
  type Response as GraphqlHttpResponse,
} from 'graphql-http';

/** The message of a batched request (a JSON array of operations), which we do not support. */
export const BATCH_NOT_SUPPORTED =
  'No se admiten operaciones en lote (un array JSON): envíe una sola operación {query, variables, operationName} por petición';

/**
 * graphql-http's `parseRequestParams`, with the JSON body parsed here: the
 * router reads a POST body as text (bounded), so a batched array gets its own
 * clear message instead of a generic one. Everything else (method, media
 * type and charset checks, parameter types) is graphql-http's; a thrown Error
 * becomes a 400 whose text errors.ts translates.
 */
export async function parseGraphqlRequest<Raw, Context>(
  req: GraphqlHttpRequest<Raw, Context>,
): Promise<RequestParams | GraphqlHttpResponse> {
  if (req.method !== 'POST' || typeof req.body !== 'string' || req.body.trim() === '') {
    return parseRequestParams(req);
  }
  let body: unknown;
  try {
    body = JSON.parse(req.body);
  } catch {
    throw new Error('Unparsable JSON body');
  }
  if (Array.isArray(body)) throw new Error(BATCH_NOT_SUPPORTED);
  // graphql-http checks that the body is an object with well-typed parameters.
  return parseRequestParams({ ...req, body: body as Record<string, unknown> });
}
