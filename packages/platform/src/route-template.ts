import type { IncomingMessage } from 'node:http';

/**
 * The one owner of a request's route template (`/api/productos/:id`), which
 * the HTTP metrics (route label) and the HTTP SERVER span (name and
 * `http.route`) both report. Express sets `req.route` when it matches a
 * route, while `req.baseUrl` still names the router's mount path; it resets
 * `baseUrl` to '' once an error leaves the router for the error middleware,
 * so reading both when the response ends names a 404 of `/api/productos/999`
 * `/:id`. The template is therefore taken at match time, by an accessor on
 * `req.route`. Kept structural: platform does not depend on express.
 */

/** What express adds to a request once a route matched it. */
export interface RoutableRequest extends IncomingMessage {
  baseUrl?: string;
  route?: { path?: unknown };
}

const TEMPLATE = Symbol('inventario.routeTemplate');

interface TrackedRequest extends RoutableRequest {
  /** Present once tracked; the template once a route matched. */
  [TEMPLATE]?: { template?: string };
}

/** `/api/productos` + `/:id`, without a trailing slash (`/api/graphql` + `/`); `/` for the root. */
function templateOf(baseUrl: string | undefined, path: unknown): string {
  const joined = `${baseUrl ?? ''}${typeof path === 'string' ? path : ''}`;
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined || '/';
}

/**
 * Starts recording the template of the route express matches for `req`.
 * Idempotent: every middleware that reads the template calls it, and the
 * accessor is installed once per request. Call it before express routes the
 * request (from a middleware mounted first).
 */
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

/** The template of the route that matched `req` (the last one, when several did); undefined when none did or it was not tracked. */
export function routeTemplate(req: RoutableRequest): string | undefined {
  return (req as TrackedRequest)[TEMPLATE]?.template;
}
