/**
 * Every YAML and JSON deployment asset parses; Kubernetes objects in
 * non-templated files validate against the Kubernetes schemas; the chart's
 * templates, with their template actions taken out, are YAML documents of
 * kinds Kubernetes (or the Prometheus Operator) knows; the dashboard and
 * the alert rules are complete; skaffold builds every service and deploys
 * the chart with the images it built.
 */
import { parse } from 'yaml';
import { parseAllDocuments } from 'yaml';
import {
  CHART,
  chartTemplates,
  chartValues,
  filesUnder,
  readText,
  readYaml,
  SERVICES,
  valueAt,
  yamlDocuments,
} from './support/repo';

/** A Kubernetes object model of kubernetes-models, by apiVersion and kind. */
type Model = new (data: unknown) => { validate(): void };

function modelFor(apiVersion: string, kind: string): Model | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const group = require(`kubernetes-models/${apiVersion}`) as Record<string, Model | undefined>;
    return group[kind];
  } catch {
    return undefined;
  }
}

/** Custom resources the chart renders, whose CRDs kubernetes-models does not ship. */
const CUSTOM_KINDS = ['monitoring.coreos.com/v1 ServiceMonitor', 'monitoring.coreos.com/v1 PrometheusRule'];

/**
 * A template's static skeleton: its comments and every line holding only
 * template actions (control flow, includes, nindented blocks) removed, and
 * each remaining inline action replaced by a plain scalar. What is left is
 * the YAML the template writes around its values; it must parse.
 */
function skeleton(text: string): string {
  return text
    .replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}\n?/g, '')
    .split('\n')
    .filter((line) => !/^\s*(?:\{\{[^}]*\}\}\s*)+$/.test(line))
    .map((line) => line.replace(/\{\{[^}]*\}\}/g, 'TEMPLATED'))
    .join('\n');
}

/** A Kubernetes object (core `v1` or `group/version`), not another tool's config in the same shape (skaffold's). */
function isKubernetesObject(doc: unknown): doc is { apiVersion: string; kind: string } {
  return (
    typeof doc === 'object' &&
    doc !== null &&
    'apiVersion' in doc &&
    'kind' in doc &&
    typeof doc.apiVersion === 'string' &&
    /^(v1|[a-z0-9.]+\/v\d+(?:(?:alpha|beta)\d+)?)$/.test(doc.apiVersion) &&
    !doc.apiVersion.startsWith('skaffold/')
  );
}

const deployFiles = filesUnder('deploy');
const chartTemplateDir = `${CHART.slice(CHART.indexOf('deploy'))}/templates/`;
const plainYaml = [
  ...deployFiles.filter((f) => /\.ya?ml$/.test(f) && !f.startsWith(chartTemplateDir)),
  'skaffold.yaml',
];
const jsonFiles = deployFiles.filter((f) => f.endsWith('.json'));

describe('deployment assets', () => {
  it.each(plainYaml)('%s parses as YAML', (file) => {
    expect(yamlDocuments(file).length).toBeGreaterThan(0);
  });

  it.each(jsonFiles)('%s parses as JSON', (file) => {
    expect(() => JSON.parse(readText(file)) as unknown).not.toThrow();
  });

  const objects = plainYaml.flatMap((file) =>
    yamlDocuments(file)
      .filter(isKubernetesObject)
      .map((doc) => [file, doc] as const),
  );

  it('include Kubernetes objects outside the templates', () => {
    expect(objects.map(([file]) => file)).toContain('deploy/examples/existing-secret.yaml');
  });

  it.each(objects.map(([file, doc]) => [`${file} ${doc.kind}`, doc] as const))(
    '%s validates against the Kubernetes schema',
    (_name, doc) => {
      const Model = modelFor(doc.apiVersion, doc.kind);
      expect(Model).toBeDefined();
      if (Model) expect(() => new Model(doc).validate()).not.toThrow();
    },
  );

  it('the Kubernetes schema check rejects a malformed object', () => {
    const Model = modelFor('v1', 'Secret');
    if (!Model) throw new Error('no Secret model');
    expect(() =>
      new Model({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, stringData: { port: 8080 } }).validate(),
    ).toThrow(/must be string/);
  });
});

describe("the chart's templates", () => {
  // The .yaml templates, and the .tpl helpers that define whole objects (not _helpers.tpl's fragments).
  const templates = chartTemplates().filter(
    (t) => /\.ya?ml$/.test(t.name) || (t.name.endsWith('.tpl') && /^kind: /m.test(t.text)),
  );
  const documents = templates.flatMap((t) =>
    parseAllDocuments(skeleton(t.text)).map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${t.name}: ${doc.errors[0]?.message}`);
      return [t.name, doc.toJS() as unknown] as const;
    }),
  );
  const objects = documents.filter(([, doc]) => doc !== null && doc !== undefined);

  it('parse as YAML once their template actions are taken out', () => {
    expect(skeleton('a:\n  {{- if .x }}\n  b: {{ .y | quote }}\n  {{- end }}\n{{- /* c\n d */}}\n')).toBe(
      'a:\n  b: TEMPLATED\n',
    );
    expect(objects.length).toBeGreaterThan(30);
  });

  it.each(templates.map((t) => [t.name] as const))(
    '%s writes only Kubernetes objects of known kinds, each named',
    (name) => {
      for (const [, doc] of objects.filter(([file]) => file === name)) {
        expect([name, (doc as { kind?: unknown }).kind, isKubernetesObject(doc)]).toEqual([
          name,
          (doc as { kind?: unknown }).kind,
          true,
        ]);
        if (!isKubernetesObject(doc)) continue;
        const kind = `${doc.apiVersion} ${doc.kind}`;
        expect([kind, modelFor(doc.apiVersion, doc.kind) !== undefined || CUSTOM_KINDS.includes(kind)]).toEqual([
          kind,
          true,
        ]);
        expect((doc as { metadata?: { name?: unknown } }).metadata?.name).toBeTruthy();
      }
    },
  );

  it('hold the Services the Envoy and BFF configurations name, headless where they must be', () => {
    const services = objects
      .filter(([, doc]) => isKubernetesObject(doc) && doc.kind === 'Service')
      .map(([, doc]) => doc as { metadata: { name: string }; spec: { clusterIP?: string } });
    const headless = services.filter((svc) => svc.spec.clusterIP === 'None').map((svc) => svc.metadata.name);
    expect(headless.sort()).toEqual(['TEMPLATED-headless', 'bff-headless']);
    expect(readText('deploy/helm/inventario/templates/_grpc-service.tpl')).toContain(
      'name: {{ .component }}-headless\n',
    );
  });
});

describe('alert rules', () => {
  const { groups } = readYaml<{
    groups: {
      name: string;
      rules: { alert: string; expr: string; labels: { severity: string }; annotations: Record<string, string> }[];
    }[];
  }>('deploy/helm/inventario/alerts/inventario-rules.yaml');
  const rules = groups.flatMap((g) => g.rules);

  it('cover services down or missing, 5xx ratio, open breakers, outbox lag, consumer pending, streams filling up, dead letters, stock that differs from its ledger, a verification that stopped completing and initial stocks recorded late', () => {
    expect(rules.map((r) => r.alert).sort()).toEqual(
      [
        'InventarioServiceDown',
        'InventarioServiceMissing',
        'InventarioCircuitBreakerOpen',
        'InventarioConsumerPending',
        'InventarioDeadLetters',
        'InventarioExistenciasInconsistentes',
        'InventarioHigh5xxRatio',
        'InventarioOutboxLag',
        'InventarioVerificacionExistenciasAtrasada',
        'InventarioStreamFilling',
        'InventarioStreamFull',
        'InventarioStockInicialTardio',
      ].sort(),
    );
  });

  it('watch every scraped service through its target health, by the job name the ServiceMonitor gives it (its Service name)', () => {
    const down = rules.find((r) => r.alert === 'InventarioServiceDown')?.expr ?? '';
    const missing = rules.find((r) => r.alert === 'InventarioServiceMissing')?.expr ?? '';
    for (const service of SERVICES.map((s) => s.name)) {
      expect(down).toMatch(new RegExp(`up\\{job=~"[^"]*\\b${service}\\b`));
      expect(missing).toContain(`absent(up{job="${service}"})`);
    }
    expect(readText('deploy/helm/inventario/templates/servicemonitor.yaml')).not.toContain('jobLabel');
  });

  it.each(rules.map((r) => [r.alert, r] as const))(
    '%s has a severity, a summary and a runbook documented in docs/operations.md',
    (alert, rule) => {
      expect(rule.labels.severity).toMatch(/^(critical|warning)$/);
      expect(rule.annotations.summary).toBeTruthy();
      expect(rule.annotations.runbook?.length).toBeGreaterThan(40);
      expect(rule.annotations.runbook_url).toContain(`docs/operations.md#${alert.toLowerCase()}`);
      expect(readText('docs/operations.md')).toContain(`### ${alert}`);
    },
  );
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
    deploy: {
      helm: { releases: { chartPath: string; valuesFiles: string[]; setValueTemplates: Record<string, string> }[] };
    };
    portForward: { resourceType: string; resourceName: string; port: number; localPort: number }[];
    profiles: { name: string; patches: { op: string; path: string; value: unknown }[] }[];
  };
  const [release] = skaffold.deploy.helm.releases;

  it('uses the v4beta schema and builds one artifact per service from the repository root', () => {
    expect(skaffold.apiVersion).toMatch(/^skaffold\/v4beta\d+$/);
    expect(skaffold.build.artifacts.map((a) => [a.context, a.docker.dockerfile])).toEqual(
      SERVICES.map((s) => ['.', `services/${s.name}/Dockerfile`]),
    );
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
      expect.arrayContaining([
        expect.objectContaining({
          resourceType: 'service',
          resourceName: 'envoy',
          port: valueAt(chartValues(), 'envoy.service.port'),
          localPort: 8080,
        }),
      ]),
    );
  });

  it('has a kind profile that builds locally without pushing', () => {
    const kind = skaffold.profiles.find((p) => p.name === 'kind');
    expect(kind?.patches).toEqual(expect.arrayContaining([{ op: 'add', path: '/build/local/push', value: false }]));
  });
});
