import type { ServerResponse } from 'node:http';
import { context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';
import { routeTemplate, trackRouteTemplate, type RoutableRequest } from './route-template';
import { extractTraceContext, startSpan } from './tracing-context';

/**
 * Express middleware (first in the chain): the request's SERVER span,
 * child of the client's `traceparent` when it sent one, active for
 * everything that handles the request. Named `POST /api/productos/:id`
 * once a route matched (the template, never the raw URL, taken when express
 * matched it: see route-template.ts), else `POST`.
 * The request and response emitters are bound to the span's context, so
 * their listeners (a body read, the request log's `close`) run inside it
 * whatever emits the event, e.g. the socket of a client that went away.
 * Paths for which `untraced` answers true (health probes) get no span.
 */
export function httpServerTracing(options: { untraced?: (path: string) => boolean } = {}) {
  return (req: RoutableRequest, res: ServerResponse, next: () => void): void => {
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    if (options.untraced?.(path)) {
      next();
      return;
    }
    const method = req.method ?? 'GET';
    const parent = extractTraceContext((name) => {
      const value = req.headers[name];
      return typeof value === 'string' ? value : undefined;
    });
    const { span, ctx } = startSpan(method, {
      kind: SpanKind.SERVER,
      parent,
      attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_PATH]: path },
    });
    context.bind(ctx, req);
    context.bind(ctx, res);
    // Tracing off or not sampled: nothing to name or end, though the context still passes on.
    if (!span.isRecording()) {
      context.with(ctx, next);
      return;
    }
    trackRouteTemplate(req);
    res.once('close', () => {
      const route = routeTemplate(req);
      if (route !== undefined) {
        span.updateName(`${method} ${route}`);
        span.setAttribute(ATTR_HTTP_ROUTE, route);
      }
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(ctx, next);
  };
}
