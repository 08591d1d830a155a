/**
 * Every metric the Grafana dashboard and the alert rules query is one the
 * services export: the four apps run in-process (ephemeral ports, this
 * file's databases, stream and KV bucket) and their /metrics are scraped.
 * The chart's HTTP probe paths are asked on the same running apps.
 */
import { createLogger } from '@inventario/platform';
import { connectTestNats, createTestDatabase, deleteStream, TEST_NATS_URL, testEventNamespace, uniqueName, type TestDatabase } from '@inventario/testkit';
import { startApp as startBff } from '../../services/bff/dist/app';
import { loadConfig as loadBffConfig } from '../../services/bff/dist/config';
import { startApp as startNotifier } from '../../services/notifier/dist/app';
import { loadConfig as loadNotifierConfig } from '../../services/notifier/dist/config';
import { startApp as startProducto } from '../../services/producto-svc/dist/app';
import { loadConfig as loadProductoConfig } from '../../services/producto-svc/dist/config';
import { startApp as startBodega } from '../../services/bodega-svc/dist/app';
import { loadConfig as loadBodegaConfig } from '../../services/bodega-svc/dist/config';
import { chartTemplate, readText, readYaml } from './support/repo';

/**
 * The metric names a PromQL expression reads: identifiers left once
 * strings, label matchers, ranges and label lists (`by (...)`) are
 * removed, that are not function calls.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/\b([A-Za-z_:][A-Za-z0-9_:]*)\b(?!\s*\()/g)].map((m) => m[1] as string).filter((name) => name.includes('_'));
}

/** The sample names a scrape can hold: every family (# TYPE), with a histogram's _bucket/_sum/_count. */
function exportedNames(scrape: string): string[] {
  return [...scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
    type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : type === 'summary' ? [`${name}`, `${name}_sum`, `${name}_count`] : [name as string],
  );
}

const dashboard = JSON.parse(readText('deploy/helm/inventario/dashboards/inventario.json')) as { panels: { targets?: { expr: string }[] }[] };
const rules = readYaml<{ groups: { rules: { alert: string; expr: string }[] }[] }>('deploy/helm/inventario/alerts/inventario-rules.yaml');
const queried = [
  ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ['dashboard', t.expr] as const)),
  ...rules.groups.flatMap((g) => g.rules.map((r) => [r.alert, r.expr] as const)),
].flatMap(([where, expr]) => metricNames(expr).map((name) => [where, name] as const));

describe('metrics in the dashboard and the alert rules', () => {
  const ns = testEventNamespace();
  const bucket = uniqueName('notifier_sent');
  const logger = createLogger('deploy-metrics-test', 'silent');
  const base = { NATS_URL: TEST_NATS_URL, NATS_STREAM: ns.stream, NATS_SUBJECT_PREFIX: ns.prefix, METRICS_PORT: '0', LOG_LEVEL: 'silent', SHUTDOWN_DRAIN_MS: '0' };
  const databases: TestDatabase[] = [];
  const stops: (() => Promise<void>)[] = [];
  const scrapes: Record<string, string> = {};
  const ports = { bffHttp: 0, notifierMetrics: 0 };

  beforeAll(async () => {
    const [productoDb, bodegaDb] = await Promise.all([createTestDatabase('dep_metr_p'), createTestDatabase('dep_metr_b')]);
    databases.push(productoDb, bodegaDb);
    const producto = await startProducto(loadProductoConfig({ ...base, DATABASE_URL: productoDb.url, GRPC_PORT: '0' }), logger);
    stops.push(() => producto.stop());
    const bodega = await startBodega(loadBodegaConfig({ ...base, DATABASE_URL: bodegaDb.url, GRPC_PORT: '0' }), logger);
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
      loadNotifierConfig({ ...base, SMTP_URL: 'smtp://127.0.0.1:9', SENDER_EMAIL: 'a@example.com', RECIPIENT_EMAIL: 'b@example.com', NOTIFIER_SENT_BUCKET: bucket }),
      logger,
    );
    stops.push(() => notifier.stop());

    // Traffic through the BFF, so request and gRPC client series exist.
    const auth = { authorization: `Basic ${Buffer.from('ops:secret').toString('base64')}` };
    expect((await fetch(`http://127.0.0.1:${bff.httpPort}/api/bodegas`, { headers: auth })).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${bff.httpPort}/api/productos/1`, { headers: auth })).status).toBe(404);

    ports.bffHttp = bff.httpPort;
    ports.notifierMetrics = notifier.metricsPort;
    const metricsPorts = { 'producto-svc': producto.metricsPort, 'bodega-svc': bodega.metricsPort, bff: bff.metricsPort, notifier: notifier.metricsPort };
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

  it('reads metric names out of PromQL', () => {
    expect(metricNames('histogram_quantile(0.95, sum by (le, route) (rate(x_seconds_bucket{a=~"5.."}[$__rate_interval]))) / y_total > 0.05')).toEqual([
      'x_seconds_bucket',
      'y_total',
    ]);
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
    const paths = [...chartTemplate(template).matchAll(new RegExp(`httpGet: \\{ path: (\\S+), port: ${portName} \\}`, 'g'))].map((m) => m[1] as string);
    expect(paths.length).toBeGreaterThanOrEqual(2);
    for (const path of new Set(paths)) {
      const res = await fetch(`http://127.0.0.1:${ports[port]}${path}`);
      expect([path, res.status]).toEqual([path, 200]);
    }
  });

  it('every queried metric is exported by a running service', () => {
    const exported = new Set(Object.values(scrapes).flatMap(exportedNames));
    expect(queried.length).toBeGreaterThan(20);
    const missing = queried.filter(([, name]) => !exported.has(name));
    expect(missing).toEqual([]);
  });
});
