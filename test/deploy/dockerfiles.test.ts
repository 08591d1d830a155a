/**
 * Each service's Dockerfile builds a workspace that exists, runs its built
 * entry point as a non-root user, and exposes the ports the service
 * listens on by default, which are the chart's; the chart's Jobs run
 * entry points the build produces.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig as loadBffConfig } from '../../services/bff/dist/config';
import { loadConfig as loadNotifierConfig } from '../../services/notifier/dist/config';
import { loadConfig as loadProductoConfig } from '../../services/producto-svc/dist/config';
import { loadConfig as loadBodegaConfig } from '../../services/bodega-svc/dist/config';
import { chartTemplate, chartValues, readText, ROOT, SERVICES, valueAt, type ServiceName } from './support/repo';

/** The ports each service listens on by default (its public port first, then metrics), from its own config. */
function defaultPorts(name: ServiceName): number[] {
  const db = { DATABASE_URL: 'mysql://u@h/d' };
  switch (name) {
    case 'producto-svc': {
      const c = loadProductoConfig(db);
      return [c.grpcPort, c.metricsPort];
    }
    case 'bodega-svc': {
      const c = loadBodegaConfig(db);
      return [c.grpcPort, c.metricsPort];
    }
    case 'bff': {
      const c = loadBffConfig({ BFF_USER: 'u', BFF_PASSWORD: 'p' });
      return [c.port, c.metricsPort];
    }
    case 'notifier':
      return [loadNotifierConfig({ SMTP_URL: 'smtp://h', SENDER_EMAIL: 'a@b.example', RECIPIENT_EMAIL: 'a@b.example' }).metricsPort];
  }
}

/** The instructions of each stage: `FROM x AS name` opens one. */
function stages(dockerfile: string): { name: string; lines: string[] }[] {
  const out: { name: string; lines: string[] }[] = [];
  for (const line of dockerfile.split('\n').filter((l) => l.trim() && !l.startsWith('#'))) {
    const from = /^FROM \S+ AS (\S+)$/.exec(line);
    if (from?.[1]) out.push({ name: from[1], lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out;
}

const values = chartValues();
const workspaces = (JSON.parse(readText('package.json')) as { workspaces: string[] }).workspaces;

describe.each(SERVICES.map((s) => [s.name, s] as const))('services/%s/Dockerfile', (name, service) => {
  const dockerfile = readText(`services/${name}/Dockerfile`);
  const all = stages(dockerfile);
  const runtime = all.at(-1);
  const workspace = `services/${name}`;

  it('builds a workspace that exists', () => {
    expect(workspaces).toContain(workspace);
    expect(existsSync(join(ROOT, workspace, 'package.json'))).toBe(true);
    expect(dockerfile).toContain(`npx tsc -b ${workspace}`);
    expect(dockerfile).toContain('npm run generate');
  });

  it('runs the built entry point (the package main), which the build produces', () => {
    const cmd = runtime?.lines.find((l) => l.startsWith('CMD '));
    const [node, entry] = JSON.parse(cmd?.slice(4) ?? '[]') as string[];
    const main = (JSON.parse(readText(`${workspace}/package.json`)) as { main: string }).main;
    expect([node, entry]).toEqual(['node', `${workspace}/${main}`]);
    expect(existsSync(join(ROOT, entry ?? ''))).toBe(true);
    expect(runtime?.lines).toContain(`COPY --from=build /app/${workspace}/dist ${workspace}/dist`);
  });

  it('installs only the production dependencies of that workspace in the runtime stage', () => {
    expect(runtime?.name).toBe('runtime');
    expect(runtime?.lines.find((l) => l.includes('npm ci'))).toMatch(new RegExp(`npm ci --omit=dev .*--workspace ${workspace}$`));
  });

  it('runs as a numeric non-root user on a pinned node 20 slim image', () => {
    const user = runtime?.lines.find((l) => l.startsWith('USER '));
    expect(user).toMatch(/^USER [1-9]\d*:[1-9]\d*$/);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20\.\d+\.\d+-[a-z]+-slim$/m);
  });

  it('exposes the ports the service listens on by default, which are the chart\'s', () => {
    const exposed = (runtime?.lines.find((l) => l.startsWith('EXPOSE ')) ?? '').split(' ').slice(1).map(Number);
    const ports = defaultPorts(name);
    expect(exposed).toEqual(ports);
    const v = service.valuesKey;
    const chartPorts = [valueAt(values, `${v}.grpcPort`) ?? valueAt(values, `${v}.port`), valueAt(values, `${v}.metricsPort`)].filter((p) => p !== undefined);
    expect(chartPorts).toEqual(ports);
  });

  it('copies only sources that exist', () => {
    const sources = all
      .flatMap((s) => s.lines)
      .filter((l) => l.startsWith('COPY ') && !l.includes('--from='))
      .flatMap((l) => l.split(/\s+/).slice(1, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect([source, existsSync(join(ROOT, source))]).toEqual([source, true]);
  });
});

describe('the build context', () => {
  it('.dockerignore keeps local builds and dependencies out of the context', () => {
    const ignored = readText('.dockerignore').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', 'proto/gen', '.git']));
  });
});

describe('the chart\'s Jobs', () => {
  it.each([
    ['templates/migrations-job.yaml', 'services/producto-svc/dist/migrate-main.js'],
    ['templates/migrations-job.yaml', 'services/bodega-svc/dist/migrate-main.js'],
    ['templates/seed-job.yaml', 'services/bff/dist/seed-main.js'],
  ])('%s runs %s, which the build produces', (template, entry) => {
    expect(chartTemplate(template)).toContain(`command: ["node", "${entry}"]`);
    expect(existsSync(join(ROOT, entry))).toBe(true);
  });
});
