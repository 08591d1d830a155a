/**
 * What a hostile client gets from the BFF: password guessing is cut off
 * after AUTH_FAILURES_PER_15_MIN failures (429 + Retry-After) without
 * locking out other clients; GraphQL documents that are too deep, too
 * aliased or batched are refused before any resolver calls a service; a
 * 2 MB body is 413 on every route, with or without credentials; a client
 * that trickles its headers is dropped at HTTP_HEADERS_TIMEOUT_MS; OPTIONS
 * answers 204 + Allow (or a JSON 404), never Express's text.
 *
 * The BFF runs alone, in front of a fake downstream that implements every
 * method of both services and records each call, so "no call reached the
 * services" is observed, not assumed.
 */
import { connect } from 'node:net';
import { status, type Metadata } from '@grpc/grpc-js';
import { BodegaServiceService, ProductoServiceService } from '@inventario/proto';
import { MAX_BODY_BYTES } from '../src/http/http-errors';
import { deadAddress, startBareBff, type BareBff } from './support/bare-bff';
import { errorBodyProblems } from './support/error-schema';
import { startFakeDownstream, type FakeDownstream } from './support/fake-downstream';
import { createOpenApiValidator } from './support/openapi-validator';
import { pipelinedRequests, rawRequest, type RawResponse } from './support/raw-http';
import { basicAuth, TEST_PASSWORD, TEST_USER } from './support/stack';

const FAILURES_ALLOWED = 10;
const HEADERS_TIMEOUT_MS = 2000;
const CLIENT_TIMEOUT_MS = 10_000;
const ANOTHER_CLIENT = '127.0.0.2';

type Handler = (
  call: { request: unknown; metadata: Metadata },
  callback: (err: unknown, res?: unknown) => void,
) => void;

/** Every method of a service, failing with UNAVAILABLE: enough for the fake to record that it was called. */
function everyMethod(service: object): Record<string, Handler> {
  const unavailable: Handler = (_call, callback) => callback({ code: status.UNAVAILABLE, details: 'fake' });
  return Object.fromEntries(Object.keys(service).map((method) => [method, unavailable]));
}

let downstream: FakeDownstream;
let bff: BareBff;

beforeAll(async () => {
  downstream = await startFakeDownstream({
    producto: everyMethod(ProductoServiceService),
    bodega: everyMethod(BodegaServiceService),
  });
  const address = `127.0.0.1:${downstream.port}`;
  bff = await startBareBff({
    PRODUCTO_SVC_ADDR: address,
    BODEGA_SVC_ADDR: address,
    AUTH_FAILURES_PER_15_MIN: String(FAILURES_ALLOWED),
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    HTTP_REQUEST_TIMEOUT_MS: String(2 * HEADERS_TIMEOUT_MS),
  });
});

afterAll(async () => {
  await bff?.close();
  await downstream?.close();
});

interface SendOptions {
  /** Another Authorization value, or false for none; default the BFF user's. */
  auth?: string | false;
  body?: string | Buffer;
  headers?: Record<string, string>;
  chunked?: boolean;
  localAddress?: string;
}

function send(method: string, path: string, options: SendOptions = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  const auth = options.auth ?? bff.auth;
  if (auth !== false) headers.authorization = auth;
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const { body, chunked, localAddress } = options;
  return rawRequest(bff.baseUrl, { method, path, headers, body, chunked, localAddress, timeoutMs: CLIENT_TIMEOUT_MS });
}

function expectJsonError(res: RawResponse, code: number, error: string): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({
    status: code,
    type: expect.stringMatching(/^application\/json/),
  });
  expect(errorBodyProblems(res.body)).toEqual([]);
  expect((res.body as { error: string }).error).toBe(error);
}

// Runs first: the rest of the file uses the right credentials from ANOTHER_CLIENT's point of view too.
describe('brute-force protection (AUTH_FAILURES_PER_15_MIN)', () => {
  test(`1,000 wrong passwords from one client: ${FAILURES_ALLOWED} x 401, then 429 with Retry-After; another client still gets in`, async () => {
    // A request without credentials is how every client starts: it never counts.
    for (let i = 0; i < 2 * FAILURES_ALLOWED; i++)
      expectJsonError(await send('GET', '/api/openapi.json', { auth: false }), 401, 'UNAUTHORIZED');

    const statuses = new Map<number, number>();
    const answers: RawResponse[] = [];
    for (let i = 0; i < 1000; i++) {
      const res = await send('GET', '/api/productos', { auth: basicAuth(TEST_USER, `intento-${i}`) });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      answers.push(res);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 401: FAILURES_ALLOWED, 429: 1000 - FAILURES_ALLOWED });
    answers.slice(0, FAILURES_ALLOWED).forEach((res) => expectJsonError(res, 401, 'UNAUTHORIZED'));
    for (const res of answers.slice(FAILURES_ALLOWED)) {
      expectJsonError(res, 429, 'TOO_MANY_REQUESTS');
      const retryAfter = Number(res.headers['retry-after']);
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 15 * 60).toBe(true);
    }
    // No call reached a service: every one of them was refused before the routes.
    expect(downstream.calls).toEqual([]);

    // Blocked means blocked, right password included (or a guess would still be told apart by its status).
    expectJsonError(await send('GET', '/api/openapi.json'), 429, 'TOO_MANY_REQUESTS');
    expectJsonError(await send('POST', '/api/graphql', { body: '{"query":"{ health }"}' }), 429, 'TOO_MANY_REQUESTS');

    // Another client: right credentials work, and its own failures are counted apart.
    expect((await send('GET', '/api/openapi.json', { localAddress: ANOTHER_CLIENT })).status).toBe(200);
    expectJsonError(
      await send('GET', '/api/openapi.json', { localAddress: ANOTHER_CLIENT, auth: basicAuth(TEST_USER, 'mala') }),
      401,
      'UNAUTHORIZED',
    );
    expect((await send('GET', '/api/openapi.json', { localAddress: ANOTHER_CLIENT })).status).toBe(200);
    // The probes stay outside both the limit and auth.
    expect((await send('GET', '/actuator/health/liveness', { auth: false })).status).toBe(200);
  }, 60_000);

  /** `count` wrong passwords to `baseUrl`, then one request with the right one: their statuses, in order. */
  async function guessThenLogIn(
    baseUrl: string,
    count: number,
  ): Promise<{ guesses: Map<number, number>; firstRefused: number; rightPassword: RawResponse }> {
    const guesses = new Map<number, number>();
    let firstRefused = -1;
    for (let i = 0; i < count; i++) {
      const res = await rawRequest(baseUrl, {
        method: 'GET',
        path: '/api/productos',
        headers: { authorization: basicAuth(TEST_USER, `clave-${i}`) },
        timeoutMs: CLIENT_TIMEOUT_MS,
      });
      guesses.set(res.status, (guesses.get(res.status) ?? 0) + 1);
      if (res.status === 429 && firstRefused < 0) firstRefused = i + 1;
    }
    const rightPassword = await rawRequest(baseUrl, {
      method: 'GET',
      path: '/api/openapi.json',
      headers: { authorization: basicAuth(TEST_USER, TEST_PASSWORD) },
      timeoutMs: CLIENT_TIMEOUT_MS,
    });
    return { guesses, firstRefused, rightPassword };
  }

  test('with AUTH_FAILURES_PER_15_MIN=1000, 1,000 wrong passwords are 401 each, then the client gets 429, right password included', async () => {
    const tolerant = await startBareBff({
      PRODUCTO_SVC_ADDR: await deadAddress(),
      BODEGA_SVC_ADDR: await deadAddress(),
      AUTH_FAILURES_PER_15_MIN: '1000',
    });
    try {
      const { guesses, rightPassword } = await guessThenLogIn(tolerant.baseUrl, 1000);
      expect(Object.fromEntries(guesses)).toEqual({ 401: 1000 });
      expectJsonError(rightPassword, 429, 'TOO_MANY_REQUESTS');
      expect(Number(rightPassword.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      await tolerant.close();
    }
  }, 60_000);

  test(`500 wrong passwords pipelined on one connection, then the right one: ${FAILURES_ALLOWED} x 401, the rest 429, the right password 429`, async () => {
    // One write carries all 501 requests: the server parses them before it answers the first, so a
    // check and a count with an await between them would let every guess through before any was counted.
    const pipelining = await startBareBff({
      PRODUCTO_SVC_ADDR: await deadAddress(),
      BODEGA_SVC_ADDR: await deadAddress(),
      AUTH_FAILURES_PER_15_MIN: String(FAILURES_ALLOWED),
    });
    try {
      const guesses = Array.from({ length: 500 }, (_, i) => ({
        method: 'GET',
        path: '/api/openapi.json',
        headers: { authorization: basicAuth(TEST_USER, `pipelined-${i}`) },
      }));
      const right = {
        method: 'GET',
        path: '/api/openapi.json',
        headers: { authorization: basicAuth(TEST_USER, TEST_PASSWORD) },
      };
      const responses = await pipelinedRequests(pipelining.baseUrl, [...guesses, right], 30_000);
      expect(responses.at(-1)?.status).toBe(429);
      const statuses = new Map<number, number>();
      for (const res of responses.slice(0, -1)) statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect(Object.fromEntries(statuses)).toEqual({ 401: FAILURES_ALLOWED, 429: 500 - FAILURES_ALLOWED });
      expect(JSON.parse(responses.at(-1)?.text ?? '')).toMatchObject({ error: 'TOO_MANY_REQUESTS' });
    } finally {
      await pipelining.close();
    }
  }, 60_000);

  test('the default limit (20 failures in 15 minutes) applies when AUTH_FAILURES_PER_15_MIN is unset', async () => {
    const defaults = await startBareBff({
      PRODUCTO_SVC_ADDR: await deadAddress(),
      BODEGA_SVC_ADDR: await deadAddress(),
    });
    try {
      const { guesses, firstRefused, rightPassword } = await guessThenLogIn(defaults.baseUrl, 100);
      expect(Object.fromEntries(guesses)).toEqual({ 401: 20, 429: 80 });
      expect(firstRefused).toBe(21);
      expectJsonError(rightPassword, 429, 'TOO_MANY_REQUESTS');
    } finally {
      await defaults.close();
    }
  });

  test('0 turns the limit off: every wrong password is a 401', async () => {
    const unlimited = await startBareBff({
      PRODUCTO_SVC_ADDR: await deadAddress(),
      BODEGA_SVC_ADDR: await deadAddress(),
      AUTH_FAILURES_PER_15_MIN: '0',
    });
    try {
      const statuses = new Set<number>();
      for (let i = 0; i < 5 * FAILURES_ALLOWED; i++) {
        const res = await rawRequest(unlimited.baseUrl, {
          method: 'GET',
          path: '/api/openapi.json',
          headers: { authorization: basicAuth(TEST_USER, `x${i}`) },
          timeoutMs: CLIENT_TIMEOUT_MS,
        });
        statuses.add(res.status);
      }
      expect([...statuses]).toEqual([401]);
      const ok = await rawRequest(unlimited.baseUrl, {
        method: 'GET',
        path: '/api/openapi.json',
        headers: { authorization: basicAuth(TEST_USER, TEST_PASSWORD) },
        timeoutMs: CLIENT_TIMEOUT_MS,
      });
      expect(ok.status).toBe(200);
    } finally {
      await unlimited.close();
    }
  });
});

describe('GraphQL abuse is refused before execution: no call reaches a service', () => {
  /** The requests below come from ANOTHER_CLIENT: the default client is blocked by the brute-force test. */
  const graphql = (body: string) => send('POST', '/api/graphql', { body, localAddress: ANOTHER_CLIENT });

  /** `{ bodegas { productos { bodega { productos ... { id } } } } }` with `depth` fields above `id`: valid at any depth. */
  function nested(depth: number): string {
    const fields = ['bodegas'];
    while (fields.length < depth) fields.push(fields.length % 2 === 1 ? 'productos' : 'bodega');
    return `{ ${fields.join(' { ')} { id }${' }'.repeat(fields.length - 1)} }`;
  }

  /** `n` aliases of producto(id), a field that calls producto-svc. */
  const aliases = (n: number) =>
    `{ ${Array.from({ length: n }, (_, i) => `a${i}: producto(id: "${i + 1}") { id }`).join(' ')} }`;

  test.each([
    ['a query 20 levels deep', JSON.stringify({ query: nested(20) }), 'ValidationError', /profundidad máxima/],
    [
      '100 aliases of a field that calls a service',
      JSON.stringify({ query: aliases(100) }),
      'ValidationError',
      /alias/,
    ],
    ['a batched array body', JSON.stringify([{ query: nested(2) }, { query: aliases(2) }]), 'BAD_REQUEST', /lote/],
  ])('%s', async (_case, body, classification, message) => {
    downstream.calls.length = 0;
    const res = await graphql(body);
    expect(res.status).toBe(200);
    const answer = res.body as {
      data?: unknown;
      errors: { message: string; extensions: { classification: string } }[];
    };
    expect(answer.data).toBeUndefined();
    expect(answer.errors.map((e) => e.extensions.classification)).toEqual(answer.errors.map(() => classification));
    expect(answer.errors.map((e) => e.message)).toEqual(expect.arrayContaining([expect.stringMatching(message)]));
    expect(downstream.calls).toEqual([]);
  });

  test.each([
    ['3 levels', nested(3), 'listBodegas'],
    ['2 aliases', aliases(2), 'getProducto'],
  ])(
    'the counter sees calls: the same query within the limits (%s) is executed and calls the service',
    async (_case, query, method) => {
      downstream.calls.length = 0;
      const res = await graphql(JSON.stringify({ query }));
      expect(res.status).toBe(200);
      // The fake answers UNAVAILABLE: the errors come from execution, not validation.
      expect(
        (res.body as { errors: { extensions: { classification: string } }[] }).errors[0]!.extensions.classification,
      ).toBe('UNAVAILABLE');
      expect(downstream.calls.map((c) => c.method)).toContain(method);
    },
  );
});

describe('a 2 MB body is 413 on every route, with and without credentials', () => {
  const twoMegabytes = JSON.stringify({ nombre: 'x', descripcion: 'd'.repeat(2 * MAX_BODY_BYTES) });
  const operations = createOpenApiValidator().operations();
  const cases = operations.flatMap((o) =>
    [true, false].map(
      (withAuth) =>
        [
          `${o.method} ${o.path} ${withAuth ? 'with' : 'without'} credentials`,
          o.method,
          o.path.replace('{id}', '1'),
          withAuth,
        ] as const,
    ),
  );

  test(`the document's ${operations.length} operations are covered, /api/graphql included`, () => {
    const routes = cases.map(([, method, path]) => `${method} ${path}`);
    expect(routes).toEqual(expect.arrayContaining(['GET /api/graphql', 'POST /api/graphql']));
    expect(cases).toHaveLength(2 * operations.length);
  });

  test.each(cases)('%s', async (_case, method, path, withAuth) => {
    const res = await send(method, path, {
      body: twoMegabytes,
      auth: withAuth ? undefined : false,
      localAddress: ANOTHER_CLIENT,
    });
    expectJsonError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  const readers = ['POST /api/productos', 'PUT /api/bodegas/1', 'POST /api/graphql'];
  test.each(readers)('chunked (no Content-Length) on %s: 413 where the body is read', async (route) => {
    const [method, path] = route.split(' ') as [string, string];
    const res = await send(method, path, { body: twoMegabytes, chunked: true, localAddress: ANOTHER_CLIENT });
    expectJsonError(res, 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('slow headers (HTTP_HEADERS_TIMEOUT_MS)', () => {
  test('a client that trickles a header byte every second is answered 408 and dropped', async () => {
    const TRICKLE_BYTES = 30;
    const outcome = await new Promise<{ received: string; bytesSent: number; elapsedMs: number }>((resolve, reject) => {
      const started = Date.now();
      let bytesSent = 0;
      let received = '';
      const socket = connect(bff.app.httpPort, '127.0.0.1', () => {
        socket.write(`GET /api/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Lento: `);
      });
      const trickle = setInterval(() => {
        if (bytesSent >= TRICKLE_BYTES) return;
        bytesSent += 1;
        socket.write('a');
      }, 1000);
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(trickle);
        resolve({ received, bytesSent, elapsedMs: Date.now() - started });
      });
      setTimeout(
        () => reject(new Error('the server kept the connection for the whole trickle')),
        (TRICKLE_BYTES + 5) * 1000,
      ).unref();
    });
    // Dropped long before the trickle ended, no earlier than the headers timeout.
    expect(outcome.bytesSent).toBeLessThan(TRICKLE_BYTES);
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    const [head = '', body = ''] = outcome.received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 /);
    expect(head).toMatch(/\r\nConnection: close(\r\n|$)/i);
    expect(JSON.parse(body)).toEqual({ error: 'REQUEST_TIMEOUT', mensaje: expect.any(String) });
  }, 45_000);
});

describe('OPTIONS', () => {
  const documented = Object.entries(
    createOpenApiValidator()
      .operations()
      .reduce<Record<string, string[]>>(
        (paths, o) => ({ ...paths, [o.path]: [...(paths[o.path] ?? []), o.method] }),
        {},
      ),
  );

  test.each(documented.map(([path, methods]) => [path, methods] as const))(
    '%s: 204, Allow names its methods, no body',
    async (path, methods) => {
      for (const prefix of path.startsWith('/api/') ? ['/api', '/api/v1'] : ['']) {
        const concrete = `${prefix}${prefix ? path.slice('/api'.length) : path}`.replace('{id}', '7');
        const res = await send('OPTIONS', concrete, { localAddress: ANOTHER_CLIENT });
        expect(res.status).toBe(204);
        expect(res.text).toBe('');
        expect(res.headers['content-type']).toBeUndefined();
        const allow = (res.headers.allow ?? '').split(', ').sort();
        expect(allow).toEqual([...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].sort());
      }
    },
  );

  test('an unknown path is a JSON 404; without credentials an API path is a JSON 401, the probes need none', async () => {
    expectJsonError(await send('OPTIONS', '/api/nada', { localAddress: ANOTHER_CLIENT }), 404, 'NOT_FOUND');
    expectJsonError(
      await send('OPTIONS', '/api/graphql/assets/nada.js', { localAddress: ANOTHER_CLIENT }),
      404,
      'NOT_FOUND',
    );
    expectJsonError(
      await send('OPTIONS', '/api/productos', { auth: false, localAddress: ANOTHER_CLIENT }),
      401,
      'UNAUTHORIZED',
    );
    expect((await send('OPTIONS', '/actuator/health', { auth: false, localAddress: ANOTHER_CLIENT })).status).toBe(204);
  });
});
