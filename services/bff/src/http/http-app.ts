import express from 'express';
import { httpMetricsMiddleware, httpServerTracing, type HttpMetrics, type Logger } from '@inventario/platform';
import type { HealthChecker } from '../downstream/health-checker';
import type { ExecutionLimits } from '../graphql/execution-limits';
import { createGraphqlRouter } from '../graphql/router';
import type { InventarioApi } from '../inventario/model';
import { openApiDocument } from '../openapi/document';
import { createApiDocsRouter } from '../openapi/router';
import { createIdentityAuth, type IdentityAuthDeps } from '../auth/identity-auth';
import { createBasicAuth, type Credentials } from './auth';
import { createAuthFailureLimit } from './auth-failure-limit';
import { createBodegasRouter } from './bodegas-router';
import { declaredBodyLimit } from './declared-body-limit';
import { createErrorMiddleware, notFoundHandler } from './error-middleware';
import { createExistenciasRouter } from './existencias-router';
import { createHealthRouter } from './health-router';
import { createIdentidadRouter } from './identidad-router';
import { createJsonArraySender, DEFAULT_WRITE_TIMEOUT_MS } from './json-array-stream';
import { createOptionsHandler } from './options-handler';
import { createProductosRouter } from './productos-router';
import { createRateLimit } from './rate-limit';
import { createRequestLog } from './request-log';
import type { ReservaClient } from '../downstream/reserva-client';
import { createReservasRouter } from './reservas-router';

export interface HttpAppDeps {
  inventario: InventarioApi;
  health: HealthChecker;
  logger: Logger;
  /** The one shared Basic credential, when the BFF runs without identidad-svc. */
  credentials?: Credentials;
  /** Authentication through identidad-svc (issue 26); takes the place of `credentials`. */
  identidad?: Omit<IdentityAuthDeps, 'failures'>;
  /** 0 = no limit. */
  rateLimitPerMinute: number;
  /** 0 or absent = no limit. */
  authFailuresPer15Min?: number;
  trustProxyHops: number;
  enableInit: boolean;
  graphqlLimits?: ExecutionLimits;
  /** False once shutdown started: readiness DOWN, connections closed after each response. */
  accepting: () => boolean;
  /** Served on METRICS_PORT, never here. */
  httpMetrics: HttpMetrics;
  writeTimeoutMs?: number;
  /** bodega-svc's reservations (docs/contract.md §13); absent: no /reservas routes (tests of other parts). */
  reservas?: ReservaClient;
}

/** `/api/v1` is an alias of `/api` (docs/contract.md §2.1). */
export const API_PREFIXES = ['/api', '/api/v1'];

/**
 * Middlewares of every path that only ever call `next()` or `next(err)`, run in order as one express layer: each
 * layer costs a walk of the router (path parsing, matching, prefix trimming) on every request, which a cached read
 * notices (issue 26). An error, passed or thrown, skips the rest, as separate layers would.
 */
function inSeries(...handlers: express.RequestHandler[]): express.RequestHandler {
  return (req, res, next) => {
    let at = 0;
    const step = (err?: unknown): void => {
      const handler = handlers[at++];
      if (err !== undefined || handler === undefined) next(err);
      else handler(req, res, step);
    };
    step();
  };
}

/** The order a request meets these is docs/contract.md §3.4's. */
export function createHttpApp(deps: HttpAppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxyHops);
  app.set('case sensitive routing', true);

  // First: the request's span is active for everything after it, logs included; probes are not traced.
  app.use(
    inSeries(
      httpServerTracing({ untraced: (path) => path.startsWith('/actuator/health') }),
      httpMetricsMiddleware(deps.httpMetrics),
      createRequestLog(deps.logger),
      (_req, res, next) => {
        // Keep-alive clients move on while shutting down.
        if (!deps.accepting()) res.set('Connection', 'close');
        next();
      },
      declaredBodyLimit,
    ),
  );
  const options = createOptionsHandler(openApiDocument);
  app.use('/actuator/health', options, createHealthRouter({ health: deps.health, accepting: deps.accepting }));

  if (deps.rateLimitPerMinute > 0) app.use(createRateLimit(deps.rateLimitPerMinute, deps.logger));
  const failures = deps.authFailuresPer15Min ? createAuthFailureLimit(deps.authFailuresPer15Min) : undefined;
  if (deps.identidad) app.use(createIdentityAuth({ ...deps.identidad, failures }));
  else if (deps.credentials) app.use(createBasicAuth(deps.credentials, failures));
  else throw new Error('createHttpApp: neither identidad-svc nor a shared credential to authenticate with');
  app.use(options);

  const graphql = createGraphqlRouter({
    inventario: deps.inventario,
    reservas: deps.reservas,
    logger: deps.logger,
    enableInit: deps.enableInit,
    executionLimits: deps.graphqlLimits,
    identidad: deps.identidad?.identidad,
  });
  app.use(
    API_PREFIXES.map((prefix) => `${prefix}/graphql`),
    graphql,
  );
  // One mount per prefix: with a list, `/api` would take /api/v1/... and the router would not match it.
  const docs = createApiDocsRouter();
  for (const prefix of API_PREFIXES) app.use(prefix, docs);
  const sendJsonArray = createJsonArraySender({
    writeTimeoutMs: deps.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS,
    logger: deps.logger,
  });
  app.use(
    API_PREFIXES.map((prefix) => `${prefix}/productos`),
    createProductosRouter(deps.inventario, sendJsonArray),
  );
  app.use(
    API_PREFIXES.map((prefix) => `${prefix}/bodegas`),
    createBodegasRouter(deps.inventario, sendJsonArray),
  );
  // Its routes span /bodegas, /productos and its own paths (docs/contract.md §10.2): mounted on each prefix, like the
  // docs.
  const existencias = createExistenciasRouter(deps.inventario, sendJsonArray);
  for (const prefix of API_PREFIXES) app.use(prefix, existencias);
  // Users, tokens and the audit trail (docs/contract.md §12.8): identidad-svc's, only when the BFF authenticates
  // through it.
  if (deps.identidad) {
    const identidad = createIdentidadRouter(deps.identidad.identidad);
    for (const prefix of API_PREFIXES) app.use(prefix, identidad);
  }

  if (deps.reservas) {
    app.use(
      API_PREFIXES.map((prefix) => `${prefix}/reservas`),
      createReservasRouter(deps.reservas),
    );
  }

  app.use(notFoundHandler);
  app.use(createErrorMiddleware(deps.logger));
  return app;
}
