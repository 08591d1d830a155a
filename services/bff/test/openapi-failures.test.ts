/**
 * Contract test of the failure statuses that need a sick back end: the BFF
 * is pointed at a TCP server that accepts connections and never answers, so
 * every downstream call runs past its deadline (504); then that server goes
 * away, so every call is refused (503); finally the client exceeds its rate
 * limit (429). Every operation the document lists with one of these statuses
 * is driven through it and each real response is checked against the document.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { waitFor } from '@inventario/testkit';
import { IDENTIDAD_ROUTES } from '../src/openapi/identidad-routes';
import { createOpenApiValidator, type DocumentedOperation } from './support/openapi-validator';
import { startTestStack, type StackRequestOptions, type StackResponse, type TestStack } from './support/stack';

/** Requests per minute: more than the phases before the 429 one make, so only that one is limited. */
const RATE_LIMIT = 200;

const validator = createOpenApiValidator();
let stack: TestStack;
let blackHole: { server: Server; sockets: Set<Socket>; address: string };

/** A TCP server that accepts connections, reads nothing and never answers. */
function startBlackHole(): Promise<typeof blackHole> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      resolve({ server, sockets, address: `127.0.0.1:${port}` });
    });
  });
}

function stopBlackHole(): Promise<void> {
  for (const socket of blackHole.sockets) socket.destroy();
  return new Promise((resolve) => blackHole.server.close(() => resolve()));
}

beforeAll(async () => {
  blackHole = await startBlackHole();
  stack = await startTestStack('openapi_fail', {
    env: {
      PRODUCTO_SVC_ADDR: blackHole.address,
      BODEGA_SVC_ADDR: blackHole.address,
      GRPC_DEADLINE_MS: '300',
      HEALTH_CHECK_TIMEOUT_MS: '300',
      // Keep the breakers closed, so a call that times out answers 504 rather than "circuit open" 503.
      BREAKER_VOLUME_THRESHOLD: '1000000',
      RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    },
  });
}, 120_000);

afterAll(async () => {
  await stack?.close();
  if (blackHole?.server.listening) await stopBlackHole();
});

async function send(method: string, path: string, options?: StackRequestOptions): Promise<StackResponse> {
  const res = await stack.request(method, path, options);
  validator.assertResponse({ method, path, status: res.status, headers: res.headers, body: res.body, text: res.text });
  return res;
}

/** A well-formed request for an operation: ids 1, the document's own (first) request example as body. */
function requestFor({ path, operation }: DocumentedOperation): [string, StackRequestOptions] {
  const concrete = path.replace(/\{[^}]+\}/g, '1');
  const requestBody = operation.requestBody;
  if (!requestBody || '$ref' in requestBody) return [concrete, { headers: { accept: 'application/json' } }];
  const examples = requestBody.content['application/json']?.examples ?? {};
  const example = Object.values(examples)[0];
  if (!example || '$ref' in example) throw new Error(`${path}: the request body has no inline example`);
  // A route that requires If-Match whatever its body (PATCH /api/reservas/{id}: 428 without it) gets one, so it reaches the service.
  const requiresIfMatch = path.startsWith('/api/reservas/') && '428' in (operation.responses ?? {});
  return [concrete, { body: example.value, ...(requiresIfMatch ? { headers: { 'if-match': '"1"' } } : {}) }];
}

/** The identity routes are served only with identidad-svc, which this file's stack does not run (identity-auth.test.ts: its 503). */
const identidad = new Set(Object.values(IDENTIDAD_ROUTES).flatMap((rows) => rows.map((r) => r.route.split(' ')[1])));
const withStatus = (status: number) =>
  validator.operations().filter((o) => o.statuses.includes(status) && !identidad.has(o.path));

it('every operation documented with 504 answers it when the services do not answer in time', async () => {
  expect(withStatus(504).length).toBeGreaterThan(10);
  for (const operation of withStatus(504)) {
    const [path, options] = requestFor(operation);
    const res = await send(operation.method, path, options);
    expect(`${operation.method} ${path} ${res.status}`).toBe(`${operation.method} ${path} 504`);
  }
  const health = await send('GET', '/actuator/health', { auth: false });
  expect(health.status).toBe(503);
});

it('every operation documented with 503 answers it, with Retry-After, when the services refuse connections', async () => {
  await stopBlackHole();
  // The channels notice the closed port on their next connection attempt.
  await waitFor(
    async () => {
      // The probes are not rate limited, so polling them costs nothing of the allowance.
      const health = await stack.request('GET', '/actuator/health', { auth: false });
      const report = (health.body ?? {}) as { components?: Record<string, { details: { grpc: string } }> };
      const components = Object.values(report.components ?? {});
      return components.length === 2 && components.every((c) => c.details.grpc === 'UNAVAILABLE');
    },
    'both channels to see the services refuse connections',
    30_000,
    200,
  );

  // Readiness answers 503 only while the BFF shuts down, not for a downstream outage.
  const operations = withStatus(503).filter((o) => o.path !== '/actuator/health/readiness');
  expect(operations.length).toBeGreaterThan(10);
  for (const operation of operations) {
    const [path, options] = requestFor(operation);
    const res = await send(operation.method, path, options);
    expect(`${operation.method} ${path} ${res.status}`).toBe(`${operation.method} ${path} 503`);
    if (path.startsWith('/api/')) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  }
});

it('every operation documented with 429 answers it, with Retry-After, once the client exceeds its limit', async () => {
  /** Spends what is left of this minute's allowance. */
  const exhaust = () =>
    waitFor(
      async () => (await stack.request('GET', '/api/openapi.json')).status === 429,
      'the rate limit to be reached',
      60_000,
      0,
    );
  expect(withStatus(429).length).toBeGreaterThan(10);
  for (const operation of withStatus(429)) {
    const [path, options] = requestFor(operation);
    // Retried in case the limiter's window rolled over between exhausting it and this request.
    const res = await waitFor(
      async () => {
        await exhaust();
        const answer = await send(operation.method, path, options);
        return answer.status === 429 ? answer : undefined;
      },
      `${operation.method} ${path} to be rate limited`,
      30_000,
    );
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  }
  // The probes are exempt: an orchestrator must always reach them.
  expect((await send('GET', '/actuator/health/liveness', { auth: false })).status).toBe(200);
});
