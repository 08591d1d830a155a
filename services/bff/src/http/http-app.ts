import express from 'express';
import type { Logger } from '@inventario/platform';
import type { HealthChecker } from '../downstream/health-checker';
import { createGraphqlRouter } from '../graphql/router';
import type { InventarioApi } from '../inventario/model';
import { createApiDocsRouter } from '../openapi/router';
import { createBasicAuth, type Credentials } from './auth';
import { createBodegasRouter } from './bodegas-router';
import { createErrorMiddleware, notFoundHandler } from './error-middleware';
import { createHealthRouter } from './health-router';
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
  /** Proxy hops whose X-Forwarded-For names the client (Express `trust proxy`). */
  trustProxyHops: number;
  /** ENABLE_INIT, for GraphQL's inicializarBaseDatos. */
  enableInit: boolean;
  /** False once shutdown started: readiness DOWN, connections closed after each response. */
  accepting: () => boolean;
}

/** The public prefixes: `/api`, and `/api/v1` as its alias (ARCHITECTURE §2). */
export const API_PREFIXES = ['/api', '/api/v1'];

/**
 * The BFF's express app, in the order a request meets it: request log;
 * the public health probes; rate limit (before auth, so guessing passwords
 * is limited too); Basic auth; GraphQL (which reads its own body); the API
 * docs; the REST routers (JSON bodies only); a JSON 404; and the one error
 * middleware that maps every failure to HTTP.
 */
export function createHttpApp(deps: HttpAppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxyHops);
  // Routes are matched case-sensitively and /api/productos/ is /api/productos.
  app.set('case sensitive routing', true);

  app.use(createRequestLog(deps.logger));
  app.use((_req, res, next) => {
    // While shutting down, every answer closes its connection so keep-alive clients move on.
    if (!deps.accepting()) res.set('Connection', 'close');
    next();
  });
  app.use('/actuator/health', createHealthRouter({ health: deps.health, accepting: deps.accepting }));

  if (deps.rateLimitPerMinute > 0) app.use(createRateLimit(deps.rateLimitPerMinute, deps.logger));
  app.use(createBasicAuth(deps.credentials));

  const graphql = createGraphqlRouter({ inventario: deps.inventario, logger: deps.logger, enableInit: deps.enableInit });
  app.use(API_PREFIXES.map((prefix) => `${prefix}/graphql`), graphql);
  // One mount per prefix: with a list, `/api` would take /api/v1/... and the router would not match it.
  const docs = createApiDocsRouter();
  for (const prefix of API_PREFIXES) app.use(prefix, docs);
  app.use(API_PREFIXES.map((prefix) => `${prefix}/productos`), createProductosRouter(deps.inventario));
  app.use(API_PREFIXES.map((prefix) => `${prefix}/bodegas`), createBodegasRouter(deps.inventario));

  app.use(notFoundHandler);
  app.use(createErrorMiddleware(deps.logger));
  return app;
}
