import type { ServerResponse } from 'node:http';
import { context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import { routeTemplate, trackRouteTemplate, type RoutableRequest } from './route-template';
import { extractTraceContext, startSpan } from './tracing-context';

/**
 * First in the chain. Spans are named by route template, never the raw URL.
 * req and res are bound to the span's context, so their listeners run inside
 * it whatever emits the event (e.g. the socket of a client that went away).
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
