import type { RequestHandler } from 'express';
import type { OpenAPIObject } from 'openapi3-ts/oas31';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface AllowedRoute {
  pattern: RegExp;
  allow: string;
}

/** `/api/productos/{id}` -> /^\/api\/productos\/[^/]+$/ */
function patternOf(template: string): RegExp {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `^${template
      .split(/\{[^}]+\}/)
      .map(literal)
      .join('[^/]+')}$`,
  );
}

/** `/api/v1/x` -> `/api/x` (the alias of docs/contract.md §2.1); a trailing slash is not significant. */
function normalize(path: string): string {
  const bare = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return bare === '/api/v1' || bare.startsWith('/api/v1/') ? `/api${bare.slice('/api/v1'.length)}` : bare;
}

/**
 * OPTIONS from the OpenAPI document, which the contract tests keep equal to the routes; Express
 * would answer in text/plain, naming whatever methods its routers hold.
 */
export function createOptionsHandler(document: OpenAPIObject): RequestHandler {
  const routes: AllowedRoute[] = Object.entries(document.paths ?? {}).map(([template, item]) => {
    const methods = METHODS.filter((method) => item[method] !== undefined).map((method) => method.toUpperCase());
    if (methods.includes('GET')) methods.push('HEAD');
    return { pattern: patternOf(normalize(template)), allow: [...methods, 'OPTIONS'].join(', ') };
  });
  return (req, res, next) => {
    if (req.method !== 'OPTIONS') {
      next();
      return;
    }
    const path = normalize(req.originalUrl.split('?', 1)[0] ?? '');
    const route = routes.find(({ pattern }) => pattern.test(path));
    if (!route) {
      next();
      return;
    }
    res.set('Allow', route.allow).status(204).end();
  };
}
