/**
 * Reading the deployment assets for the static checks of test/deploy: the
 * repository's files, the chart's templates as text (no helm binary here),
 * values.yaml, and the environment each service's Deployment sets.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export const ROOT = join(__dirname, '..', '..', '..');
export const CHART = join(ROOT, 'deploy', 'helm', 'inventario');

export function readText(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

export function readYaml<T = unknown>(path: string): T {
  return parse(readText(path)) as T;
}

/** Every file under `dir` (repository-relative paths), recursively. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const entry of readdirSync(abs)) {
      const path = join(abs, entry);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(ROOT, path));
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

/** The documents of a multi-document YAML file; throws on the first syntax error. */
export function yamlDocuments(path: string): unknown[] {
  return parseAllDocuments(readText(path)).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]?.message}`);
    return doc.toJS() as unknown;
  });
}

/** The five services: workspace, chart template(s) holding their Deployment, values key. */
export const SERVICES = [
  {
    name: 'producto-svc',
    templates: ['templates/_grpc-service.tpl', 'templates/producto-svc.yaml'],
    valuesKey: 'productoSvc',
  },
  {
    name: 'bodega-svc',
    templates: ['templates/_grpc-service.tpl', 'templates/bodega-svc.yaml'],
    valuesKey: 'bodegaSvc',
  },
  { name: 'bff', templates: ['templates/bff.yaml'], valuesKey: 'bff' },
  { name: 'notifier', templates: ['templates/notifier.yaml'], valuesKey: 'notifier' },
  // Last, so the indices the tests use for the first four stay theirs.
  {
    name: 'identidad-svc',
    templates: ['templates/_grpc-service.tpl', 'templates/identidad-svc.yaml'],
    valuesKey: 'identidadSvc',
  },
] as const;

export type ServiceName = (typeof SERVICES)[number]['name'];

export function chartTemplate(name: string): string {
  return readFileSync(join(CHART, name), 'utf8');
}

export function chartTemplates(): { name: string; text: string }[] {
  return readdirSync(join(CHART, 'templates'))
    .sort()
    .map((file) => ({ name: `templates/${file}`, text: chartTemplate(`templates/${file}`) }));
}

export function chartValues(file = 'values.yaml'): Record<string, unknown> {
  return parse(readFileSync(join(CHART, file), 'utf8')) as Record<string, unknown>;
}

/** The value at a dotted path (`bff.image.tag`), or undefined when a key is missing. */
export function valueAt(values: unknown, path: string): unknown {
  let node: unknown = values;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** One `env:` entry of a container in a template: a literal value or a reference. */
export interface EnvEntry {
  name: string;
  source: 'value' | 'configMap' | 'secret';
  /** The ConfigMap or Secret key, for references (may be a template action, e.g. `{{ .databaseKey }}`). */
  key?: string;
}

/**
 * The `env:` entries of a template's containers, read from the text: an
 * upper-case `- name:` followed by `value:` or by a configMapKeyRef /
 * secretKeyRef (flow `{ name: ..., key: ... }` or block form).
 */
export function envEntries(text: string): EnvEntry[] {
  const lines = text.split('\n');
  const entries: EnvEntry[] = [];
  lines.forEach((line, i) => {
    const m = /^\s*- name: ([A-Z][A-Z0-9_]*)\s*$/.exec(line);
    if (!m?.[1]) return;
    const following = lines.slice(i + 1, i + 6).join('\n');
    const ref = /(configMapKeyRef|secretKeyRef):[\s\S]*?key: (\{\{[^}]*\}\}|[A-Za-z0-9_.-]+)/.exec(following);
    const nextEntry = following.search(/^\s*- name:/m);
    if (ref?.[1] && ref[2] && (nextEntry === -1 || (ref.index ?? 0) < nextEntry)) {
      entries.push({ name: m[1], source: ref[1] === 'secretKeyRef' ? 'secret' : 'configMap', key: ref[2] });
    } else if (/^\s*value: /m.test(lines[i + 1] ?? '')) {
      entries.push({ name: m[1], source: 'value' });
    }
  });
  return entries;
}

/** Keys of a template's flat `data:` / `stringData:` map (lines `  KEY: {{ ... }}`). */
export function templateMapKeys(text: string, section: 'data' | 'stringData'): string[] {
  const block = text.split(new RegExp(`^${section}:\\s*$`, 'm'))[1] ?? '';
  return [...block.matchAll(/^ {2}([A-Za-z0-9_.-]+):/gm)].map((m) => m[1] as string);
}

/**
 * The objects of a chart template, parsed as YAML without rendering it (no
 * helm binary here): template comments and lines holding only actions
 * (`{{- if }}`, `{{- include ... | nindent }}`, `{{- end }}`) are dropped,
 * an action that is a whole value (`port: {{ $v.port }}`) becomes that
 * action as a string, and a selectorLabels include with a literal component
 * (or through `$ctx := dict ... "component" "x"`) becomes the label
 * `app.kubernetes.io/name: x`, so policies still say whom they select.
 * Both branches of a conditional are kept: enough for static checks of
 * literal fields, not a rendering.
 */
export function templateObjects(text: string): unknown[] {
  const ctxComponent = /\$ctx := dict "root" \. "component" "([a-z-]+)"/.exec(text)?.[1];
  const stripped = text.replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, '');
  return stripped
    .split(/^---\s*$/m)
    .map((doc, i) => {
      const lines = doc
        .split('\n')
        .map((line) => {
          const selector =
            /^(\s*)\{\{-? include "inventario\.selectorLabels" (?:\(dict "root" \S+ "component" "([a-z-]+)"\)|(\$ctx)) \| nindent \d+ -?\}\}\s*$/.exec(
              line,
            );
          const component = selector?.[2] ?? (selector?.[3] ? ctxComponent : undefined);
          return selector && component ? `${selector[1] ?? ''}app.kubernetes.io/name: ${component}` : line;
        })
        .filter((line) => !/^\s*(\{\{[^}]*\}\}\s*)+$/.test(line))
        .map((line) =>
          line.replace(
            /(:\s|-\s)(\{\{[^}]*\}\})/g,
            (_m, before: string, action: string) => `${before}${JSON.stringify(action)}`,
          ),
        );
      const docs = parseAllDocuments(lines.join('\n'));
      const problem = docs.flatMap((d) => d.errors)[0];
      if (problem || docs.length > 1) throw new Error(`document ${i}: ${problem?.message ?? 'more than one document'}`);
      return docs[0]?.toJS() as unknown;
    })
    .filter((object) => object !== null && object !== undefined);
}
