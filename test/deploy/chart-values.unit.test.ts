/**
 * Every value a chart template reads exists in values.yaml (a typo would
 * render as an empty string, not fail), and every file a template reads
 * with .Files.Get is in the chart.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CHART, chartTemplates, chartValues, valueAt } from './support/repo';

const values = chartValues();
const templates = chartTemplates();

/**
 * The values paths a template reads: `.Values.a.b` directly, through a
 * variable bound to a values path (`$v := .Values.bff` then `$v.port`),
 * and through the values a `dict` hands to an include or a range
 * (`"values" .Values.productoSvc`, `dict "bff" "bff"` with `index $.Values $key`).
 */
function valuesPaths(text: string, roots: { grpcService: string[]; ranged: string[] }): string[] {
  const paths = [...text.matchAll(/\.Values\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)/g)].map((m) => m[1] as string);
  // `$x := .Values.a`, and in helpers called with a dict, `$x := .root.Values.a` / `$root.Values.a` / `$.Values.a`.
  for (const [, variable, root] of text.matchAll(/\$([A-Za-z]+) := (?:\.root|\$root|\$)?\.Values\.([A-Za-z0-9_.]+)/g)) {
    paths.push(
      ...[...text.matchAll(new RegExp(`\\$${variable}\\.([A-Za-z0-9_.]+)`, 'g'))].map((m) => `${root}.${m[1]}`),
    );
  }
  const aliases: [string, string[]][] = [
    ['\\$v := \\.values', roots.grpcService],
    ['\\$v := index \\$\\.Values \\$key', roots.ranged],
  ];
  for (const [binding, keys] of aliases) {
    if (!new RegExp(binding).test(text)) continue;
    const uses = [...text.matchAll(/\$v\.([A-Za-z0-9_.]+)/g)].map((m) => m[1] as string);
    for (const key of keys) paths.push(...uses.map((use) => `${key}.${use}`));
  }
  return paths;
}

const allText = templates.map((t) => t.text).join('\n');
const roots = {
  grpcService: [...new Set([...allText.matchAll(/"values" \.Values\.([A-Za-z]+)/g)].map((m) => m[1] as string))],
  ranged: [
    ...(/index \$\.Values \$key/.test(allText) ? allText.matchAll(/dict ((?:"[a-z-]+" "[A-Za-z]+" ?)+)/g) : []),
  ].flatMap((m) => [...(m[1] as string).matchAll(/"[a-z-]+" "([A-Za-z]+)"/g)].map((k) => k[1] as string)),
};

describe('chart templates', () => {
  it('follow variables bound to a values path, in templates and in helpers called with a dict', () => {
    const text =
      '{{- $mysql := .root.Values.mysql -}}{{ $mysql.auth.password }}{{- $np := .Values.networkPolicy }}{{ $np.smtp.port }}';
    expect(valuesPaths(text, { grpcService: [], ranged: [] }).sort()).toEqual([
      'mysql',
      'mysql.auth.password',
      'networkPolicy',
      'networkPolicy.smtp.port',
    ]);
  });

  it('find the values of both gRPC services and of every autoscaled component', () => {
    expect(roots.grpcService.sort()).toEqual(['bodegaSvc', 'identidadSvc', 'productoSvc']);
    expect(roots.ranged).toEqual(expect.arrayContaining(['productoSvc', 'bodegaSvc', 'identidadSvc', 'bff', 'envoy']));
  });

  it.each(templates.map((t) => [t.name, t.text] as const))(
    '%s reads only values that values.yaml defines',
    (_name, text) => {
      const missing = [...new Set(valuesPaths(text, roots))].filter((path) => valueAt(values, path) === undefined);
      expect(missing).toEqual([]);
    },
  );

  it('read with .Files.Get only files the chart holds', () => {
    const files = [...allText.matchAll(/\.Files\.Get "([^"]+)"/g)].map((m) => m[1] as string);
    expect(files.sort()).toEqual(
      expect.arrayContaining(['alerts/inventario-rules.yaml', 'dashboards/inventario.json', 'files/envoy.yaml']),
    );
    for (const file of files) expect(existsSync(join(CHART, file))).toBe(true);
  });

  it.each(['values-dev.yaml', 'values-production.yaml'])(
    "%s overrides only keys values.yaml has (besides the subcharts' global)",
    (file) => {
      const dev = chartValues(file);
      const leaves = (node: unknown, prefix: string): string[] =>
        typeof node === 'object' && node !== null && !Array.isArray(node)
          ? Object.entries(node).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k))
          : [prefix];
      const ours = leaves(dev, '').filter((path) => !/^(global|mysql|nats)\./.test(path));
      expect(ours.length).toBeGreaterThan(0);
      expect(ours.filter((path) => valueAt(values, path) === undefined)).toEqual([]);
    },
  );
});
