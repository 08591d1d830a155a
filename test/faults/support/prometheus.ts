/**
 * A private Prometheus server (Debian's `prometheus` package) for fault
 * tests: its own port and data directory, a configuration generated here
 * that scrapes the given metrics ports every second, and the chart's alert
 * rules with their `for` durations shortened, so an alert's life takes
 * seconds instead of minutes. Stopped and its directory deleted by
 * dispose(), or by local-servers' watchdog if the test process dies.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { freePort, startPrivateServer } from '@inventario/testkit';

const ROOT = join(__dirname, '..', '..', '..');
const RULES_FILE = join(ROOT, 'deploy', 'helm', 'inventario', 'alerts', 'inventario-rules.yaml');

/** PROMETHEUS_BIN, else Debian's path, else whatever PATH finds. */
const PROMETHEUS_BIN =
  process.env.PROMETHEUS_BIN ?? (existsSync('/usr/bin/prometheus') ? '/usr/bin/prometheus' : 'prometheus');

/** One alert of GET /api/v1/alerts. */
export interface ActiveAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
  activeAt: string;
}

export interface PrivatePrometheus {
  url: string;
  /** Alerts pending or firing now (resolved ones are not listed). */
  alerts(): Promise<ActiveAlert[]>;
  /** An instant query's vector: each sample's labels and value. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  dispose(): Promise<void>;
}

/** `2m` -> seconds; the rule file uses s, m and h only. */
function seconds(duration: string): number {
  const m = /^(\d+)([smh])$/.exec(duration);
  if (!m) throw new Error(`unexpected duration ${duration}`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h'];
}

/**
 * The chart's rules for a test: each group evaluated every `intervalSeconds`,
 * each `for` divided by `speedUp` (at least one second); expressions and
 * texts unchanged.
 */
export function rulesForTest(options: { intervalSeconds: number; speedUp: number }): string {
  const doc = parse(readFileSync(RULES_FILE, 'utf8')) as { groups: { interval?: string; rules: { for?: string }[] }[] };
  for (const group of doc.groups) {
    group.interval = `${options.intervalSeconds}s`;
    for (const rule of group.rules)
      if (rule.for) rule.for = `${Math.max(1, Math.round(seconds(rule.for) / options.speedUp))}s`;
  }
  return stringify(doc);
}

/**
 * Starts Prometheus scraping `targets` (job name -> metrics port on
 * 127.0.0.1, each with the target label `namespace`) every second, with
 * `rules` as its rule file.
 */
export async function startPrometheus(options: {
  targets: Record<string, number>;
  rules: string;
  namespace: string;
}): Promise<PrivatePrometheus> {
  if (spawnSync('sh', ['-c', 'command -v "$0"', PROMETHEUS_BIN]).status !== 0) {
    throw new Error(
      `${PROMETHEUS_BIN} not found: install Debian's prometheus package (apt-get install prometheus; .ci/run does) or set PROMETHEUS_BIN`,
    );
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'inventario-prometheus-'));
  const pidFile = join(dir, 'prometheus.pid');
  writeFileSync(join(dir, 'rules.yaml'), options.rules);
  writeFileSync(
    join(dir, 'prometheus.yml'),
    stringify({
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: [join(dir, 'rules.yaml')],
      scrape_configs: Object.entries(options.targets).map(([job, metricsPort]) => ({
        job_name: job,
        static_configs: [{ targets: [`127.0.0.1:${metricsPort}`], labels: { namespace: options.namespace } }],
      })),
    }),
  );
  const server = await startPrivateServer({
    name: `prometheus on ${port}`,
    // Through sh only to record the pid for the watchdog; exec keeps it.
    command: 'sh',
    args: [
      '-c',
      'echo $$ > "$0"; exec "$@"',
      pidFile,
      PROMETHEUS_BIN,
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    readyText: 'Server is ready to receive web requests.',
    startTimeoutMs: 60_000,
    stopGraceMs: 10_000,
    dir,
    pidFile,
  });
  const url = `http://127.0.0.1:${port}`;

  async function api<T>(path: string): Promise<T> {
    const res = await fetch(`${url}${path}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (res.status !== 200 || body.status !== 'success')
      throw new Error(`GET ${path}: ${res.status} ${body.error ?? ''}`);
    return body.data;
  }

  return {
    url,
    async alerts() {
      return (await api<{ alerts: ActiveAlert[] }>('/api/v1/alerts')).alerts;
    },
    async query(promql) {
      const data = await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
        `/api/v1/query?query=${encodeURIComponent(promql)}`,
      );
      return data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    dispose: () => server.dispose(),
  };
}
