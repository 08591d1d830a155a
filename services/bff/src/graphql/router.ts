import type { ServerResponse } from 'node:http';
import express from 'express';
import type { ResponseInit } from 'graphql-http';
import { callerOf } from '../http/auth';
import { bodyReadFailure, MAX_BODY_BYTES } from '../http/http-errors';
import { isPlainJsonBody, readPlainJsonBody } from '../http/plain-json-body';
import { GRAPHIQL_CSP, GRAPHIQL_DEFAULT_QUERY, graphiqlPage } from './graphiql';
import { graphiqlAssets, serveGraphiqlAssets } from './graphiql-assets';
import type { Disconnection } from './execution-limits';
import { createGraphqlHandler, type GraphqlHandlerDeps } from './handler';
import { GET_QUERY_LIMITS } from './limits';

/** The info body of docs/contract.md §4.1. */
export const EJEMPLO = {
  query:
    'query ProductoPorId($id: ID!) {\n  producto(id: $id) {\n    id\n    nombre\n    precio\n    cantidad\n    ' +
    'bodega { id nombre }\n  }\n}',
  variables: { id: '1' },
  operationName: 'ProductoPorId',
} as const;

export function infoBody(endpoint: string) {
  return {
    message:
      'Endpoint GraphQL de Inventario: envíe POST con un cuerpo JSON {query, variables, operationName}, ' +
      'o GET con ?query=... para consultas. Un navegador recibe aquí GraphiQL.',
    ejemplo: EJEMPLO,
    endpoint,
  };
}

/** graphql-http answers these without a body. */
const PROTOCOL_ERROR_TEXT: Readonly<Record<number, string>> = {
  405: 'Método no permitido: use GET (consultas) o POST',
  406: 'Ningún tipo de respuesta aceptable: acepte application/json o application/graphql-response+json',
  415: 'Tipo de contenido no admitido: envíe Content-Type: application/json (UTF-8)',
};

function send(res: ServerResponse, body: string | null, init: ResponseInit): void {
  // Answers are per user and per moment: never stored by a cache.
  const headers: Record<string, string> = { 'cache-control': 'no-store', ...init.headers };
  if (init.status === 405 && body !== null) {
    // graphql-http's own 405 body is English and has no content type.
    body = JSON.stringify({
      errors: [
        {
          message: 'Las mutaciones no se pueden enviar por GET: use POST',
          extensions: { classification: 'BAD_REQUEST' },
        },
      ],
    });
  } else if (body === null && init.status >= 400) {
    const message = PROTOCOL_ERROR_TEXT[init.status] ?? init.statusText;
    body = JSON.stringify({ errors: [{ message, extensions: { classification: 'BAD_REQUEST' } }] });
  }
  if (body !== null && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  // Declared, so the answer goes out in one write instead of chunked (writeHead sends the head before `end` knows
  // the body): a cached read is mostly this write (issue 23).
  if (body !== null) headers['content-length'] = String(Buffer.byteLength(body, 'utf8'));
  res.writeHead(init.status, headers).end(body ?? undefined);
}

/**
 * Aborted when the response closes before it finished. Not an AbortController: one with its listener costs a
 * cached read several microseconds, and the guard is its one listener (issue 23).
 */
function disconnectionOf(res: ServerResponse): Disconnection {
  let aborted = false;
  const listeners: (() => void)[] = [];
  res.once('close', () => {
    if (res.writableFinished) return;
    aborted = true;
    for (const listener of listeners.splice(0)) listener();
  });
  return {
    get aborted() {
      return aborted;
    },
    addEventListener: (_type, listener) => void listeners.push(listener),
  };
}

function hasQueryParameter(url: string): boolean {
  const search = url.indexOf('?');
  return search >= 0 && new URLSearchParams(url.slice(search + 1)).has('query');
}

export type GraphqlRouterDeps = GraphqlHandlerDeps;

/** docs/contract.md §4.1: a GET without `query` answers the info body, or GraphiQL to a browser. */
export function createGraphqlRouter(deps: GraphqlRouterDeps): express.Router {
  // Two handlers, each with its own document cache: a validation is only good for its own limits.
  const handlers = {
    POST: createGraphqlHandler<express.Request>(deps),
    GET: createGraphqlHandler<express.Request>({ ...deps, queryLimits: GET_QUERY_LIMITS }),
  };
  const readText = express.text({ type: 'application/json', limit: MAX_BODY_BYTES });
  const readBody: express.RequestHandler = (req, res, next) => {
    if (isPlainJsonBody(req)) readPlainJsonBody(req, next);
    else readText(req, res, (err?: unknown) => next(err ? bodyReadFailure(err) : undefined));
  };
  const assets = graphiqlAssets();
  const router = express.Router();

  const execute: express.RequestHandler = async (req, res, next) => {
    // A client that leaves stops the request's reads, as a limit would.
    const clientGone = disconnectionOf(res);
    try {
      const handle = req.method === 'GET' ? handlers.GET : handlers.POST;
      const [body, init] = await handle({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: typeof req.body === 'string' ? req.body : null,
        raw: req,
        context: { caller: callerOf(res), clientGone },
      });
      send(res, body, init);
    } catch (err) {
      next(err);
    }
  };

  router.get('/', (req, res, next) => {
    if (hasQueryParameter(req.url)) return void execute(req, res, next);
    const endpoint = req.baseUrl || '/';
    res.vary('Accept');
    res.set('cache-control', 'no-store');
    if (req.accepts(['application/json', 'text/html']) === 'text/html') {
      res.set('content-security-policy', GRAPHIQL_CSP);
      res.type('html').send(graphiqlPage(endpoint, GRAPHIQL_DEFAULT_QUERY, assets, `${req.baseUrl}/assets`));
    } else {
      res.json(infoBody(endpoint));
    }
  });
  router.use('/assets', serveGraphiqlAssets(assets));
  router.post('/', readBody, execute);
  // Any other method: graphql-http's 405 with `Allow: GET, POST`.
  router.all('/', execute);
  return router;
}
