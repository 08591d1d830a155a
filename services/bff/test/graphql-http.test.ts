import { serverAudits } from 'graphql-http';
import { GRAPHIQL_CSP, GRAPHIQL_DEFAULT_QUERY } from '../src/graphql/graphiql';
import { EJEMPLO } from '../src/graphql/router';
import { MAX_BODY_BYTES } from '../src/http/http-errors';
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
  it.each(['/api/graphql', '/api/v1/graphql'])('GET %s without a query answers the info body', async (path) => {
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

  it('a browser (Accept prefers text/html) gets GraphiQL from its own assets, under a CSP that forbids anything else', async () => {
    const response = await stack.request('GET', '/api/v1/graphql', {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('vary')).toContain('Accept');
    expect(response.headers.get('content-security-policy')).toBe(GRAPHIQL_CSP);
    expect(GRAPHIQL_CSP).toContain("script-src 'self';");
    // No inline script (the CSP would block it) and nothing from another origin.
    expect(response.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(response.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    // The init script reads endpoint and starting query from the page, HTML-escaped.
    expect(response.text).toContain('data-endpoint="/api/v1/graphql"');
    expect(response.text).toContain(`data-default-query="${GRAPHIQL_DEFAULT_QUERY.replace(/"/g, '&#34;')}"`);
  });

  it("GraphiQL's first query needs no variables: it runs as it is", async () => {
    const response = await graphql(stack, GRAPHIQL_DEFAULT_QUERY);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { productos: expect.any(Array) } });
  });

  it('every asset the GraphiQL page references is served, behind auth, with its content type', async () => {
    const page = await stack.request('GET', '/api/graphql', { headers: { accept: 'text/html' } });
    const scripts = [...page.text.matchAll(/<script src="([^"]+)"><\/script>/g)].map((m) => m[1]!);
    const styles = [...page.text.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]!);
    // React, then ReactDOM, then GraphiQL (which needs both), then the init script (which needs all three).
    expect(scripts).toEqual([
      expect.stringMatching(/^\/api\/graphql\/assets\/react@18\.3\.1\/react\.production\.min\.js$/),
      expect.stringMatching(/^\/api\/graphql\/assets\/react-dom@18\.3\.1\/react-dom\.production\.min\.js$/),
      expect.stringMatching(/^\/api\/graphql\/assets\/graphiql@3\.9\.0\/graphiql\.min\.js$/),
      '/api/graphql/assets/graphiql-init.js',
    ]);
    expect(styles).toEqual(['/api/graphql/assets/graphiql@3.9.0/graphiql.min.css']);

    for (const [url, type] of [
      ...scripts.map((u) => [u, /^text\/javascript/] as const),
      ...styles.map((u) => [u, /^text\/css/] as const),
    ]) {
      const asset = await stack.request('GET', url);
      expect([url, asset.status]).toEqual([url, 200]);
      expect(asset.headers.get('content-type')).toMatch(type);
      expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
      expect(asset.text.length).toBeGreaterThan(0);
      expect((await stack.request('GET', url, { auth: false })).status).toBe(401);
    }
    const bundle = await stack.request('GET', scripts[2]!);
    expect(bundle.text).toContain('GraphiQL');
    expect(bundle.headers.get('cache-control')).toContain('immutable');
    const init = await stack.request('GET', scripts[3]!);
    expect(init.text).toContain('root.dataset.endpoint');
    expect(init.text).toContain('root.dataset.defaultQuery');
  });

  it('only the page assets are served: another file of the same packages is a JSON 404', async () => {
    const response = await stack.request('GET', '/api/graphql/assets/react@18.3.1/react.development.js');
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('NOT_FOUND');
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
      {
        message: expect.stringMatching(/^Syntax Error: /),
        locations: [{ line: 1, column: 19 }],
        extensions: { classification: 'InvalidSyntax' },
      },
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
    const response = await graphql(
      stack,
      'mutation ($input: BodegaInput!) { crearBodega(input: $input) { success } }',
      {
        variables: { input: { nombre: 'X', ubicacion: 'Y', capacidad: 'mil' } },
      },
    );
    expect(response.status).toBe(200);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('capacidad'),
        extensions: { classification: 'ValidationError' },
      }),
    ]);
  });

  it('a query deeper than the limit is rejected before execution as a ValidationError', async () => {
    // Lists paginated, so that only the depth limit applies (the result estimate would refuse it too otherwise).
    const deep =
      '{ bodegas { productos { bodega { productos { bodega { productos { bodega { productos { bodega { productos { id } } } } } } } } } } }'.replace(
        /(bodegas|productos) \{/g,
        '$1(first: 1) {',
      );
    const response = await graphql(stack, deep);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      errors: [
        {
          message: 'La consulta supera la profundidad máxima de 10 niveles',
          extensions: { classification: 'ValidationError' },
        },
      ],
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

  it("with Accept: application/graphql-response+json a validation error keeps graphql-http's 400", async () => {
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

/** The body of a malformed request: one BAD_REQUEST error with this message. */
const badRequest = (message: unknown) => ({ errors: [{ message, extensions: { classification: 'BAD_REQUEST' } }] });

const MALFORMED_POSTS = [
  [
    'a batched (array) body',
    JSON.stringify([{ query: '{ health }' }, { query: '{ health }' }]),
    expect.stringContaining('No se admiten operaciones en lote'),
  ],
  ['a body that is not JSON', '{"query": ', 'El cuerpo de la petición no es JSON válido'],
  // Read losslessly for exact numbers, as REST bodies are: which of the two values counts would be ambiguous.
  [
    'a key given twice with different values',
    '{"query": "{ health }", "variables": {"p": 1, "p": 2}}',
    'El cuerpo de la petición no es JSON válido',
  ],
  ['an empty body', '', expect.stringContaining('Falta el cuerpo de la petición')],
  ['an empty object', '{}', 'Falta el parámetro query con el documento GraphQL'],
  ['a body without query', '{"variables": {}}', 'Falta el parámetro query con el documento GraphQL'],
  ['a query that is not text', '{"query": 123}', 'El parámetro query debe ser un texto'],
  [
    'variables that are not an object',
    '{"query": "{ health }", "variables": [1]}',
    'El parámetro variables debe ser un objeto JSON',
  ],
] as const;

describe('malformed GraphQL requests: HTTP 200 with Accept: application/json (docs/contract.md §4.1), 400 with application/graphql-response+json', () => {
  it.each(MALFORMED_POSTS)(
    '%s is a 200 {errors} naming the problem for a client that accepts application/json',
    async (_case, rawBody, message) => {
      for (const accept of ['application/json', '*/*']) {
        const response = await stack.request('POST', '/api/graphql', { rawBody, headers: { accept } });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toContain('application/json');
        expect(response.body).toEqual(badRequest(message));
      }
    },
  );

  it.each(MALFORMED_POSTS)(
    '%s is a 400 {errors} for a client that accepts application/graphql-response+json',
    async (_case, rawBody, message) => {
      const response = await stack.request('POST', '/api/graphql', {
        rawBody,
        headers: { accept: 'application/graphql-response+json' },
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toContain('application/graphql-response+json');
      expect(response.body).toEqual(badRequest(message));
    },
  );

  it('GET with variables that are not JSON follows the same rule', async () => {
    const url = `/api/graphql?query=${encodeURIComponent('{ health }')}&variables=notjson`;
    const message = 'Los parámetros de la URL no son válidos (variables y extensions deben ser JSON)';
    const asJson = await stack.request('GET', url, { headers: { accept: 'application/json' } });
    expect([asJson.status, asJson.body]).toEqual([200, badRequest(message)]);
    const asGraphqlResponse = await stack.request('GET', url, {
      headers: { accept: 'application/graphql-response+json' },
    });
    expect([asGraphqlResponse.status, asGraphqlResponse.body]).toEqual([400, badRequest(message)]);
  });
});

describe('requests that are not GraphQL over HTTP keep their 4xx, whatever the client accepts', () => {
  it('a body that is not JSON is a 415 naming the content type to use', async () => {
    const response = await stack.request('POST', '/api/graphql', {
      rawBody: '{ health }',
      headers: { 'content-type': 'application/graphql' },
    });
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

/**
 * Audits that expect a 4xx for a malformed request from a client that
 * accepts application/json (BCF8 is a SHOULD, the rest MAY). docs/contract.md
 * §4.1 overrides them: with Accept: application/json every GraphQL response is
 * HTTP 200, as clients of the old service expect. They must fail for that
 * reason only, and pass for a client of application/graphql-response+json.
 */
const OVERRIDDEN_BY_CONTRACT = [
  'A5BF',
  'LKJ0',
  'LKJ1',
  'LKJ2',
  'LKJ3',
  '6C00',
  '6C01',
  '6C02',
  '6C03',
  '4760',
  '4761',
  '4762',
  '4763',
  '58B0',
  '58B1',
  '58B2',
  '58B3',
  'BCF8',
  '8764',
  '3E3A',
];

describe("graphql-http's server audits", () => {
  /** The audits, run as the test user; `accept` replaces the Accept header each audit sends. */
  const auditsAccepting = (accept?: string) =>
    serverAudits({
      url: () => `${stack.baseUrl}/api/graphql`,
      fetchFn: (input: string, init: RequestInit = {}) => {
        const headers = new Headers(init.headers);
        headers.set('authorization', stack.auth);
        if (accept) headers.set('accept', accept);
        return fetch(input, { ...init, headers });
      },
    });
  const audits = auditsAccepting();
  const must = audits.filter((audit) => audit.name.startsWith('MUST'));

  it('there are MUST audits to run', () => {
    expect(must.length).toBeGreaterThan(10);
  });

  it.each(must.map((audit) => [audit.id, audit.name, audit] as const))('%s %s', async (_id, _name, audit) => {
    const result = await audit.fn();
    expect(result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`).toBe('ok');
  });

  it('every SHOULD and MAY audit passes, except those docs/contract.md §4.1 overrides', async () => {
    const failed: string[] = [];
    for (const audit of audits.filter((a) => !a.name.startsWith('MUST') && !OVERRIDDEN_BY_CONTRACT.includes(a.id))) {
      const result = await audit.fn();
      if (result.status !== 'ok') failed.push(`${audit.id} ${audit.name}: ${result.reason}`);
    }
    expect(failed).toEqual([]);
  });

  it('the overridden audits fail only on the status (our 200), and pass for a client of application/graphql-response+json', async () => {
    const overridden = (list: typeof audits) => list.filter((a) => OVERRIDDEN_BY_CONTRACT.includes(a.id));
    expect(
      overridden(audits)
        .map((a) => a.id)
        .sort(),
    ).toEqual([...OVERRIDDEN_BY_CONTRACT].sort());
    const otherwiseFailed: string[] = [];
    for (const audit of overridden(audits)) {
      const result = await audit.fn();
      const outcome = result.status === 'ok' ? 'ok' : `${result.response?.status}: ${result.reason}`;
      if (!/^200: Response status (code )?is not /.test(outcome))
        otherwiseFailed.push(`${audit.id} ${audit.name}: ${outcome}`);
    }
    expect(otherwiseFailed).toEqual([]);

    const failedAsGraphqlResponse: string[] = [];
    for (const audit of overridden(auditsAccepting('application/graphql-response+json'))) {
      const result = await audit.fn();
      if (result.status !== 'ok') failedAsGraphqlResponse.push(`${audit.id} ${audit.name}: ${result.reason}`);
    }
    expect(failedAsGraphqlResponse).toEqual([]);
  });
});
