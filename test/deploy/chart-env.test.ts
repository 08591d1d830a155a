/**
 * The chart provides every variable a service cannot start without, read
 * from the services' own config schemas (their built dist/), and keeps
 * credentials and SMTP_URL in the Secret only.
 */
import { ConfigError, serviceConfigSchema, tracingEnv } from '@inventario/platform';
import { loadConfig as loadBffConfig } from '../../services/bff/dist/config';
import { loadConfig as loadNotifierConfig } from '../../services/notifier/dist/config';
import { loadConfig as loadProductoConfig } from '../../services/producto-svc/dist/config';
import { loadConfig as loadBodegaConfig } from '../../services/bodega-svc/dist/config';
import { chartTemplate, envEntries, readText, readYaml, SERVICES, templateMapKeys, type EnvEntry, type ServiceName } from './support/repo';

const LOADERS: Record<ServiceName, (env: NodeJS.ProcessEnv) => unknown> = {
  'producto-svc': loadProductoConfig,
  'bodega-svc': loadBodegaConfig,
  bff: loadBffConfig,
  notifier: loadNotifierConfig,
};

/** The variables a schema rejects when absent: those without a default. */
function requiredVariables(load: (env: NodeJS.ProcessEnv) => unknown): string[] {
  try {
    load({});
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.problems.map((problem) => problem.split(':')[0] as string).sort();
  }
  return [];
}

/**
 * A service's env entries; the gRPC services' shared template takes its
 * Secret key from the `databaseKey` its include passes.
 */
/**
 * The variables a service's zod schema declares: the gRPC services' from
 * platform's serviceConfigSchema itself; the BFF's and the notifier's (whose
 * schemas are not exported) from the keys of their config.ts object
 * literals, plus platform's tracingEnv they spread in.
 */
function schemaKeys(name: ServiceName): string[] {
  if (name === 'producto-svc' || name === 'bodega-svc') return Object.keys(serviceConfigSchema(1, 2).in.shape);
  const keysIn = (file: string) => [...readText(file).matchAll(/^\s+([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1] as string);
  return [...keysIn(`services/${name}/src/config.ts`), ...Object.keys(tracingEnv)];
}

function chartEnv(service: (typeof SERVICES)[number]): EnvEntry[] {
  const texts = service.templates.map((t) => chartTemplate(t));
  const databaseKey = /"databaseKey" "([a-z-]+)"/.exec(texts.join('\n'))?.[1];
  return texts
    .flatMap((text) => envEntries(text))
    .map((e) => (e.key === '{{ .databaseKey }}' ? { ...e, key: databaseKey } : e));
}

const SECRET_VARIABLES = ['BFF_USER', 'BFF_PASSWORD', 'DATABASE_URL', 'SMTP_URL'];
const configMapKeys = templateMapKeys(chartTemplate('templates/config.yaml'), 'data');
const secretKeys = templateMapKeys(chartTemplate('templates/secret.yaml'), 'stringData');

describe.each(SERVICES.map((s) => [s.name, s] as const))('the chart environment of %s', (name, service) => {
  const env = chartEnv(service);

  it('sets every variable the service config requires (no default in its schema)', () => {
    const required = requiredVariables(LOADERS[name]);
    // Every service has at least one: credentials, a database or an SMTP server.
    expect(required.length).toBeGreaterThan(0);
    expect(required.filter((v) => !env.some((e) => e.name === v))).toEqual([]);
  });

  it('sets only variables the service\'s config schema declares (no typos)', () => {
    const declared = schemaKeys(name);
    expect(declared).toEqual(expect.arrayContaining(['LOG_LEVEL', 'METRICS_PORT', 'OTEL_EXPORTER_OTLP_ENDPOINT']));
    expect(env.map((e) => e.name).filter((v) => !declared.includes(v))).toEqual([]);
  });

  it('takes credentials and SMTP_URL from the Secret, never from a literal or the ConfigMap', () => {
    for (const entry of env.filter((e) => SECRET_VARIABLES.includes(e.name))) {
      expect({ name: entry.name, source: entry.source }).toEqual({ name: entry.name, source: 'secret' });
    }
  });

  it('references only keys the ConfigMap and the Secret define', () => {
    for (const entry of env) {
      if (entry.source === 'configMap') expect(configMapKeys).toContain(entry.key);
      if (entry.source === 'secret') expect(secretKeys).toContain(entry.key);
    }
  });
});

describe('the gRPC services', () => {
  it('each reads the Secret key of its own database', () => {
    expect(chartTemplate('templates/producto-svc.yaml')).toContain('"databaseKey" "producto-database-url"');
    expect(chartTemplate('templates/bodega-svc.yaml')).toContain('"databaseKey" "bodega-database-url"');
  });
});

describe('the ConfigMap and the Secret', () => {
  it('keep every credential out of the ConfigMap', () => {
    expect(configMapKeys.length).toBeGreaterThan(0);
    expect(configMapKeys.filter((k) => SECRET_VARIABLES.includes(k) || /PASSWORD|DATABASE_URL|SMTP/.test(k))).toEqual([]);
  });

  it('the example existingSecret holds exactly the keys of the chart Secret', () => {
    const example = readYaml<{ stringData: Record<string, string> }>('deploy/examples/existing-secret.yaml');
    expect(Object.keys(example.stringData).sort()).toEqual([...secretKeys].sort());
  });
});
