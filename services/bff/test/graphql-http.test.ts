import { serverAudits } from 'graphql-http';
import { GRAPHIQL_ASSETS } from '../src/graphql/graphiql';
import { EJEMPLO, MAX_BODY_BYTES } from '../src/graphql/router';
import { startTestStack, type TestStack } from './support/stack';
import { graphql } from './graphql-support/graphql-client';

/**
 * GraphQL over HTTP at /api/graphql: the GET info body and GraphiQL, error
 * classifications and status codes, request limits, graphql-http's own
 * conformance audits. This stack runs with ENABLE_INIT=false.
 */
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('gqlhttp', { env: { ENABLE_INIT: 'false' } });
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

describe('GET /api/graphql', () => {
  it.each(['/api/graphql', '/api/v1/graphql'])('GET %s without a query answers the spec info body', async (path) => {
    const response = await stack.request('GET', path, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.body).toEqual({ message: expect.any(String), ejemplo: EJEMPLO, endpoint: path });
  });

  it('the info body example runs as it is', async () => {
    const info = (await stack.request('GET', '/api/graphql')).body as { ejemplo: typeof EJEMPLO };
    const { query, variables, operationName } = info.ejemplo;
    const response = await graphql(stack, query, { variables, operationName });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { producto: null } });
  });

  it('a browser (Accept prefers text/html) gets GraphiQL, loaded from pinned CDN URLs and pointed at this endpoint', async () => {
    const response = await stack.request('GET', '/api/v1/graphql', {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('vary')).toContain('Accept');
    for (const url of [GRAPHIQL_ASSETS.css, ...GRAPHIQL_ASSETS.scripts]) {
      expect(url).toMatch(/@\d+\.\d+\.\d+\//);
      expect(response.text).toContain(url);
    }
    expect(response.text).toContain('GraphiQL.createFetcher({ url: new URL("/api/v1/graphql", window.location.href).href })');
  });

  it('GET with a query parameter executes it', async () => {
    const response = await stack.request('GET', `/api/graphql?query=${encodeURIComponent('{ health }')}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { health: 'OK' } });
  });

  it('GET refuses to run a mutation (405)', async () => {
    const query = encodeURIComponent('mutation { eliminarProducto(id: "1") { success } }');
    const response = await stack.request('GET', `/api/graphql?query=${query}`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('needs Basic auth like every endpoint', async () => {
    const response = await stack.request('GET', '/api/graphql', { auth: false });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('Basic');
  });
});

describe('GraphQL error classifications (HTTP 200 with Accept: application/json)', () => {
  it('an undefined field is a ValidationError with its locations', async () => {
    const response = await graphql(stack, '{\n  productos {\n    sku\n  }\n}');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      errors: [
        {
          message: 'Cannot query field "sku" on type "Producto".',
          locations: [{ line: 3, column: 5 }],
          extensions: { classification: 'ValidationError' },
        },
      ],
    });
  });

  it('a syntax error is InvalidSyntax', async () => {
    const response = await graphql(stack, '{ productos { id }');
    expect(response.status).toBe(200);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toEqual([
      { message: expect.stringMatching(/^Syntax Error: /), locations: [{ line: 1, column: 19 }], extensions: { classification: 'InvalidSyntax' } },
    ]);
  });

  it('a variable declared Int! for an ID! argument is a ValidationError', async () => {
    const response = await graphql(stack, 'query ($id: Int!) { producto(id: $id) { id } }', { variables: { id: 1 } });
    expect(response.status).toBe(200);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toEqual([
      {
        message: 'Variable "$id" of type "Int!" used in position expecting type "ID!".',
        locations: [
          { line: 1, column: 8 },
          { line: 1, column: 34 },
        ],
        extensions: { classification: 'ValidationError' },
      },
    ]);
  });

  it('a variable value of the wrong type is a ValidationError', async () => {
    const response = await graphql(stack, 'mutation ($input: BodegaInput!) { crearBodega(input: $input) { success } }', {
      variables: { input: { nombre: 'X', ubicacion: 'Y', capacidad: 'mil' } },
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toEqual([
      expect.objectContaining({ message: expect.stringContaining('capacidad'), extensions: { classification: 'ValidationError' } }),
    ]);
  });

  it('a query deeper than the limit is rejected before execution as a ValidationError', async () => {
    const deep = '{ bodegas { productos { bodega { productos { bodega { productos { bodega { productos { bodega { productos { id } } } } } } } } } } }';
    const response = await graphql(stack, deep);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      errors: [{ message: 'La consulta supera la profundidad máxima de 10 niveles', extensions: { classification: 'ValidationError' } }],
    });
  });

  it('a query with too many aliases is rejected as a ValidationError', async () => {
    const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: productos { id }`).join(' ');
    const response = await graphql(stack, `{ ${aliases} }`);
    expect(response.status).toBe(200);
    expect(response.body.errors).toEqual([
      { message: 'La consulta supera el máximo de 15 alias', extensions: { classification: 'ValidationError' } },
    ]);
  });

  it('with Accept: application/graphql-response+json a validation error keeps graphql-http\'s 400', async () => {
    const response = await graphql(stack, '{ sku }', { headers: { accept: 'application/graphql-response+json' } });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/graphql-response+json');
    expect(response.body.errors[0].extensions).toEqual({ classification: 'ValidationError' });
  });

  it('inicializarBaseDatos is refused with an error while ENABLE_INIT is false, and loads nothing', async () => {
    const before = await stack.settledEvents();
    const response = await graphql(stack, 'mutation { inicializarBaseDatos }');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: null,
      errors: [
        {
          message: 'La carga de datos de ejemplo está desactivada: el BFF debe arrancar con ENABLE_INIT=true',
          locations: [{ line: 1, column: 12 }],
          path: ['inicializarBaseDatos'],
          extensions: { classification: 'FORBIDDEN' },
        },
      ],
    });
    expect((await stack.request('GET', '/api/bodegas')).body).toEqual([]);
    expect(await stack.settledEvents()).toHaveLength(before.length);
  });
});

describe('malformed GraphQL requests get a clear 4xx JSON error', () => {
  it('a batched (array) body is refused with 400', async () => {
    const response = await stack.request('POST', '/api/graphql', { body: [{ query: '{ health }' }, { query: '{ health }' }] });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      errors: [{ message: expect.stringContaining('No se admiten operaciones en lote'), extensions: { classification: 'BAD_REQUEST' } }],
    });
  });

  it.each([
    ['a body that is not JSON', '{"query": ', 'El cuerpo de la petición no es JSON válido'],
    ['an empty body', '', expect.stringContaining('Falta el cuerpo de la petición')],
    ['a body without query', '{"variables": {}}', 'Falta el parámetro query con el documento GraphQL'],
    ['variables that are not an object', '{"query": "{ health }", "variables": [1]}', 'El parámetro variables debe ser un objeto JSON'],
  ])('%s is a 400 naming the problem', async (_case, rawBody, message) => {
    const response = await stack.request('POST', '/api/graphql', { rawBody });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ errors: [{ message, extensions: { classification: 'BAD_REQUEST' } }] });
  });

  it('a body that is not JSON is a 415 naming the content type to use', async () => {
    const response = await stack.request('POST', '/api/graphql', { rawBody: '{ health }', headers: { 'content-type': 'application/graphql' } });
    expect(response.status).toBe(415);
    expect(response.body.errors[0].message).toContain('application/json');
  });

  it('a client that accepts no JSON gets a 406', async () => {
    const response = await graphql(stack, '{ health }', { headers: { accept: 'text/csv' } });
    expect(response.status).toBe(406);
    expect(response.body.errors[0].message).toContain('application/json');
  });

  it('another method is a 405 that names the allowed ones', async () => {
    const response = await stack.request('PUT', '/api/graphql', { body: { query: '{ health }' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
    expect(response.body.errors[0].message).toContain('GET');
  });

  it('a body over 1 MiB is a 413 and is not executed', async () => {
    const padding = ' '.repeat(MAX_BODY_BYTES);
    const response = await stack.request('POST', '/api/graphql', { rawBody: `{"query": "{ health }${padding}"}` });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toContain('application/json');
  });
});

describe("graphql-http's server audits", () => {
  const audits = serverAudits({
    url: () => `${stack.baseUrl}/api/graphql`,
    fetchFn: (input: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', stack.auth);
      return fetch(input, { ...init, headers });
    },
  });
  const must = audits.filter((audit) => audit.name.startsWith('MUST'));

  it('there are MUST audits to run', () => {
    expect(must.length).toBeGreaterThan(10);
  });

  it.each(must.map((audit) => [audit.id, audit.name, audit] as const))('%s %s', async (_id, _name, audit) => {
    const result = await audit.fn();
    expect(result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`).toBe('ok');
  });

  it('every SHOULD and MAY audit passes too', async () => {
    const failed: string[] = [];
    for (const audit of audits.filter((a) => !a.name.startsWith('MUST'))) {
      const result = await audit.fn();
      if (result.status !== 'ok') failed.push(`${audit.id} ${audit.name}: ${result.reason}`);
    }
    expect(failed).toEqual([]);
  });
});
