import express from 'express';
import { httpMetricsMiddleware, httpServerTracing, type HttpMetrics, type Logger } from '@inventario/platform';
import type { HealthChecker } from '../downstream/health-checker';
import type { ExecutionLimits } from '../graphql/execution-limits';
import { createGraphqlRouter } from '../graphql/router';
import type { InventarioApi } from '../inventario/model';
import { openApiDocument } from '../openapi/document';
import { createApiDocsRouter } from '../openapi/router';
import { createBasicAuth, type Credentials } from './auth';
import { createAuthFailureLimit } from './auth-failure-limit';
import { createBodegasRouter } from './bodegas-router';
import { declaredBodyLimit } from './declared-body-limit';
import { createErrorMiddleware, notFoundHandler } from './error-middleware';
import { createExistenciasRouter } from './existencias-router';
import { createHealthRouter } from './health-router';
import { createJsonArraySender, DEFAULT_WRITE_TIMEOUT_MS } from './json-array-stream';
import { createOptionsHandler } from './options-handler';
import { createProductosRouter } from './productos-router';
import { createRateLimit } from './rate-limit';
import { createRequestLog } from './request-log';

export interface HttpAppDeps {
  inventario: InventarioApi;
  health: HealthChecker;
  logger: Logger;
  credentials: Credentials;
  /** Requests per minute and client IP; 0 = no limit. */
  rateLimitPerMinute: number;
  /** Failed authentications per client IP in 15 minutes before it gets 429; 0 or absent = no limit. */
  authFailuresPer15Min?: number;
  /** Proxy hops whose X-Forwarded-For names the client (Express `trust proxy`). */
  trustProxyHops: number;
  /** ENABLE_INIT, for GraphQL's inicializarBaseDatos. */
  enableInit: boolean;
  /** Node cap and deadline of each GraphQL request; default the GraphQL handler's. */
  graphqlLimits?: ExecutionLimits;
  /** False once shutdown started: readiness DOWN, connections closed after each response. */
  accepting: () => boolean;
  /** HTTP RED metrics by route template (served on METRICS_PORT, never here). */
  httpMetrics: HttpMetrics;
  /** How long a streamed list waits for a client to take a write before cutting it off (HTTP_WRITE_TIMEOUT_MS); default 30 s. */
  writeTimeoutMs?: number;
}

/** The public prefixes: `/api`, and `/api/v1` as its alias (docs/contract.md §2.1). */
export const API_PREFIXES = ['/api', '/api/v1'];

/**
 * The BFF's express app, in the order a request meets it: its trace span;
 * metrics; request log; a declared body over 1 MiB refused (413) on any
 * route; the public health probes; rate limit (before auth, so guessing
 * passwords is limited too); Basic auth with its failed-authentication
 * limit; OPTIONS answered from the route table; GraphQL (which reads its own
 * body); the API docs; the REST routers (JSON bodies only); a JSON 404; and
 * the one error middleware that maps every failure to HTTP.
 */
export function createHttpApp(deps: HttpAppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxyHops);
  // Routes are matched case-sensitively and /api/productos/ is /api/productos.
  app.set('case sensitive routing', true);

  // First: the request's span is active for everything after it, logs included; probes are not traced.
  app.use(httpServerTracing({ untraced: (path) => path.startsWith('/actuator/health') }));
  app.use(httpMetricsMiddleware(deps.httpMetrics));
  app.use(createRequestLog(deps.logger));
  app.use((_req, res, next) => {
    // While shutting down, every answer closes its connection so keep-alive clients move on.
    if (!deps.accepting()) res.set('Connection', 'close');
    next();
  });
  app.use(declaredBodyLimit);
  const options = createOptionsHandler(openApiDocument);
  app.use('/actuator/health', options, createHealthRouter({ health: deps.health, accepting: deps.accepting }));

  if (deps.rateLimitPerMinute > 0) app.use(createRateLimit(deps.rateLimitPerMinute, deps.logger));
  const failures = deps.authFailuresPer15Min ? createAuthFailureLimit(deps.authFailuresPer15Min) : undefined;
  app.use(createBasicAuth(deps.credentials, failures));
  app.use(options);

  const graphql = createGraphqlRouter({
    inventario: deps.inventario,
    logger: deps.logger,
    enableInit: deps.enableInit,
    executionLimits: deps.graphqlLimits,
  });
  app.use(
    API_PREFIXES.map((prefix) => `${prefix}/graphql`),
    graphql,
  );
  // One mount per prefix: with a list, `/api` would take /api/v1/... and the router would not match it.
  const docs = createApiDocsRouter();
  for (const prefix of API_PREFIXES) app.use(prefix, docs);
  const sendJsonArray = createJsonArraySender({ writeTimeoutMs: deps.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS, logger: deps.logger });
  app.use(
    API_PREFIXES.map((prefix) => `${prefix}/productos`),
    createProductosRouter(deps.inventario, sendJsonArray),
  );
  app.use(
    API_PREFIXES.map((prefix) => `${prefix}/bodegas`),
    createBodegasRouter(deps.inventario, sendJsonArray),
  );
  // Its routes span /bodegas, /productos and its own paths (docs/contract.md §10.2): mounted on each prefix, like the docs.
  const existencias = createExistenciasRouter(deps.inventario, sendJsonArray);
  for (const prefix of API_PREFIXES) app.use(prefix, existencias);

  app.use(notFoundHandler);
  app.use(createErrorMiddleware(deps.logger));
  return app;
}
