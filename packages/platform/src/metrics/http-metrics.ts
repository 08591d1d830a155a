import type { ServerResponse } from 'node:http';
import { Counter, Histogram, type Registry } from 'prom-client';
import { routeTemplate, trackRouteTemplate, type RoutableRequest } from '../route-template';

type HttpLabels = 'method' | 'route' | 'status_code';

export interface HttpMetrics {
  requests: Counter<HttpLabels>;
  duration: Histogram<HttpLabels>;
}

const UNMATCHED_ROUTE = 'unmatched';

export function createHttpMetrics(registry: Registry): HttpMetrics {
  const labelNames = ['method', 'route', 'status_code'] as const;
  return {
    requests: new Counter({
      name: 'http_server_requests_total',
      help:
        'HTTP requests, by method, route template and status code (499: the client went away before the ' +
        'response was finished).',
      labelNames,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'http_server_request_duration_seconds',
      help:
        'Time from receiving an HTTP request to finishing its response (or to the client going away), by ' +
        'method, route template and status code.',
      labelNames,
      registers: [registry],
    }),
  };
}

/** nginx's "client closed request". */
const CLIENT_CLOSED_STATUS = '499';

/**
 * Mount first. Labelled by route template, never the raw URL (a series per
 * record). A client that went away counts as 499, so a slow endpoint whose
 * callers give up still shows in the rate and the latency.
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
