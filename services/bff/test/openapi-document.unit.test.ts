/**
 * The OpenAPI document on its own: valid OpenAPI 3.1, internally consistent
 * (examples match their schemas, the house rules hold for every operation),
 * and a validator that really rejects what does not match, so the contract
 * tests cannot pass by accepting everything.
 */
import type { ReservaClient } from '../src/downstream/reserva-client';
import { createHttpMetrics, createLogger } from '@inventario/platform';
import { Registry } from 'prom-client';
import { createAuthMetrics } from '../src/auth/identity-auth';
import { createCredentialCache } from '../src/auth/credential-cache';
import type { IdentidadClient } from '../src/downstream/identidad-client';
import { createHttpApp, type HttpAppDeps } from '../src/http/http-app';
import { IDENTIDAD_ROUTES } from '../src/openapi/identidad-routes';
import type { InventarioApi } from '../src/inventario/model';
import { openApiDocument } from '../src/openapi/document';
import type { OpenAPIObject as OpenApiDocument } from 'openapi3-ts/oas31';
import {
  createOpenApiValidator,
  operationKey,
  validateOpenApiDocument,
  type ObservedResponse,
} from './support/openapi-validator';

const producto = {
  id: 7,
  nombre: 'Taladro percutor',
  descripcion: null,
  precio: 89.99,
  cantidadEnStock: 3,
  bodegaId: null,
  fechaCreacion: '2026-01-05T10:00:00',
  fechaActualizacion: '2026-01-05T10:00:00',
  version: 1,
};

/** JSON, with the ETag a product response carries (other responses ignore it: undocumented headers pass). */
const json = { 'content-type': 'application/json; charset=utf-8', etag: '"1"' };

function response(overrides: Partial<ObservedResponse>): ObservedResponse {
  const body = overrides.body === undefined && !('body' in overrides) ? producto : overrides.body;
  return {
    method: 'GET',
    path: '/api/productos/7',
    status: 200,
    headers: json,
    body,
    text: body === undefined ? '' : JSON.stringify(body),
    ...overrides,
  };
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 according to the official schema', async () => {
    const result = await validateOpenApiDocument(openApiDocument);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('is reported invalid by the schema check when it is broken (the check can fail)', async () => {
    const { info: _info, ...withoutInfo } = openApiDocument;
    expect((await validateOpenApiDocument(withoutInfo)).valid).toBe(false);
    const badRef = structuredClone(openApiDocument) as {
      paths: Record<string, { get?: { responses: Record<string, unknown> } }>;
    };
    badRef.paths['/api/productos']!.get!.responses['200'] = { $ref: '#/components/responses/NoExiste' };
    expect((await validateOpenApiDocument(badRef)).valid).toBe(false);
  });

  it("declares OpenAPI 3.1's default schema dialect, the only one Swagger UI renders without a warning", () => {
    expect(openApiDocument.jsonSchemaDialect).toBe('https://spec.openapis.org/oas/3.1/dialect/base');
  });

  it('has examples that all match their schemas', () => {
    expect(createOpenApiValidator().exampleProblems()).toEqual([]);
  });

  it('says in its description that /api/v1 is an alias of /api', () => {
    expect(openApiDocument.info.description).toMatch(/`\/api\/v1` es un alias/);
  });

  const operations = createOpenApiValidator().operations();

  it.each(operations.map((o) => [`${o.method} ${o.path}`, o] as const))(
    '%s follows the house rules',
    (_name, { path, operation, statuses }) => {
      const isHealth = path.startsWith('/actuator/health');
      // Health probes are public; everything else needs Basic auth and says so.
      expect(operation.security).toEqual(isHealth ? [] : undefined);
      if (!isHealth) expect(statuses).toEqual(expect.arrayContaining([401, 429, 500]));
      // A route that reads a JSON body documents what bad bodies get.
      if (operation.requestBody) expect(statuses).toEqual(expect.arrayContaining([400, 413, 415]));
      // A path id can be malformed or unknown.
      if (path.includes('{id}')) expect(statuses).toEqual(expect.arrayContaining([400, 404]));
      expect(operation.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(statuses.some((s) => s >= 200 && s < 300)).toBe(true);
    },
  );

  it('names every operation uniquely', () => {
    const ids = operations.map((o) => o.operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('the response validator', () => {
  const validator = createOpenApiValidator();

  it('accepts a response that matches, by concrete path, by the /api/v1 alias and by template', () => {
    expect(validator.responseProblems(response({}))).toEqual([]);
    expect(validator.responseProblems(response({ path: '/api/v1/productos/7?x=1' }))).toEqual([]);
    expect(validator.responseProblems(response({ path: '/api/productos/{id}' }))).toEqual([]);
  });

  it('rejects a route the document does not have', () => {
    expect(validator.responseProblems(response({ path: '/api/proveedores/7' }))).toEqual([
      expect.stringMatching(/no such route/),
    ]);
    expect(validator.responseProblems(response({ method: 'PATCH' }))).toEqual([expect.stringMatching(/no such route/)]);
  });

  it('rejects a status the route does not document', () => {
    expect(validator.responseProblems(response({ status: 201 }))).toEqual([
      expect.stringMatching(/status 201 is not documented/),
    ]);
    expect(validator.responseProblems(response({ status: 409, body: { error: 'X', mensaje: 'y' } }))).toEqual([
      expect.stringMatching(/status 409 is not documented/),
    ]);
  });

  it.each([
    [
      'a missing field',
      (({ fechaActualizacion: _f, ...rest }) => rest)(producto),
      /must have required property 'fechaActualizacion'/,
    ],
    ['an undocumented field', { ...producto, cantidad: 3 }, /must NOT have additional properties/],
    ['precio as text', { ...producto, precio: '89.99' }, /\/precio: must be number/],
    [
      'precio with three decimals (the stated rule)',
      { ...producto, precio: 89.999 },
      /\/precio: must have at most 2 decimals/,
    ],
    ['precio above DECIMAL(10,2)', { ...producto, precio: 100000000 }, /\/precio: must be <= 99999999.99/],
    [
      'a timestamp with a zone',
      { ...producto, fechaCreacion: '2026-01-05T10:00:00Z' },
      /\/fechaCreacion: must match pattern/,
    ],
    ['a negative stock', { ...producto, cantidadEnStock: -1 }, /\/cantidadEnStock: must be >= 0/],
    ['a list instead of one product', [producto], /must be object/],
  ])('rejects a body with %s', (_name, body, problem) => {
    expect(validator.responseProblems(response({ body }))).toEqual(
      expect.arrayContaining([expect.stringMatching(problem)]),
    );
  });

  it('accepts prices with two decimals up to the DECIMAL(10,2) maximum despite binary rounding', () => {
    for (const precio of [0, 0.01, 0.07, 19.9, 1.15, 12345678.91, 99999999.99]) {
      expect(validator.responseProblems(response({ body: { ...producto, precio } }))).toEqual([]);
    }
  });

  it('rejects an error body without mensaje or with an unknown field, but not a new error code', () => {
    const notFound = (body: unknown) => response({ status: 404, body });
    expect(validator.responseProblems(notFound({ error: 'CUALQUIER_CODIGO', mensaje: 'No existe' }))).toEqual([]);
    expect(validator.responseProblems(notFound({ error: 'NO_ENCONTRADO' }))).toEqual([
      expect.stringMatching(/required property 'mensaje'/),
    ]);
    expect(validator.responseProblems(notFound({ error: 'X', mensaje: 'y', stack: 'at ...' }))).toEqual([
      expect.stringMatching(/must NOT have additional properties/),
    ]);
  });

  it('rejects a missing or malformed documented header', () => {
    const created = { method: 'POST', path: '/api/productos', status: 201 };
    expect(
      validator.responseProblems(response({ ...created, headers: { ...json, location: '/api/productos/7' } })),
    ).toEqual([]);
    expect(validator.responseProblems(response({ ...created }))).toEqual([
      expect.stringMatching(/header Location is missing/),
    ]);
    const unauthorized = { status: 401, body: { error: 'NO_AUTENTICADO', mensaje: 'Credenciales' } };
    expect(
      validator.responseProblems(response({ ...unauthorized, headers: { ...json, 'www-authenticate': 'Bearer' } })),
    ).toEqual([expect.stringMatching(/header WWW-Authenticate: must match pattern/)]);
    const unavailable = { status: 503, body: { error: 'NO_DISPONIBLE', mensaje: 'Reintente' } };
    expect(validator.responseProblems(response({ ...unavailable, headers: { ...json, 'retry-after': '10' } }))).toEqual(
      [],
    );
    expect(
      validator.responseProblems(response({ ...unavailable, headers: { ...json, 'retry-after': 'pronto' } })),
    ).toEqual([expect.stringMatching(/header Retry-After: must be integer/)]);
  });

  it('rejects an undocumented content type, a non-JSON body and a body where none is documented', () => {
    expect(validator.responseProblems(response({ headers: { 'content-type': 'text/html', etag: '"1"' } }))).toEqual([
      expect.stringMatching(/content type text\/html is not documented/),
    ]);
    expect(validator.responseProblems(response({ body: undefined, text: '<html>' }))).toEqual([
      expect.stringMatching(/body is not JSON/),
    ]);
    const deleted = { method: 'DELETE', status: 204, headers: {} };
    expect(validator.responseProblems(response({ ...deleted, body: undefined, text: '' }))).toEqual([]);
    expect(validator.responseProblems(response({ ...deleted, body: {}, text: '{}' }))).toEqual([
      expect.stringMatching(/has no body/),
    ]);
  });

  it('records only conforming responses as exercised', () => {
    const fresh = createOpenApiValidator();
    fresh.assertResponse(response({}));
    expect(() => fresh.assertResponse(response({ status: 418 }))).toThrow(/status 418 is not documented/);
    expect([...fresh.exercised()]).toEqual([['GET /api/productos/{id}', new Set([200])]]);
  });

  it('checks request bodies against the documented requestBody', () => {
    expect(validator.requestBodyProblems('PUT', '/api/productos/7', { precio: 1.5 })).toEqual([]);
    expect(validator.requestBodyProblems('PUT', '/api/productos/7', {})).toEqual(
      expect.arrayContaining([expect.stringMatching(/must NOT have fewer than 1 properties/)]),
    );
    expect(validator.requestBodyProblems('POST', '/api/bodegas', { nombre: 'Norte' })).toEqual([
      expect.stringMatching(/must have required property 'capacidad'/),
    ]);
  });

  it('validates against the document it is given', () => {
    const empty: OpenApiDocument = { openapi: '3.1.1', info: { title: 't', version: '1' }, paths: {} };
    expect(createOpenApiValidator(empty).responseProblems(response({}))).toEqual([
      expect.stringMatching(/no such route/),
    ]);
  });
});

/** The parts of an Express 5 router layer (router 2.x) the route walk reads. */
interface RouterLayer {
  /** Mount path(s) of a `use` layer. */
  rawPath?: string | string[];
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle: { stack?: RouterLayer[] };
}

/**
 * Every `METHOD /path` the app routes, read from its router tree, with Express
 * params as OpenAPI templates, the `/api/v1` alias folded into `/api`, and
 * trailing slashes dropped. `all` routes are left out: they answer methods a
 * path does not support (GraphQL's 405), they are not operations.
 */
function routesOf(stack: readonly RouterLayer[], prefix = ''): string[] {
  const join = (a: string, b: string) => `${a}/${b}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
  return stack.flatMap((layer) => {
    if (layer.route) {
      const methods = Object.keys(layer.route.methods).filter((m) => m !== '_all');
      return [layer.route.path].flat().flatMap((path) => methods.map((m) => operationKey(m, join(prefix, path))));
    }
    if (!Array.isArray(layer.handle.stack)) return [];
    return [layer.rawPath ?? '/'].flat().flatMap((mount) => routesOf(layer.handle.stack!, join(prefix, mount)));
  });
}

function normalizeRoute(key: string): string {
  return key
    .replace(/:(\w+)/g, '{$1}')
    .replace(' /api/v1/', ' /api/')
    .replace(/(.)\/$/, '$1');
}

describe('the route table of the BFF app', () => {
  const documented = () =>
    new Set(
      createOpenApiValidator()
        .operations()
        .map((o) => normalizeRoute(operationKey(o.method, o.path))),
    );
  const appRoutes = (auth: Pick<HttpAppDeps, 'credentials' | 'identidad'>) => {
    // Only inspected, never called: no request reaches the dependencies.
    const app = createHttpApp({
      inventario: {} as InventarioApi,
      reservas: {} as ReservaClient,
      health: { check: () => Promise.reject(new Error('not called')) },
      logger: createLogger('bff', 'silent'),
      ...auth,
      rateLimitPerMinute: 10,
      trustProxyHops: 0,
      enableInit: false,
      accepting: () => true,
      httpMetrics: createHttpMetrics(new Registry()),
    });
    return new Set(routesOf((app as unknown as { router: { stack: RouterLayer[] } }).router.stack).map(normalizeRoute));
  };

  it('holds exactly the documented operations: no route without docs, no docs without a route', () => {
    // As deployed: authenticating through identidad-svc, with its identity routes (docs/contract.md §12.8).
    const routes = appRoutes({
      identidad: {
        identidad: {} as IdentidadClient,
        cache: createCredentialCache({ ttlMs: 0, maxEntries: 1 }),
        metrics: createAuthMetrics(new Registry()),
      },
    });
    expect([...routes].sort()).toEqual([...documented()].sort());
  });

  it('without identidad-svc, holds every documented operation but the identity routes', () => {
    const identidad = new Set(
      Object.values(IDENTIDAD_ROUTES).flatMap((rows) =>
        rows.map((r) => {
          const [method, path] = r.route.split(' ') as [string, string];
          return normalizeRoute(operationKey(method, path));
        }),
      ),
    );
    const routes = appRoutes({ credentials: { usuario: 'u', password: 'p' } });
    expect([...routes].sort()).toEqual([...documented()].filter((route) => !identidad.has(route)).sort());
  });
});
