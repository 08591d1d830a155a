/**
 * Every metric the Grafana dashboard and the alert rules query is one the
 * services export (or a series Prometheus makes itself per target, like
 * `up`), and every label they match on or group by is on those series or is
 * a target label Prometheus adds: the four apps run in-process (ephemeral
 * ports, this file's databases, stream and KV bucket) and their /metrics
 * are scraped. The chart's HTTP probe paths are asked on the same running apps.
 */
import { createLogger } from '@inventario/platform';
import {
  connectTestNats,
  createTestDatabase,
  deleteStream,
  TEST_NATS_URL,
  testEventNamespace,
  uniqueName,
  type TestDatabase,
} from '@inventario/testkit';
import { startApp as startBff } from '../../services/bff/dist/app';
import { loadConfig as loadBffConfig } from '../../services/bff/dist/config';
import { startApp as startNotifier } from '../../services/notifier/dist/app';
import { loadConfig as loadNotifierConfig } from '../../services/notifier/dist/config';
import { startApp as startProducto } from '../../services/producto-svc/dist/app';
import { loadConfig as loadProductoConfig } from '../../services/producto-svc/dist/config';
import { startApp as startBodega } from '../../services/bodega-svc/dist/app';
import { loadConfig as loadBodegaConfig } from '../../services/bodega-svc/dist/config';
import { chartTemplate, readText, readYaml } from './support/repo';

/** PromQL words that are not metric names. */
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/**
 * Series Prometheus writes itself for every scrape target: they carry only
 * the target's labels, and no service exports them.
 */
const TARGET_HEALTH_SERIES = new Set(['up']);

/**
 * Labels Prometheus (the Operator's ServiceMonitor) attaches to every scraped
 * series from the target: job, instance, namespace, pod, container, endpoint,
 * service (which the services also export, honorLabels keeps theirs).
 */
const TARGET_LABELS = new Set(['job', 'instance', 'namespace', 'pod', 'container', 'endpoint', 'service']);

/** The expression without its string literals (their text is not PromQL). */
function withoutStrings(expr: string): string {
  return expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
}

/**
 * The metric names a PromQL expression reads: identifiers left once
 * strings, label matchers, ranges and label lists (`by (...)`) are
 * removed, that are neither function calls nor keywords.
 */
function metricNames(expr: string): string[] {
  const bare = withoutStrings(expr)
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/(?<![$\w.])([A-Za-z_:][A-Za-z0-9_:]*)\b(?!\s*\()/g)]
    .map((m) => m[1] as string)
    .filter((name) => !KEYWORDS.has(name.toLowerCase()));
}

/** The label names of each selector's matchers (`metric{a="x",b=~"y"}`): [metric, label][]. */
function matcherLabels(expr: string): [string, string][] {
  return [...withoutStrings(expr).matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\s*\{([^}]*)\}/g)].flatMap(
    ([, metric, matchers]) =>
      [...(matchers ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map(
        (m) => [metric as string, m[1] as string] as [string, string],
      ),
  );
}

/** The label names of `by (...)`, `without (...)`, `on (...)`, `ignoring (...)`, `group_left (...)`, `group_right (...)`. */
function groupingLabels(expr: string): string[] {
  return [
    ...withoutStrings(expr).matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g),
  ].flatMap((m) =>
    (m[1] ?? '')
      .split(',')
      .map((l) => l.trim())
      .filter(Boolean),
  );
}

/** Every sample name of a scrape with the label names seen on its samples. */
function labelsBySeries(scrape: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [, name, labels] of scrape.matchAll(/^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? \S+$/gm)) {
    const set = out.get(name as string) ?? new Set<string>();
    for (const m of (labels ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)="(?:[^"\\]|\\.)*"/g)) set.add(m[1] as string);
    out.set(name as string, set);
  }
  return out;
}

/** For every sample name of a scrape, the values seen of each of its labels. */
function labelValuesBySeries(scrape: string): Map<string, Map<string, Set<string>>> {
  const out = new Map<string, Map<string, Set<string>>>();
  for (const [, name, labels] of scrape.matchAll(/^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? \S+$/gm)) {
    const byLabel = out.get(name as string) ?? new Map<string, Set<string>>();
    for (const m of (labels ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      const values = byLabel.get(m[1] as string) ?? new Set<string>();
      values.add(m[2] as string);
      byLabel.set(m[1] as string, values);
    }
    out.set(name as string, byLabel);
  }
  return out;
}

/** `name{a="x",b="y"}` of a promtool input series: its name and labels. */
function parseSeries(series: string): { name: string; labels: Record<string, string> } {
  const m = /^([A-Za-z_:][A-Za-z0-9_:]*)\{(.*)\}$/.exec(series);
  if (!m) return { name: series, labels: {} };
  return {
    name: m[1] as string,
    labels: Object.fromEntries(
      [...(m[2] ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [
        l[1] as string,
        l[2] as string,
      ]),
    ),
  };
}

/**
 * Labels whose values the unit tests must take from a real scrape: the
 * service's name and the fixed sets (breakers, consumers, event types).
 * Request labels (method, route, status_code) depend on the traffic.
 */
const FIXED_VALUE_LABELS = new Set(['service', 'breaker', 'consumer', 'event_type']);

/** The sample names a scrape can hold: every family (# TYPE), with a histogram's _bucket/_sum/_count. */
function exportedNames(scrape: string): string[] {
  return [...scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
    type === 'histogram'
      ? [`${name}_bucket`, `${name}_sum`, `${name}_count`]
      : type === 'summary'
        ? [`${name}`, `${name}_sum`, `${name}_count`]
        : [name as string],
  );
}

const dashboard = JSON.parse(readText('deploy/helm/inventario/dashboards/inventario.json')) as {
  panels: { targets?: { expr: string }[] }[];
};
const rules = readYaml<{ groups: { rules: { alert: string; expr: string }[] }[] }>(
  'deploy/helm/inventario/alerts/inventario-rules.yaml',
);
const expressions = [
  ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ['dashboard', t.expr] as const)),
  ...rules.groups.flatMap((g) => g.rules.map((r) => [r.alert, r.expr] as const)),
];
/** The input series of the alert rules' promtool unit tests (test/deploy/alert-rules.unit.test.ts runs them). */
const unitTestSeries = readYaml<{ tests: { input_series: { series: string }[] }[] }>(
  'test/deploy/alerts/inventario-rules.test.yaml',
).tests.flatMap((t) => t.input_series.map((i) => parseSeries(i.series)));
const queried = expressions.flatMap(([where, expr]) => metricNames(expr).map((name) => [where, name] as const));

describe('metrics in the dashboard and the alert rules', () => {
  const ns = testEventNamespace();
  const bucket = uniqueName('notifier_sent');
  const logger = createLogger('deploy-metrics-test', 'silent');
  const base = {
    NATS_URL: TEST_NATS_URL,
    NATS_STREAM: ns.stream,
    NATS_SUBJECT_PREFIX: ns.prefix,
    METRICS_PORT: '0',
    LOG_LEVEL: 'silent',
    SHUTDOWN_DRAIN_MS: '0',
  };
  const databases: TestDatabase[] = [];
  const stops: (() => Promise<void>)[] = [];
  const scrapes: Record<string, string> = {};
  const ports = { bffHttp: 0, notifierMetrics: 0 };

  beforeAll(async () => {
    const [productoDb, bodegaDb] = await Promise.all([
      createTestDatabase('dep_metr_p'),
      createTestDatabase('dep_metr_b'),
    ]);
    databases.push(productoDb, bodegaDb);
    const producto = await startProducto(
      loadProductoConfig({ ...base, DATABASE_URL: productoDb.url, GRPC_PORT: '0' }),
      logger,
    );
    stops.push(() => producto.stop());
    const bodega = await startBodega(
      loadBodegaConfig({
        ...base,
        DATABASE_URL: bodegaDb.url,
        GRPC_PORT: '0',
        PRODUCTO_SVC_ADDR: `127.0.0.1:${producto.grpcPort}`,
      }),
      logger,
    );
    stops.push(() => bodega.stop());
    await Promise.all([producto.ready, bodega.ready]);
    const bff = await startBff(
      loadBffConfig({
        ...base,
        PORT: '0',
        BFF_USER: 'ops',
        BFF_PASSWORD: 'secret',
        PRODUCTO_SVC_ADDR: `127.0.0.1:${producto.grpcPort}`,
        BODEGA_SVC_ADDR: `127.0.0.1:${bodega.grpcPort}`,
      }),
      logger,
    );
    stops.push(() => bff.stop());
    // Nothing listens there: the notifier starts anyway (SMTP is not a start-up dependency).
    const notifier = await startNotifier(
      loadNotifierConfig({
        ...base,
        SMTP_URL: 'smtp://127.0.0.1:9',
        SENDER_EMAIL: 'a@example.com',
        RECIPIENT_EMAIL: 'b@example.com',
        NOTIFIER_SENT_BUCKET: bucket,
      }),
      logger,
    );
    stops.push(() => notifier.stop());

    // Traffic through the BFF, so request and gRPC client series exist.
    const auth = { authorization: `Basic ${Buffer.from('ops:secret').toString('base64')}` };
    expect((await fetch(`http://127.0.0.1:${bff.httpPort}/api/bodegas`, { headers: auth })).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${bff.httpPort}/api/productos/1`, { headers: auth })).status).toBe(404);

    ports.bffHttp = bff.httpPort;
    ports.notifierMetrics = notifier.metricsPort;
    const metricsPorts = {
      'producto-svc': producto.metricsPort,
      'bodega-svc': bodega.metricsPort,
      bff: bff.metricsPort,
      notifier: notifier.metricsPort,
    };
    for (const [service, port] of Object.entries(metricsPorts)) {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      scrapes[service] = await res.text();
    }
  });

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
    await Promise.all(databases.map((db) => db.drop()));
    const nc = await connectTestNats();
    await deleteStream(nc, ns.stream);
    await deleteStream(nc, `KV_${bucket}`);
    await nc.close();
  });

  it('reads metric names and label names out of PromQL', () => {
    const expr =
      'histogram_quantile(0.95, sum by (le, route) (rate(x_seconds_bucket{a=~"5..",b!="}"}[$__rate_interval]))) / y_total > 0.05 or absent(up{job="bff"})';
    expect(metricNames(expr)).toEqual(['x_seconds_bucket', 'y_total', 'up']);
    expect(matcherLabels(expr)).toEqual([
      ['x_seconds_bucket', 'a'],
      ['x_seconds_bucket', 'b'],
      ['up', 'job'],
    ]);
    expect(groupingLabels(expr)).toEqual(['le', 'route']);
    expect(labelsBySeries('# TYPE x counter\nx_total{a="1",b="q\\"x=\\""} 3\nup 1\n')).toEqual(
      new Map([
        ['x_total', new Set(['a', 'b'])],
        ['up', new Set()],
      ]),
    );
  });

  it('every service serves its metrics, labelled with its name', () => {
    for (const [service, text] of Object.entries(scrapes)) {
      expect(text).toContain(`process_resident_memory_bytes{service="${service}"}`);
    }
  });

  it.each([
    ['templates/bff.yaml', 'http', 'bffHttp'],
    ['templates/notifier.yaml', 'metrics', 'notifierMetrics'],
  ] as const)('the HTTP probe paths of %s answer 200 on the running service', async (template, portName, port) => {
    const paths = [
      ...chartTemplate(template).matchAll(new RegExp(`httpGet: \\{ path: (\\S+), port: ${portName} \\}`, 'g')),
    ].map((m) => m[1] as string);
    expect(paths.length).toBeGreaterThanOrEqual(2);
    for (const path of new Set(paths)) {
      const res = await fetch(`http://127.0.0.1:${ports[port]}${path}`);
      expect([path, res.status]).toEqual([path, 200]);
    }
  });

  it('every queried metric is exported by a running service, or is a target-health series', () => {
    const exported = new Set(Object.values(scrapes).flatMap(exportedNames));
    expect(queried.length).toBeGreaterThan(20);
    const missing = queried.filter(([, name]) => !exported.has(name) && !TARGET_HEALTH_SERIES.has(name));
    expect(missing).toEqual([]);
    // The alerts on whole services being gone read `up`.
    expect(queried.filter(([, name]) => TARGET_HEALTH_SERIES.has(name)).map(([where]) => where)).toEqual(
      expect.arrayContaining(['InventarioServiceDown', 'InventarioServiceMissing']),
    );
  });

  it('every label matched on or grouped by is on the series scraped, or a target label', () => {
    const seen = new Map<string, Set<string>>();
    for (const scrape of Object.values(scrapes)) {
      for (const [series, labels] of labelsBySeries(scrape))
        seen.set(series, new Set([...(seen.get(series) ?? []), ...labels]));
    }
    const labelsOf = (series: string) =>
      TARGET_HEALTH_SERIES.has(series) ? new Set<string>() : (seen.get(series) ?? new Set<string>());
    const unknown: [string, string, string][] = [];
    for (const [where, expr] of expressions) {
      for (const [series, label] of matcherLabels(expr)) {
        if (!TARGET_LABELS.has(label) && !labelsOf(series).has(label)) unknown.push([where, series, label]);
      }
      // A grouping label must be on some series the expression reads.
      const available = new Set(metricNames(expr).flatMap((series) => [...labelsOf(series)]));
      for (const label of groupingLabels(expr))
        if (!TARGET_LABELS.has(label) && !available.has(label)) unknown.push([where, '(by/on)', label]);
    }
    expect(unknown).toEqual([]);
  });

  it('the alert rules unit tests feed the rules series named, labelled and valued as the services export them', () => {
    expect(unitTestSeries.length).toBeGreaterThan(10);
    const exported = new Set(Object.values(scrapes).flatMap(exportedNames));
    const values = new Map<string, Map<string, Set<string>>>();
    for (const scrape of Object.values(scrapes)) {
      for (const [series, byLabel] of labelValuesBySeries(scrape)) {
        const merged = values.get(series) ?? new Map<string, Set<string>>();
        for (const [label, seen] of byLabel) merged.set(label, new Set([...(merged.get(label) ?? []), ...seen]));
        values.set(series, merged);
      }
    }
    const wrong: string[] = [];
    for (const { name, labels } of unitTestSeries) {
      if (TARGET_HEALTH_SERIES.has(name)) {
        for (const label of Object.keys(labels)) if (!TARGET_LABELS.has(label)) wrong.push(`${name}: label ${label}`);
        continue;
      }
      if (!exported.has(name)) {
        wrong.push(`${name}: not exported`);
        continue;
      }
      for (const [label, value] of Object.entries(labels)) {
        const seen = values.get(name)?.get(label);
        if (!seen && !TARGET_LABELS.has(label)) wrong.push(`${name}: label ${label}`);
        if (seen && FIXED_VALUE_LABELS.has(label) && !seen.has(value))
          wrong.push(`${name}: ${label}="${value}" (exported: ${[...seen].join(', ')})`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
