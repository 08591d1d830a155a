import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Histogram, type Registry } from 'prom-client';

type HttpLabels = 'method' | 'route' | 'status_code';

export interface HttpMetrics {
  requests: Counter<HttpLabels>;
  duration: Histogram<HttpLabels>;
}

/** The route label of a request that no route handled (404s, auth refusals, static files). */
export const UNMATCHED_ROUTE = 'unmatched';

export function createHttpMetrics(registry: Registry): HttpMetrics {
  const labelNames = ['method', 'route', 'status_code'] as const;
  return {
    requests: new Counter({
      name: 'http_server_requests_total',
      help: 'HTTP requests answered, by method, route template and status code.',
      labelNames,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'http_server_request_duration_seconds',
      help: 'Time from receiving an HTTP request to finishing its response, by method, route template and status code.',
      labelNames,
      registers: [registry],
    }),
  };
}

/** What the middleware reads of an express request (kept structural: platform does not depend on express). */
interface RouteAwareRequest extends IncomingMessage {
  method?: string;
  baseUrl: string;
  route?: { path?: unknown };
}

/** `/api/productos` + `/:id`, without a trailing slash (`/api/graphql` + `/`). */
function template(baseUrl: string, path: unknown): string {
  const joined = `${baseUrl}${typeof path === 'string' ? path : ''}`;
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined || '/';
}

/**
 * Express middleware (mount first) recording RED metrics by route template
 * (`/api/productos/:id`), never the raw URL, whose ids would make a series per
 * record. The template is taken when express matches a route: express sets
 * `req.route` while `req.baseUrl` still names the router's mount path, and
 * resets `baseUrl` once an error leaves the router for the error middleware.
 * A request no route handled is `unmatched`. A response the client abandoned
 * before it finished is not counted: it has no status the client saw.
 */
export function httpMetricsMiddleware(metrics: HttpMetrics) {
  return (req: RouteAwareRequest, res: ServerResponse, next: () => void): void => {
    const started = process.hrtime.bigint();
    let route = UNMATCHED_ROUTE;
    let matched: RouteAwareRequest['route'];
    Object.defineProperty(req, 'route', {
      configurable: true,
      enumerable: true,
      get: () => matched,
      set(value: RouteAwareRequest['route']) {
        matched = value;
        if (value) route = template(req.baseUrl, value.path);
      },
    });
    res.once('finish', () => {
      const labels = { method: req.method ?? 'UNKNOWN', route, status_code: String(res.statusCode) };
      metrics.requests.inc(labels);
      metrics.duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
