/**
 * The chart provides every variable a service cannot start without, read
 * from the services' own config schemas (their built dist/), and keeps
 * credentials and every URL that may carry them (DATABASE_URL, NATS_URL,
 * SMTP_URL) in the Secret only. The values the ConfigMap,
 * the Secret and the Deployments' literal `value:` entries render from
 * values.yaml and values-dev.yaml are accepted by the services' loadConfig.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  ConfigError,
  natsCredentialsEnv,
  principalEnv,
  parseMysqlHosts,
  parseMysqlUrl,
  serviceConfigSchema,
  tracingEnv,
} from '@inventario/platform';
import { loadConfig as loadBffConfig } from '../../services/bff/dist/config';
import { loadConfig as loadNotifierConfig, loadProvisionConfig } from '../../services/notifier/dist/config';
import { loadConfig as loadProductoConfig } from '../../services/producto-svc/dist/config';
import { loadConfig as loadBodegaConfig } from '../../services/bodega-svc/dist/config';
import { loadConfig as loadIdentidadConfig } from '../../services/identidad-svc/dist/config';
import {
  chartTemplate,
  chartValues,
  envEntries,
  readText,
  readYaml,
  SERVICES,
  templateMapKeys,
  valueAt,
  type EnvEntry,
  type ServiceName,
} from './support/repo';
import {
  bindVariables,
  evaluate,
  GoInt,
  goString,
  queryEscape,
  scalar,
  type Helper,
  type Scope,
} from './support/template-expr';

const LOADERS: Record<ServiceName, (env: NodeJS.ProcessEnv) => unknown> = {
  'producto-svc': loadProductoConfig,
  'bodega-svc': loadBodegaConfig,
  'identidad-svc': loadIdentidadConfig,
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
  const shared = Object.keys(serviceConfigSchema(1, 2).in.shape);
  const keysIn = (file: string) => [...readText(file).matchAll(/^\s+([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1] as string);
  // Each gRPC service adds its own keys (config.ts) to the shared schema.
  // producto-svc and bodega-svc also spread in platform's principalEnv (who may call them).
  if (name === 'producto-svc' || name === 'bodega-svc')
    return [...shared, ...Object.keys(principalEnv), ...keysIn(`services/${name}/src/config.ts`)];
  if (name === 'identidad-svc') return [...shared, ...keysIn(`services/${name}/src/config.ts`)];
  // The notifier and the BFF (its read cache) also spread in platform's natsCredentialsEnv.
  return [
    ...keysIn(`services/${name}/src/config.ts`),
    ...Object.keys(tracingEnv),
    ...(name === 'notifier' || name === 'bff' ? Object.keys(natsCredentialsEnv) : []),
  ];
}

function chartEnv(service: (typeof SERVICES)[number]): EnvEntry[] {
  const texts = service.templates.map((t) => chartTemplate(t));
  const include = texts.join('\n');
  // The dict the service's include passes: `"name" "value"` (a Secret key) or `"name" true` (a switch).
  const dictValue = (name: string) => new RegExp(`"${name}" "([^"]+)"`).exec(include)?.[1];
  const dictHas = (name: string) => new RegExp(`"${name}" `).test(include);
  // `{{- if .name }} ... {{- end }}`: entries only for the services whose include sets `name`.
  const pruned = texts.map((text) =>
    text.replace(/\{\{-? if \.(\w+) -?\}\}([\s\S]*?)\{\{-? end -?\}\}/g, (_all, name: string, body: string) =>
      dictHas(name) ? body : '',
    ),
  );
  return pruned
    .flatMap((text) => envEntries(text))
    .map((e) => {
      const fromDict = /^\{\{ \.(\w+) \}\}$/.exec(e.key ?? '')?.[1];
      return fromDict ? { ...e, key: dictValue(fromDict) } : e;
    });
}

const SECRET_VARIABLES = [
  'BFF_USER',
  'BFF_PASSWORD',
  'DATABASE_URL',
  'SMTP_URL',
  'NATS_USER',
  'NATS_PASSWORD',
  'NATS_URL',
];
/** Names of variables whose value is or may hold a credential: any URL (user:password@), passwords, tokens, users. */
const CREDENTIAL_NAME = /_URL$|PASSWORD|SECRET|TOKEN|CREDS|_USER$|_KEY$/;
/** A duration is never a credential, whatever it is the duration of (PRINCIPAL_TOKEN_CACHE_MS). */
const mayHoldCredential = (name: string) => CREDENTIAL_NAME.test(name) && !/_(MS|SECONDS)$/.test(name);
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

  it("sets only variables the service's config schema declares (no typos)", () => {
    const declared = schemaKeys(name);
    expect(declared).toEqual(expect.arrayContaining(['LOG_LEVEL', 'METRICS_PORT', 'OTEL_EXPORTER_OTLP_ENDPOINT']));
    expect(env.map((e) => e.name).filter((v) => !declared.includes(v))).toEqual([]);
  });

  it('takes credentials and the URLs that may carry them from the Secret, never from a literal or the ConfigMap', () => {
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
  it('keep every credential out of the ConfigMap: no variable that is or may hold one, no URL with user:password@', () => {
    expect(configMapKeys.length).toBeGreaterThan(0);
    expect(configMapKeys.filter((k) => SECRET_VARIABLES.includes(k) || mayHoldCredential(k))).toEqual([]);
  });

  it('every Deployment reads a credential-bearing variable from the Secret', () => {
    const fromConfigMap = SERVICES.flatMap((s) =>
      chartEnv(s)
        .filter((e) => e.source !== 'secret' && mayHoldCredential(e.name))
        .map((e) => `${s.name} ${e.name}`),
    );
    expect(fromConfigMap).toEqual([]);
  });

  it('the example existingSecret holds exactly the keys of the chart Secret', () => {
    const example = readYaml<{ stringData: Record<string, string> }>('deploy/examples/existing-secret.yaml');
    expect(Object.keys(example.stringData).sort()).toEqual([...secretKeys].sort());
  });
});

/** Deep merge, as Helm layers values files and --set over values.yaml. */
function merged(...layers: Record<string, unknown>[]): Record<string, unknown> {
  const merge = (a: unknown, b: unknown): unknown =>
    typeof a === 'object' && a !== null && !Array.isArray(a) && typeof b === 'object' && b !== null && !Array.isArray(b)
      ? Object.fromEntries(
          [...new Set([...Object.keys(a), ...Object.keys(b)])].map((k) => [
            k,
            k in b
              ? merge((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])
              : (a as Record<string, unknown>)[k],
          ]),
        )
      : b;
  return layers.reduce<Record<string, unknown>>((acc, layer) => merge(acc, layer) as Record<string, unknown>, {});
}

/** TypeScript mirrors of the _helpers.tpl helpers the ConfigMap and the Secret include (see the checks below). */
const HELPERS: Record<string, Helper> = {
  'inventario.natsUrl': (root) => {
    const v = (root as { Values: unknown }).Values;
    if (valueAt(v, 'nats.enabled')) return `nats://${String(valueAt(v, 'nats.fullnameOverride'))}:4222`;
    const url = valueAt(v, 'externalNats.url');
    if (!url) throw new Error('externalNats.url is required');
    return url;
  },
  'inventario.databaseUrl': (arg) => {
    const { root, database, external } = arg as { root: { Values: unknown }; database: string; external: string };
    const mysql = valueAt(root.Values, 'mysql') as {
      enabled: boolean;
      fullnameOverride: string;
      auth: { username: string; password: string };
    };
    if (!mysql.enabled) {
      if (!external) throw new Error('an external database URL is required');
      return external;
    }
    const escape = (text: string) => queryEscape(text).split('+').join('%20');
    return `mysql://${escape(mysql.auth.username)}:${escape(mysql.auth.password)}@${mysql.fullnameOverride}:3306/${database}`;
  },
  'inventario.tokensDeServicio': (root) => {
    const tokens = valueAt((root as { Values: unknown }).Values, 'secrets.serviceTokens') as Record<string, string>;
    const cuentas: [string, string, string][] = [
      ['productoSvc', 'producto-svc', 'ADMIN'],
      ['bodegaSvc', 'bodega-svc', 'ADMIN'],
      ['notifier', 'notifier', 'LECTOR'],
      ['seed', 'inventario-seed', 'ADMIN'],
    ];
    return cuentas
      .filter(([key]) => tokens[key])
      .map(([key, nombre, rol]) => `${nombre}:${rol}=${tokens[key]}`)
      .join(',');
  },
  'inventario.smtpUrl': (root) => {
    const v = (root as { Values: unknown }).Values;
    const url = valueAt(v, 'notifier.smtpUrl');
    if (url) return url;
    if (valueAt(v, 'mailpit.enabled')) return `smtp://mailpit:${goString(valueAt(v, 'mailpit.smtpPort'))}`;
    throw new Error('notifier.smtpUrl is required');
  },
};

/** `KEY: {{ expr }}` lines of a template's `data:` / `stringData:` map, by key. */
function mapExpressions(text: string, section: 'data' | 'stringData'): Record<string, string> {
  const block = text.split(new RegExp(`^${section}:\\s*$`, 'm'))[1] ?? '';
  return Object.fromEntries(
    [...block.matchAll(/^ {2}([A-Za-z0-9_.-]+): (.+)$/gm)].map((m) => [m[1] as string, m[2] as string]),
  );
}

/** The environment a service's container gets from the chart rendered with `values`. */
function renderedEnv(service: (typeof SERVICES)[number], values: Record<string, unknown>): NodeJS.ProcessEnv {
  const top = {
    Values: values,
    Release: { Name: 'inventario', Namespace: 'inventario', Service: 'Helm' },
    Chart: { Name: 'inventario', Version: '0.1.0', AppVersion: '0.1.0' },
  };
  const topScope: Scope = { dot: top, root: top, vars: {}, helpers: HELPERS };
  const configMap = mapExpressions(chartTemplate('templates/config.yaml'), 'data');
  const secret = mapExpressions(chartTemplate('templates/secret.yaml'), 'stringData');
  const texts = service.templates.map((t) => chartTemplate(t));
  // The gRPC services' shared template runs with the dict its include passes as `.` and `$`.
  const include = /include "inventario\.grpcService" (\(dict [^)]*\))/.exec(texts.join('\n'))?.[1];
  const dot = include ? evaluate(include, topScope) : top;
  const scope: Scope = { dot, root: dot, vars: {}, helpers: HELPERS };
  const deployment = texts.find((t) => /^kind: Deployment$/m.test(t)) ?? '';
  bindVariables(deployment, scope);
  const literals = Object.fromEntries(
    [...deployment.matchAll(/- name: ([A-Z][A-Z0-9_]*)\n\s+value: (.+)/g)].map((m) => [m[1] as string, m[2] as string]),
  );
  const env: NodeJS.ProcessEnv = {};
  for (const entry of chartEnv(service)) {
    const text =
      entry.source === 'configMap'
        ? configMap[entry.key ?? '']
        : entry.source === 'secret'
          ? secret[entry.key ?? '']
          : literals[entry.name];
    if (text === undefined) throw new Error(`${service.name}: no value for ${entry.name}`);
    env[entry.name] = scalar(text, entry.source === 'value' ? scope : topScope);
  }
  return env;
}

const PASSWORD = 'p4ss w+rd@:/%ñ';
/** values.yaml with what production must add (rendering fails without it). */
const PRODUCTION = merged(chartValues(), {
  secrets: {
    bffUser: 'ops',
    bffPassword: PASSWORD,
    natsPasswords: {
      productoSvc: PASSWORD,
      bodegaSvc: 'b0dega',
      identidadSvc: '1dentidad',
      notifier: 'n0tifier',
      bff: 'bff-s3cret',
      provisioner: 'pr0v',
      dlqReplay: 'dlq-r3play',
    },
    serviceTokens: Object.fromEntries(
      ['productoSvc', 'bodegaSvc', 'notifier', 'seed'].map((key, i) => [
        key,
        `inv_${1_000_000_001 + i}_${randomBytes(32).toString('base64url')}`,
      ]),
    ),
    identidadPrincipalSigningKey: generateKeyPairSync('ed25519')
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString(),
  },
  externalDatabase: {
    productoUrl: 'mysql://inventario:s3cret@mysql.example.internal:3306/inventario_producto',
    bodegaUrl: 'mysql://inventario:s3cret@mysql.example.internal:3306/inventario_bodega',
  },
  externalNats: { url: 'nats://inventario:s3cret@nats.example.internal:4222' },
  notifier: { smtpUrl: 'smtp://mailer:s3cret@smtp.example.internal:587' },
});

/** The ConfigMap's data as rendered with `values`. */
function renderedConfigMap(values: Record<string, unknown>): Record<string, string> {
  const top = {
    Values: values,
    Release: { Name: 'inventario', Namespace: 'inventario', Service: 'Helm' },
    Chart: { Name: 'inventario', Version: '0.1.0', AppVersion: '0.1.0' },
  };
  const scope: Scope = { dot: top, root: top, vars: {}, helpers: HELPERS };
  const data = mapExpressions(chartTemplate('templates/config.yaml'), 'data');
  return Object.fromEntries(Object.entries(data).map(([key, text]) => [key, scalar(text, scope)]));
}
const DEVELOPMENT = merged(chartValues(), chartValues('values-dev.yaml'));
/** values-production.yaml (NATS and MySQL as clusters) over the required production values. */
const CLUSTERS = merged(PRODUCTION, chartValues('values-production.yaml'));

describe.each([
  ['values.yaml (with the required production values)', PRODUCTION],
  ['values.yaml + values-dev.yaml', DEVELOPMENT],
  ['values.yaml + values-production.yaml', CLUSTERS],
])('the chart rendered with %s', (_name, values) => {
  it.each(SERVICES.map((s) => [s.name, s] as const))(
    'gives %s an environment its loadConfig accepts',
    (name, service) => {
      const env = renderedEnv(service, values);
      expect(() => LOADERS[name](env)).not.toThrow();
    },
  );

  it('gives producto-svc, bodega-svc and the notifier the same stream limits, those of values (every one of them sets them at start)', () => {
    const limits = [SERVICES[0], SERVICES[1], SERVICES[3]].map(
      (service) => (LOADERS[service.name](renderedEnv(service, values)) as { streamLimits: unknown }).streamLimits,
    );
    const expected = {
      maxAgeMs: Number(valueAt(values, 'config.natsStreamMaxAgeHours')) * 3600_000,
      maxBytes: Number(valueAt(values, 'config.natsStreamMaxBytes')),
    };
    expect(expected.maxAgeMs).toBeGreaterThan(0);
    expect(limits).toEqual([expected, expected, expected]);
  });

  it('renders a ConfigMap with no credential in any value, while every URL with one reaches its service from the Secret', () => {
    const configMap = renderedConfigMap(values);
    expect(Object.keys(configMap).length).toBeGreaterThan(5);
    expect(
      Object.entries(configMap).filter(([, value]) => value.includes('s3cret') || /:\/\/[^/?#\s]*@/.test(value)),
    ).toEqual([]);
    if (values === PRODUCTION) {
      for (const service of SERVICES.filter((s) => s.name !== 'bff')) {
        expect(renderedEnv(service, values).NATS_URL).toBe('nats://inventario:s3cret@nats.example.internal:4222');
      }
    }
  });

  it('gives bodega-svc the period of its ledger verification from values (the gauge InventarioExistenciasInconsistentes watches)', () => {
    const bodega = loadBodegaConfig(renderedEnv(SERVICES[1], values));
    expect(valueAt(values, 'bodegaSvc.existenciasVerificacionIntervalMs')).toBe(900_000);
    expect(bodega.existenciasVerificacionIntervalMs).toBe(900_000);
  });

  it('points the BFF at the headless Services, trusts Envoy and the proxies in front of it, and drains on shutdown', () => {
    const bff = loadBffConfig(renderedEnv(SERVICES[2], values));
    expect(bff).toMatchObject({
      productoSvcAddr: `dns:///producto-svc-headless:${String(valueAt(values, 'productoSvc.grpcPort'))}`,
      bodegaSvcAddr: `dns:///bodega-svc-headless:${String(valueAt(values, 'bodegaSvc.grpcPort'))}`,
      trustProxyHops: (valueAt(values, 'envoy.trustedProxyHops') as number) + 1,
      shutdownDrainMs: valueAt(values, 'bff.shutdown.drainMs'),
      shutdownTimeoutMs: valueAt(values, 'bff.shutdown.timeoutMs'),
    });
  });

  it("points each gRPC service's reconciliation at the other's headless Service", () => {
    expect(loadProductoConfig(renderedEnv(SERVICES[0], values)).bodegaSvcAddr).toBe(
      `dns:///bodega-svc-headless:${String(valueAt(values, 'bodegaSvc.grpcPort'))}`,
    );
    expect(loadBodegaConfig(renderedEnv(SERVICES[1], values)).productoSvcAddr).toBe(
      `dns:///producto-svc-headless:${String(valueAt(values, 'productoSvc.grpcPort'))}`,
    );
  });
});

describe('values the chart renders', () => {
  it('are whole numbers even when large (Helm reads values as float64, which would print as 1e+06)', () => {
    const values = merged(PRODUCTION, {
      bff: { rateLimitPerMinute: 1_000_000 },
      envoy: { trustedProxyHops: 2 },
      bodegaSvc: { existenciasVerificacionIntervalMs: 3_600_000 },
    });
    expect(goString(1_000_000)).toBe('1e+06');
    const bff = loadBffConfig(renderedEnv(SERVICES[2], values));
    expect(bff.rateLimitPerMinute).toBe(1_000_000);
    expect(bff.trustProxyHops).toBe(3);
    expect(loadBodegaConfig(renderedEnv(SERVICES[1], values)).existenciasVerificacionIntervalMs).toBe(3_600_000);
    expect(goString(new GoInt(1_000_000))).toBe('1000000');
  });

  it('pass migrations.migrateOnStart to both gRPC services; false (no DDL at start) only with the migration Job on', () => {
    for (const flag of [true, false]) {
      const values = merged(PRODUCTION, { migrations: { migrateOnStart: flag } });
      expect(loadProductoConfig(renderedEnv(SERVICES[0], values)).migrateOnStart).toBe(flag);
      expect(loadBodegaConfig(renderedEnv(SERVICES[1], values)).migrateOnStart).toBe(flag);
    }
    expect(valueAt(chartValues(), 'migrations.migrateOnStart')).toBe(true);
    expect(chartTemplate('templates/_grpc-service.tpl')).toContain(
      '{{- if and (not $root.Values.migrations.migrateOnStart) (not $root.Values.migrations.enabled) }}{{ fail',
    );
    // The Job may use a user allowed DDL of its own; the services' Secret otherwise.
    expect(chartTemplate('templates/migrations-job.yaml')).toContain(
      '{{- $secret := .Values.migrations.existingSecret | default .Values.secrets.existingSecret | default "inventario-migrations" }}',
    );
  });

  it('escape the bundled MySQL password so the services decode it unchanged (a space as %20, not +)', () => {
    expect(chartTemplate('templates/_helpers.tpl')).toContain(
      '(urlquery $mysql.auth.username | replace "+" "%20") (urlquery $password | replace "+" "%20")',
    );
    const values = merged(DEVELOPMENT, { mysql: { auth: { username: 'in ventario', password: PASSWORD } } });
    const env = renderedEnv(SERVICES[0], values);
    expect(parseMysqlUrl(env.DATABASE_URL ?? '')).toMatchObject({
      user: 'in ventario',
      password: PASSWORD,
      host: 'inventario-mysql',
      database: 'inventario_producto',
    });
    // What urlquery alone would give: a "+" the services read as a plus sign.
    expect(decodeURIComponent(queryEscape('a b'))).toBe('a+b');
  });

  it('give the provisioning Job the stream settings the ConfigMap gives the services, which its loader accepts, as user provisioner', () => {
    const values = merged(PRODUCTION, {
      config: { natsStreamMaxBytes: 1_073_741_824, natsDeadLetterMaxBytes: 67_108_864 },
    });
    const top = { Values: values, Release: { Name: 'inventario', Namespace: 'inventario', Service: 'Helm' } };
    const scope: Scope = { dot: top, root: top, vars: {}, helpers: HELPERS };
    const job = chartTemplate('templates/nats-provision-job.yaml');
    const literals = Object.fromEntries(
      [...job.matchAll(/- name: ([A-Z][A-Z0-9_]*)\n\s+value: (.+)/g)].map((m) => [
        m[1] as string,
        scalar(m[2] as string, scope),
      ]),
    );
    const configMap = renderedConfigMap(values);
    expect(Object.keys(literals).sort()).toEqual([
      'NATS_DLQ_MAX_BYTES',
      'NATS_STREAM',
      'NATS_STREAM_MAX_AGE_HOURS',
      'NATS_STREAM_MAX_BYTES',
      'NATS_STREAM_REPLICAS',
      'NATS_SUBJECT_PREFIX',
    ]);
    for (const [name, value] of Object.entries(literals)) expect([name, value]).toEqual([name, configMap[name]]);
    const config = loadProvisionConfig({
      ...literals,
      NATS_URL: 'nats://nats.example.internal:4222',
      NATS_USER: 'provisioner',
      NATS_PASSWORD: 'pr0v',
    });
    expect(config.jetStream).toMatchObject({ limits: { maxBytes: 1_073_741_824 }, deadLetterMaxBytes: 67_108_864 });
    for (const key of ['nats-url', 'provisioner-nats-user', 'provisioner-nats-password'])
      expect(job).toContain(`secretKeyRef: { name: {{ $secret }}, key: ${key} }`);
    // After the bundled NATS (and its new users) exist; before the pods roll with an external one.
    expect(job).toContain(
      '{{- $hook := ternary "post-install,post-upgrade" "pre-install,pre-upgrade" .Values.nats.enabled }}',
    );
  });

  it("mirror the chart's helpers (the TypeScript above follows _helpers.tpl)", () => {
    const helpers = chartTemplate('templates/_helpers.tpl');
    expect(helpers).toContain('{{- printf "nats://%s:4222" .Values.nats.fullnameOverride -}}');
    expect(helpers).toContain('{{- printf "mysql://%s:%s@%s:3306/%s"');
    expect(helpers).toContain('{{- printf "smtp://mailpit:%v" .Values.mailpit.smtpPort -}}');
    for (const cuenta of [
      '(printf "producto-svc:ADMIN=%s" $t.productoSvc)',
      '(printf "bodega-svc:ADMIN=%s" $t.bodegaSvc)',
      '(printf "notifier:LECTOR=%s" $t.notifier)',
      '(printf "inventario-seed:ADMIN=%s" $t.seed)',
    ])
      expect(helpers).toContain(cuenta);
  });

  it('require a principal at producto-svc and bodega-svc, and give identidad-svc every internal caller its token', () => {
    for (const values of [PRODUCTION, DEVELOPMENT]) {
      const identidad = loadIdentidadConfig(renderedEnv(SERVICES[4], values));
      const tokens = valueAt(values, 'secrets.serviceTokens') as Record<string, string>;
      expect(identidad.cuentasDeServicio.map((c) => [c.usuario, c.rol])).toEqual([
        ['producto-svc', 'ADMIN'],
        ['bodega-svc', 'ADMIN'],
        ['notifier', 'LECTOR'],
        ['inventario-seed', 'ADMIN'],
      ]);
      const presented = [SERVICES[0], SERVICES[1], SERVICES[3]].map((s) => renderedEnv(s, values).SERVICE_TOKEN);
      expect(presented).toEqual([tokens.productoSvc, tokens.bodegaSvc, tokens.notifier]);
      for (const service of [SERVICES[0], SERVICES[1]])
        expect(renderedEnv(service, values).REQUIRE_PRINCIPAL).toBe('true');
    }
    const seed = chartTemplate('templates/seed-job.yaml');
    expect(seed).toMatch(/- name: SERVICE_TOKEN\n\s+valueFrom:\n\s+secretKeyRef:\n[^\n]+\n\s+key: seed-token/);
  });
});

describe('values-production.yaml (NATS and MySQL as clusters)', () => {
  it('gives every service that makes the stream or its consumers, and the provisioning Job, NATS_STREAM_REPLICAS=3, with the bundled NATS as a three-node cluster', () => {
    expect(valueAt(CLUSTERS, 'nats.enabled')).toBe(true);
    expect(valueAt(CLUSTERS, 'nats.config.cluster.enabled')).toBe(true);
    expect(valueAt(CLUSTERS, 'nats.config.cluster.replicas')).toBe(3);
    expect((loadProductoConfig(renderedEnv(SERVICES[0], CLUSTERS)) as { streamReplicas: number }).streamReplicas).toBe(
      3,
    );
    expect((loadBodegaConfig(renderedEnv(SERVICES[1], CLUSTERS)) as { streamReplicas: number }).streamReplicas).toBe(3);
    expect(loadNotifierConfig(renderedEnv(SERVICES[3], CLUSTERS)).streamReplicas).toBe(3);
    const top = { Values: CLUSTERS, Release: { Name: 'inventario', Namespace: 'inventario', Service: 'Helm' } };
    const scope: Scope = { dot: top, root: top, vars: {}, helpers: HELPERS };
    const job = chartTemplate('templates/nats-provision-job.yaml');
    const replicas = /- name: NATS_STREAM_REPLICAS\n\s+value: (.+)/.exec(job)?.[1] ?? '';
    expect(loadProvisionConfig({ NATS_STREAM_REPLICAS: scalar(replicas, scope) }).jetStream.replicas).toBe(3);
    // The default stays one server, one copy.
    expect(loadProductoConfig(renderedEnv(SERVICES[0], PRODUCTION)).streamReplicas).toBe(1);
  });

  it('points every gRPC service at an external database by a list of three hosts, which its loader accepts', () => {
    expect(valueAt(CLUSTERS, 'mysql.enabled')).toBe(false);
    for (const service of [SERVICES[0], SERVICES[1], SERVICES[4]]) {
      const url = renderedEnv(service, CLUSTERS).DATABASE_URL ?? '';
      expect(parseMysqlHosts(url)).toHaveLength(3);
      expect(() => LOADERS[service.name](renderedEnv(service, CLUSTERS))).not.toThrow();
    }
  });
});

describe('the value-expression evaluator', () => {
  it('reads `.`, `$`, variables (even one named $root), pipelines and the functions the chart uses', () => {
    const top = { Values: { a: { port: 8080, big: 1_000_000, name: 'x' } } };
    const scope: Scope = {
      dot: { root: top, component: 'c' },
      root: { root: top, component: 'c' },
      vars: {},
      helpers: {},
    };
    bindVariables('{{- $root := .root -}}{{- $v := $root.Values.a -}}', scope);
    expect(scalar('{{ $v.port | quote }}', scope)).toBe('8080');
    expect(scalar('{{ $.component }}', scope)).toBe('c');
    expect(scalar('{{ printf "dns:///%s-headless:%d" .component ($v.port | int) | quote }}', scope)).toBe(
      'dns:///c-headless:8080',
    );
    expect(scalar('{{ $v.big | quote }}', scope)).toBe('1e+06');
    expect(scalar('{{ $v.big | int64 | quote }}', scope)).toBe('1000000');
    expect(scalar('{{ add 1 ($v.missing | int) | quote }}', scope)).toBe('1');
    expect(scalar('"1"', scope)).toBe('1');
    expect(() => scalar('{{ $v.name | upper }}', scope)).toThrow(/not modelled/);
    expect(() => scalar('{{ $nope.x }}', scope)).toThrow(/undefined variable/);
  });
});
