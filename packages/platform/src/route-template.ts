import { IncomingMessage } from 'node:http';

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

interface RouteState {
  matched?: RoutableRequest['route'];
  template?: string;
}

interface TrackedRequest extends RoutableRequest {
  [TEMPLATE]?: RouteState;
}

/** No trailing slash (`/api/graphql` + `/`), except `/` for the root. */
function templateOf(baseUrl: string | undefined, path: unknown): string {
  const joined = `${baseUrl ?? ''}${typeof path === 'string' ? path : ''}`;
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined || '/';
}

function routeAccessor(state: (req: TrackedRequest) => RouteState | undefined): PropertyDescriptor {
  return {
    configurable: true,
    enumerable: true,
    get(this: TrackedRequest) {
      return state(this)?.matched;
    },
    set(this: TrackedRequest, value: RoutableRequest['route']) {
      let tracked = state(this);
      if (!tracked) {
        // Not tracked (a request that skipped the middleware): `route` is still an ordinary property for it.
        tracked = {};
        this[TEMPLATE] = tracked;
      }
      tracked.matched = value;
      if (value) tracked.template = templateOf(this.baseUrl, value.path);
    },
  };
}

/**
 * Express gives every request of an app that app's own request prototype: the accessor is put there once,
 * not defined on each request, which gave every request object a shape of its own and made every later
 * property read on it slow (issue 26's cached read). Node's own IncomingMessage.prototype is never touched
 * (a server without express, client responses): such a request gets the accessor on itself.
 */
const prototypesWithAccessor = new WeakSet<object>();
const sharedAccessor = routeAccessor((req) => req[TEMPLATE]);

/** Idempotent; must run before express routes the request (a middleware mounted first). */
export function trackRouteTemplate(req: RoutableRequest): void {
  const tracked = req as TrackedRequest;
  if (tracked[TEMPLATE]) return;
  const own = Object.getOwnPropertyDescriptor(req, 'route');
  const matched = own ? req.route : undefined;
  const state: RouteState = { matched };
  if (matched) state.template = templateOf(req.baseUrl, matched.path);
  tracked[TEMPLATE] = state;
  const prototype = Object.getPrototypeOf(req) as object | null;
  if (!own && prototype && prototype !== IncomingMessage.prototype) {
    if (!prototypesWithAccessor.has(prototype)) {
      const inherited = routeDescriptorOf(prototype);
      if (inherited && inherited.get === undefined) {
        Object.defineProperty(
          req,
          'route',
          routeAccessor(() => state),
        );
        return;
      }
      Object.defineProperty(prototype, 'route', sharedAccessor);
      prototypesWithAccessor.add(prototype);
    }
    return;
  }
  Object.defineProperty(
    req,
    'route',
    routeAccessor(() => state),
  );
}

/** `route` as the prototype chain from `prototype` defines it, if anywhere. */
function routeDescriptorOf(prototype: object): PropertyDescriptor | undefined {
  for (let at: object | null = prototype; at; at = Object.getPrototypeOf(at) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(at, 'route');
    if (descriptor) return descriptor;
  }
  return undefined;
}

/** The last route that matched; undefined when none did or `req` was not tracked. */
export function routeTemplate(req: RoutableRequest): string | undefined {
  return (req as TrackedRequest)[TEMPLATE]?.template;
}
