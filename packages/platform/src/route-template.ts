import type { IncomingMessage } from 'node:http';

/**
 * The route template (`/api/productos/:id`) for HTTP metrics and spans is
 * taken at match time: express resets `req.baseUrl` once an error leaves the
 * router, so read at the end a 404 of `/api/productos/999` would be `/:id`.
 * Structural types: platform does not depend on express.
 */
export interface RoutableRequest extends IncomingMessage {
  baseUrl?: string;
  route?: { path?: unknown };
}

const TEMPLATE = Symbol('inventario.routeTemplate');

interface TrackedRequest extends RoutableRequest {
  [TEMPLATE]?: { template?: string };
}

/** No trailing slash (`/api/graphql` + `/`), except `/` for the root. */
function templateOf(baseUrl: string | undefined, path: unknown): string {
  const joined = `${baseUrl ?? ''}${typeof path === 'string' ? path : ''}`;
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined || '/';
}

/** Idempotent; must run before express routes the request (a middleware mounted first). */
export function trackRouteTemplate(req: RoutableRequest): void {
  const tracked = req as TrackedRequest;
  if (tracked[TEMPLATE]) return;
  const state: { template?: string } = {};
  tracked[TEMPLATE] = state;
  let matched = req.route;
  if (matched) state.template = templateOf(req.baseUrl, matched.path);
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => matched,
    set(value: RoutableRequest['route']) {
      matched = value;
      if (value) state.template = templateOf(req.baseUrl, value.path);
    },
  });
}

/** The last route that matched; undefined when none did or `req` was not tracked. */
export function routeTemplate(req: RoutableRequest): string | undefined {
  return (req as TrackedRequest)[TEMPLATE]?.template;
}
