/**
 * Every YAML and JSON deployment asset parses; Kubernetes objects in
 * non-templated files validate against the Kubernetes schemas; the
 * dashboard and the alert rules are complete; skaffold builds every
 * service and deploys the chart with the images it built.
 */
import { parse } from 'yaml';
import { CHART, chartValues, filesUnder, readText, readYaml, SERVICES, valueAt, yamlDocuments } from './support/repo';

/** A Kubernetes object model of kubernetes-models, by apiVersion and kind. */
type Model = new (data: unknown) => { validate(): void };

function modelFor(apiVersion: string, kind: string): Model | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const group = require(`kubernetes-models/${apiVersion}`) as Record<string, Model | undefined>;
  return group[kind];
}

function isKubernetesObject(doc: unknown): doc is { apiVersion: string; kind: string } {
  return typeof doc === 'object' && doc !== null && 'apiVersion' in doc && 'kind' in doc && typeof doc.apiVersion === 'string' && /^(v1|[a-z.]+\/v\d+)$/.test(doc.apiVersion);
}

const deployFiles = filesUnder('deploy');
const chartTemplateDir = `${CHART.slice(CHART.indexOf('deploy'))}/templates/`;
const plainYaml = [...deployFiles.filter((f) => /\.ya?ml$/.test(f) && !f.startsWith(chartTemplateDir)), 'skaffold.yaml'];
const jsonFiles = deployFiles.filter((f) => f.endsWith('.json'));

describe('deployment assets', () => {
  it.each(plainYaml)('%s parses as YAML', (file) => {
    expect(yamlDocuments(file).length).toBeGreaterThan(0);
  });

  it.each(jsonFiles)('%s parses as JSON', (file) => {
    expect(() => JSON.parse(readText(file)) as unknown).not.toThrow();
  });

  const objects = plainYaml.flatMap((file) => yamlDocuments(file).filter(isKubernetesObject).map((doc) => [file, doc] as const));

  it('include Kubernetes objects outside the templates', () => {
    expect(objects.map(([file]) => file)).toContain('deploy/examples/existing-secret.yaml');
  });

  it.each(objects.map(([file, doc]) => [`${file} ${doc.kind}`, doc] as const))('%s validates against the Kubernetes schema', (_name, doc) => {
    const Model = modelFor(doc.apiVersion, doc.kind);
    expect(Model).toBeDefined();
    if (Model) expect(() => new Model(doc).validate()).not.toThrow();
  });

  it('the Kubernetes schema check rejects a malformed object', () => {
    const Model = modelFor('v1', 'Secret');
    if (!Model) throw new Error('no Secret model');
    expect(() => new Model({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, stringData: { port: 8080 } }).validate()).toThrow(/must be string/);
  });
});

describe('alert rules', () => {
  const { groups } = readYaml<{ groups: { name: string; rules: { alert: string; expr: string; labels: { severity: string }; annotations: Record<string, string> }[] }[] }>(
    'deploy/helm/inventario/alerts/inventario-rules.yaml',
  );
  const rules = groups.flatMap((g) => g.rules);

  it('cover 5xx ratio, open breakers, outbox lag, consumer pending and dead letters', () => {
    expect(rules.map((r) => r.alert).sort()).toEqual(
      ['InventarioCircuitBreakerOpen', 'InventarioConsumerPending', 'InventarioDeadLetters', 'InventarioHigh5xxRatio', 'InventarioOutboxLag'].sort(),
    );
  });

  it.each(rules.map((r) => [r.alert, r] as const))('%s has a severity, a summary and a runbook documented in docs/operations.md', (alert, rule) => {
    expect(rule.labels.severity).toMatch(/^(critical|warning)$/);
    expect(rule.annotations.summary).toBeTruthy();
    expect(rule.annotations.runbook?.length).toBeGreaterThan(40);
    expect(rule.annotations.runbook_url).toContain(`docs/operations.md#${alert.toLowerCase()}`);
    expect(readText('docs/operations.md')).toContain(`### ${alert}`);
  });
});

describe('the Grafana dashboard', () => {
  const dashboard = JSON.parse(readText('deploy/helm/inventario/dashboards/inventario.json')) as {
    uid: string;
    panels: { type: string; title: string; targets?: { expr: string }[] }[];
  };

  it('has a query in every graph panel, and ships with the grafana_dashboard label', () => {
    const graphs = dashboard.panels.filter((p) => p.type !== 'row');
    expect(graphs.length).toBeGreaterThan(10);
    for (const panel of graphs) expect([panel.title, panel.targets?.length ?? 0]).not.toEqual([panel.title, 0]);
    expect(valueAt(chartValues(), 'grafanaDashboard.labels.grafana_dashboard')).toBe('1');
  });
});

describe('skaffold.yaml', () => {
  const skaffold = parse(readText('skaffold.yaml')) as {
    apiVersion: string;
    build: { artifacts: { image: string; context: string; docker: { dockerfile: string } }[] };
    deploy: { helm: { releases: { chartPath: string; valuesFiles: string[]; setValueTemplates: Record<string, string> }[] } };
    portForward: { resourceType: string; resourceName: string; port: number; localPort: number }[];
    profiles: { name: string; patches: { op: string; path: string; value: unknown }[] }[];
  };
  const [release] = skaffold.deploy.helm.releases;

  it('uses the v4beta schema and builds one artifact per service from the repository root', () => {
    expect(skaffold.apiVersion).toMatch(/^skaffold\/v4beta\d+$/);
    expect(skaffold.build.artifacts.map((a) => [a.context, a.docker.dockerfile])).toEqual(SERVICES.map((s) => ['.', `services/${s.name}/Dockerfile`]));
  });

  it('deploys the chart with the images it built, into values that exist', () => {
    expect(release?.chartPath).toBe('deploy/helm/inventario');
    for (const file of release?.valuesFiles ?? []) expect(deployFiles).toContain(file);
    const values = chartValues();
    for (const [artifact, service] of skaffold.build.artifacts.map((a, i) => [a, SERVICES[i]] as const)) {
      const key = artifact.image.replace(/[^A-Za-z0-9]/g, '_');
      expect(release?.setValueTemplates[`${service?.valuesKey}.image.repository`]).toBe(`{{.IMAGE_REPO_${key}}}`);
      expect(release?.setValueTemplates[`${service?.valuesKey}.image.tag`]).toBe(`{{.IMAGE_TAG_${key}}}`);
      expect(valueAt(values, `${service?.valuesKey}.image.repository`)).toBe(artifact.image);
    }
  });

  it('forwards Envoy to localhost:8080', () => {
    expect(skaffold.portForward).toEqual(
      expect.arrayContaining([expect.objectContaining({ resourceType: 'service', resourceName: 'envoy', port: valueAt(chartValues(), 'envoy.port'), localPort: 8080 })]),
    );
  });

  it('has a kind profile that builds locally without pushing', () => {
    const kind = skaffold.profiles.find((p) => p.name === 'kind');
    expect(kind?.patches).toEqual(expect.arrayContaining([{ op: 'add', path: '/build/local/push', value: false }]));
  });
});
