/**
 * The chart's alert rules fire when they should and stay quiet otherwise:
 * `promtool test rules` runs the unit tests of
 * test/deploy/alerts/inventario-rules.test.yaml (series in, alerts out, with
 * their labels and rendered text) against
 * deploy/helm/inventario/alerts/inventario-rules.yaml. promtool comes with
 * Debian's `prometheus` package (.ci/run installs it); where it is missing,
 * the promtool checks are skipped with a notice, and the coverage checks
 * below still run. test/deploy/metrics.test.ts checks that the test series
 * are named and labelled as the services export them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { readYaml, ROOT } from './support/repo';

const RULES_FILE = 'deploy/helm/inventario/alerts/inventario-rules.yaml';
const TESTS_FILE = 'test/deploy/alerts/inventario-rules.test.yaml';

interface Rule {
  alert: string;
  annotations: Record<string, string>;
}

interface ExpectedAlert {
  exp_labels?: Record<string, string>;
  exp_annotations?: Record<string, string>;
}

interface AlertRuleTest {
  eval_time: string;
  alertname: string;
  exp_alerts: ExpectedAlert[];
}

interface RuleTests {
  rule_files: string[];
  tests: { name: string; input_series: { series: string; values: string }[]; alert_rule_test: AlertRuleTest[] }[];
}

const rules = readYaml<{ groups: { rules: Rule[] }[] }>(RULES_FILE).groups.flatMap((g) => g.rules);
const ruleTests = readYaml<RuleTests>(TESTS_FILE);

/** PROMTOOL, else promtool on PATH; undefined when not installed. */
function findPromtool(): string | undefined {
  if (process.env.PROMTOOL) return process.env.PROMTOOL;
  return spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).stdout.trim() || undefined;
}

/**
 * The unit tests as promtool reads them: the rule file by absolute path and,
 * on every expected alert, its rule's annotations without template text
 * (promtool compares annotations in full; the test file writes out only
 * those it renders from labels and values).
 */
function completedTests(): RuleTests {
  const fixed = new Map(
    rules.map((r) => [
      r.alert,
      Object.fromEntries(Object.entries(r.annotations).filter(([, text]) => !text.includes('{{'))),
    ]),
  );
  return {
    ...ruleTests,
    rule_files: ruleTests.rule_files.map((file) => resolve(ROOT, dirname(TESTS_FILE), file)),
    tests: ruleTests.tests.map((t) => ({
      ...t,
      alert_rule_test: t.alert_rule_test.map((a) => ({
        ...a,
        exp_alerts: a.exp_alerts.map((e) => ({
          ...e,
          exp_annotations: { ...fixed.get(a.alertname), ...e.exp_annotations },
        })),
      })),
    })),
  };
}

describe('the alert rules unit tests', () => {
  it("read the chart's rule file", () => {
    expect(ruleTests.rule_files.map((file) => resolve(ROOT, dirname(TESTS_FILE), file))).toEqual([
      join(ROOT, RULES_FILE),
    ]);
  });

  it.each(rules.map((r) => [r.alert] as const))(
    'make %s fire, with every label and the text it fires with, and stay quiet',
    (alert) => {
      const cases = ruleTests.tests.flatMap((t) => t.alert_rule_test).filter((a) => a.alertname === alert);
      const firing = cases.flatMap((a) => a.exp_alerts);
      expect(firing.length).toBeGreaterThan(0);
      expect(cases.some((a) => a.exp_alerts.length === 0)).toBe(true);
      const templated = Object.entries(rules.find((r) => r.alert === alert)?.annotations ?? {})
        .filter(([, text]) => text.includes('{{'))
        .map(([name]) => name);
      for (const expected of firing)
        expect(Object.keys(expected.exp_annotations ?? {})).toEqual(expect.arrayContaining(templated));
    },
  );

  it('test a healthy system against every alert', () => {
    const healthy = ruleTests.tests.find((t) => t.name === 'a healthy system fires nothing');
    expect(healthy?.alert_rule_test.map((a) => [a.alertname, a.exp_alerts])).toEqual(rules.map((r) => [r.alert, []]));
  });
});

const promtool = findPromtool();
if (!promtool) {
  process.stdout.write(
    `\nNOTICE: promtool is not installed (Debian: apt-get install prometheus), so ${TESTS_FILE} was NOT run; ` +
      'the promtool checks of test/deploy/alert-rules.unit.test.ts are skipped.\n\n',
  );
}

(promtool ? describe : describe.skip)('promtool', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'inventario-promtool-'));
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  function run(args: string[]): { status: number | null; output: string } {
    const result = spawnSync(promtool ?? 'promtool', args, { encoding: 'utf8', timeout: 60_000 });
    return {
      status: result.status,
      output: `${result.stdout}${result.stderr}${result.error ? String(result.error) : ''}`,
    };
  }

  it('check rules accepts the rule file', () => {
    const result = run(['check', 'rules', join(ROOT, RULES_FILE)]);
    expect(result).toEqual({ status: 0, output: expect.stringContaining(`SUCCESS: ${rules.length} rules found`) });
  });

  it('test rules passes every unit test: each alert fires on its series and stays quiet when healthy', () => {
    const file = join(dir, 'inventario-rules.test.yaml');
    writeFileSync(file, stringify(completedTests()));
    const result = run(['test', 'rules', file]);
    expect(result).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });
});
