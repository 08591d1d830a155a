import { ConfigError } from '@inventario/platform';
import { loadConfig } from '../src/config';

const REQUIRED = { BFF_USER: 'ana', BFF_PASSWORD: 'p4ss' };

/** The problems loadConfig reports for `env`; fails when it accepts it. */
function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

test('defaults follow docs/contract.md §8.4', () => {
  const config = loadConfig(REQUIRED);
  expect(config).toMatchObject({
    port: 8080,
    host: '0.0.0.0',
    metricsPort: 9100,
    metricsHost: '0.0.0.0',
    credentials: { usuario: 'ana', password: 'p4ss' },
    productoSvcAddr: '127.0.0.1:50051',
    bodegaSvcAddr: '127.0.0.1:50052',
    rateLimitPerMinute: 600,
    trustProxyHops: 0,
    grpcDeadlineMs: 5000,
    keepalive: { timeMs: 3000, timeoutMs: 5000 },
    breaker: { resetMs: 10_000, errorThresholdPercent: 50, volumeThreshold: 5, windowMs: 10_000 },
    enableInit: false,
    logLevel: 'info',
  });
});

test('BFF_USER and BFF_PASSWORD have no default: both are reported missing at once', () => {
  const problems = problemsOf({});
  expect(problems).toEqual([expect.stringMatching(/^BFF_USER: /), expect.stringMatching(/^BFF_PASSWORD: /)]);
  // Empty counts as unset.
  expect(problemsOf({ BFF_USER: '', BFF_PASSWORD: '' })).toHaveLength(2);
});

test('GRPC_KEEPALIVE_TIME_MS 0 turns keepalive pings off; the timeout must be at least 1 ms', () => {
  expect(loadConfig({ ...REQUIRED, GRPC_KEEPALIVE_TIME_MS: '0', GRPC_KEEPALIVE_TIMEOUT_MS: '2000' }).keepalive).toEqual(
    { timeMs: 0, timeoutMs: 2000 },
  );
  expect(problemsOf({ ...REQUIRED, GRPC_KEEPALIVE_TIMEOUT_MS: '0' })).toEqual([
    'GRPC_KEEPALIVE_TIMEOUT_MS: must be at least 1',
  ]);
});

test('every bad value is named, and no value is echoed', () => {
  const problems = problemsOf({
    BFF_USER: 'ana:admin',
    BFF_PASSWORD: 'no-me-muestres',
    PORT: '80a',
    PRODUCTO_SVC_ADDR: 'http://producto-svc',
    RATE_LIMIT_PER_MINUTE: '-1',
    GRPC_DEADLINE_MS: '0',
    ENABLE_INIT: 'yes',
    LOG_LEVEL: 'verbose',
  });
  expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(
    [
      'BFF_USER',
      'ENABLE_INIT',
      'GRPC_DEADLINE_MS',
      'LOG_LEVEL',
      'PORT',
      'PRODUCTO_SVC_ADDR',
      'RATE_LIMIT_PER_MINUTE',
    ].sort(),
  );
  expect(problems.join('\n')).not.toContain('no-me-muestres');
  expect(problems.join('\n')).not.toContain('ana:admin');
});

test('METRICS_PORT and METRICS_HOST choose the admin port, which must not be the public PORT', () => {
  expect(loadConfig({ ...REQUIRED, METRICS_PORT: '9200', METRICS_HOST: '127.0.0.1' })).toMatchObject({
    metricsPort: 9200,
    metricsHost: '127.0.0.1',
  });
  expect(loadConfig({ ...REQUIRED, PORT: '0', METRICS_PORT: '0' })).toMatchObject({ port: 0, metricsPort: 0 });
  expect(problemsOf({ ...REQUIRED, PORT: '9100', METRICS_PORT: '9100' })).toEqual([
    'METRICS_PORT: must differ from PORT (metrics are never served on the public port)',
  ]);
  expect(problemsOf({ ...REQUIRED, METRICS_PORT: 'nueve' })).toEqual([expect.stringMatching(/^METRICS_PORT: /)]);
});

test('abuse limits: AUTH_FAILURES_PER_15_MIN and the HTTP timeouts have safe defaults, are read, and are checked', () => {
  expect(loadConfig({ ...REQUIRED })).toMatchObject({
    authFailuresPer15Min: 20,
    httpTimeouts: { headersMs: 20_000, requestMs: 60_000, keepAliveMs: 65_000, writeMs: 30_000 },
    trustProxyHops: 0,
  });
  expect(
    loadConfig({
      ...REQUIRED,
      AUTH_FAILURES_PER_15_MIN: '0',
      HTTP_HEADERS_TIMEOUT_MS: '500',
      HTTP_REQUEST_TIMEOUT_MS: '1000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '2000',
      HTTP_WRITE_TIMEOUT_MS: '3000',
      TRUST_PROXY_HOPS: '1',
    }),
  ).toMatchObject({
    authFailuresPer15Min: 0,
    httpTimeouts: { headersMs: 500, requestMs: 1000, keepAliveMs: 2000, writeMs: 3000 },
    trustProxyHops: 1,
  });
  expect(problemsOf({ ...REQUIRED, HTTP_HEADERS_TIMEOUT_MS: '70000' })).toEqual([
    'HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS',
  ]);
  const problems = problemsOf({
    ...REQUIRED,
    AUTH_FAILURES_PER_15_MIN: '-1',
    TRUST_PROXY_HOPS: 'uno',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '5',
    HTTP_WRITE_TIMEOUT_MS: '5',
  });
  expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
    'AUTH_FAILURES_PER_15_MIN',
    'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    'HTTP_WRITE_TIMEOUT_MS',
    'TRUST_PROXY_HOPS',
  ]);
});

test('GraphQL execution limits: GRAPHQL_MAX_NODES (100,000) and GRAPHQL_DEADLINE_MS (10 s) are read and checked', () => {
  expect(loadConfig(REQUIRED).graphqlLimits).toEqual({ maxNodes: 100_000, deadlineMs: 10_000 });
  expect(loadConfig({ ...REQUIRED, GRAPHQL_MAX_NODES: '300', GRAPHQL_DEADLINE_MS: '250' }).graphqlLimits).toEqual({
    maxNodes: 300,
    deadlineMs: 250,
  });
  const problems = problemsOf({ ...REQUIRED, GRAPHQL_MAX_NODES: '0', GRAPHQL_DEADLINE_MS: 'diez' });
  expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['GRAPHQL_DEADLINE_MS', 'GRAPHQL_MAX_NODES']);
});

test('RATE_LIMIT_PER_MINUTE=0 turns the limit off; ENABLE_INIT=true enables init', () => {
  const config = loadConfig({
    ...REQUIRED,
    RATE_LIMIT_PER_MINUTE: '0',
    ENABLE_INIT: 'true',
    PRODUCTO_SVC_ADDR: 'producto-svc:50051',
  });
  expect(config.rateLimitPerMinute).toBe(0);
  expect(config.enableInit).toBe(true);
  expect(config.productoSvcAddr).toBe('producto-svc:50051');
});

test('PRODUCTO_SVC_ADDR / BODEGA_SVC_ADDR: host:port, [ipv6]:port, dns:///host:port (a headless Service) or an ipv4:/ipv6: list; nothing else', () => {
  const config = loadConfig({
    ...REQUIRED,
    PRODUCTO_SVC_ADDR: 'dns:///producto-svc-headless:50051',
    BODEGA_SVC_ADDR: '[::1]:50052',
  });
  expect(config.productoSvcAddr).toBe('dns:///producto-svc-headless:50051');
  expect(config.bodegaSvcAddr).toBe('[::1]:50052');
  expect(loadConfig({ ...REQUIRED, BODEGA_SVC_ADDR: 'dns:///10.0.0.7:50052' }).bodegaSvcAddr).toBe(
    'dns:///10.0.0.7:50052',
  );
  // A fixed list of replicas, balanced round-robin like a headless Service's addresses.
  for (const list of [
    'ipv4:10.0.0.1:50051',
    'ipv4:127.0.0.1:50051,127.0.0.1:50061',
    'ipv6:[::1]:50051,[fd00::2]:50051',
  ]) {
    expect(loadConfig({ ...REQUIRED, PRODUCTO_SVC_ADDR: list }).productoSvcAddr).toBe(list);
  }
  for (const junk of [
    'dns://producto-svc:50051',
    'dns:producto-svc:50051',
    'dns:///producto-svc',
    'dns:////producto-svc:50051',
    'dns://8.8.8.8/producto-svc:50051',
    'ipv4:producto-svc:50051',
    'ipv4:10.0.0.1:50051,',
    'ipv4:10.0.0.1',
    'ipv6:::1:50051',
    'http://producto-svc:50051',
    'producto-svc:50051/x',
    'producto-svc:123456',
    'dns:///producto svc:50051',
  ]) {
    expect([junk, problemsOf({ ...REQUIRED, PRODUCTO_SVC_ADDR: junk })]).toEqual([
      junk,
      ['PRODUCTO_SVC_ADDR: must be host:port, dns:///host:port or ipv4:a.b.c.d:port,... (a fixed list)'],
    ]);
  }
});
