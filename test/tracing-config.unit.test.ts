/**
 * Every service reads the two tracing variables (docs/contract.md §8.2) with
 * the same schema: OTEL_EXPORTER_OTLP_ENDPOINT optional, an http(s) URL without
 * credentials, tracing off when unset; OTEL_SERVICE_NAME optional (the
 * service's name otherwise).
 */
import { ConfigError, loadServiceConfig } from '@inventario/platform';
import { loadConfig as loadBffConfig } from '../services/bff/src/config';
import { loadConfig as loadNotifierConfig } from '../services/notifier/src/config';

const LOADERS: Array<[string, (env: NodeJS.ProcessEnv) => { otlpEndpoint?: string; otelServiceName?: string }]> = [
  [
    'gRPC services',
    (env) =>
      loadServiceConfig({ DATABASE_URL: 'mysql://root@127.0.0.1:3306/inventario_producto', ...env }, 50051, 9101),
  ],
  ['bff', (env) => loadBffConfig({ BFF_USER: 'ana', BFF_PASSWORD: 'p4ss', ...env })],
  [
    'notifier',
    (env) =>
      loadNotifierConfig({
        SMTP_URL: 'smtp://127.0.0.1:1025',
        SENDER_EMAIL: 'a@example.com',
        RECIPIENT_EMAIL: 'b@example.com',
        ...env,
      }),
  ],
];

function problemsOf(load: (env: NodeJS.ProcessEnv) => unknown, env: NodeJS.ProcessEnv): string[] {
  try {
    load(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe.each(LOADERS)('%s', (_, load) => {
  test('tracing is off by default', () => {
    const config = load({});
    expect(config.otlpEndpoint).toBeUndefined();
    expect(config.otelServiceName).toBeUndefined();
  });

  test('reads the OTLP endpoint and the service name', () => {
    expect(
      load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318', OTEL_SERVICE_NAME: 'inventario-bff' }),
    ).toMatchObject({
      otlpEndpoint: 'http://otel-collector:4318',
      otelServiceName: 'inventario-bff',
    });
  });

  test.each(['otel-collector:4318', 'grpc://otel-collector:4317', 'not a url'])(
    'refuses the endpoint %s, naming the variable',
    (endpoint) => {
      expect(problemsOf(load, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toEqual([
        expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT: /),
      ]);
    },
  );

  test('refuses an endpoint with user:password@ (it is logged and kept in the ConfigMap), without echoing it', () => {
    const problems = problemsOf(load, { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel:s3cret@collector.example:4318' });
    expect(problems).toEqual([expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT: must not carry credentials/)]);
    expect(problems.join()).not.toContain('s3cret');
  });

  test('refuses a service name with spaces', () => {
    expect(problemsOf(load, { OTEL_SERVICE_NAME: 'mi servicio' })).toEqual([
      expect.stringMatching(/^OTEL_SERVICE_NAME: /),
    ]);
  });
});
