import type { ServerResponse } from 'node:http';
import { Counter, Histogram, type Registry } from 'prom-client';
import { routeTemplate, trackRouteTemplate, type RoutableRequest } from '../route-template';

type HttpLabels = 'method' | 'route' | 'status_code';

export interface HttpMetrics {
  requests: Counter<HttpLabels>;
  duration: Histogram<HttpLabels>;
}

/** The route label of a request that no route handled (404s, auth refusals, static files). */
const UNMATCHED_ROUTE = 'unmatched';

export function createHttpMetrics(registry: Registry): HttpMetrics {
  const labelNames = ['method', 'route', 'status_code'] as const;
  return {
    requests: new Counter({
      name: 'http_server_requests_total',
      help: 'HTTP requests, by method, route template and status code (499: the client went away before the response was finished).',
      labelNames,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'http_server_request_duration_seconds',
      help: 'Time from receiving an HTTP request to finishing its response (or to the client going away), by method, route template and status code.',
      labelNames,
      registers: [registry],
    }),
  };
}

/** The status_code label of a response the client abandoned before it was finished (nginx's "client closed request"). */
const CLIENT_CLOSED_STATUS = '499';

/**
 * Express middleware (mount first) recording RED metrics by route template
 * (`/api/productos/:id`), never the raw URL, whose ids would make a series per
 * record. The template is the one express matched, taken at match time
 * (route-template.ts), so a 404 the error middleware answers still counts
 * under it. A request no route handled is `unmatched`. Counted when the
 * response closes: by its status once it was finished, or as `499` when the
 * client went away before that (its duration then runs to the abandonment),
 * so a slow endpoint whose callers give up still shows in the rate and the
 * latency.
 */
export function httpMetricsMiddleware(metrics: HttpMetrics) {
  return (req: RoutableRequest, res: ServerResponse, next: () => void): void => {
    const started = process.hrtime.bigint();
    trackRouteTemplate(req);
    res.once('close', () => {
      const labels = {
        method: req.method ?? 'UNKNOWN',
        route: routeTemplate(req) ?? UNMATCHED_ROUTE,
        status_code: res.writableFinished ? String(res.statusCode) : CLIENT_CLOSED_STATUS,
      };
      metrics.requests.inc(labels);
      metrics.duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
