/**
 * `node bench/dist/profile-main.js <file.cpuprofile | dir> [top]`: where a
 * process spent its CPU, from the V8 profiles `npm run bench -- --profile`
 * leaves under .tmp/bench/profiles-<time>/ (one per process, written as it
 * exits). Prints self time by package (node_modules/<name>, node: internals,
 * or our own workspace) and the top functions by self time, so a before /
 * after comparison can be pasted into RESULTS.md.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

/** `node_modules/@scope/name` or `node_modules/name`, `node:internal`, our workspace folder, or `(native)`. */
function packageOf(url: string): string {
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1] as string;
  if (url.startsWith('node:')) return 'node: internals';
  const ours = /\/(services\/[^/]+|packages\/[^/]+|bench)\//.exec(url);
  if (ours) return ours[1] as string;
  return url === '' ? '(native / gc / idle)' : url;
}

function summarise(file: string, top: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const total = profile.nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') continue;
    byPackage.set(packageOf(url), (byPackage.get(packageOf(url)) ?? 0) + hits);
    const where = url.replace(/^.*\/(node_modules|services|packages|bench)\//, '$1/');
    const key = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + hits);
  }
  const idle = profile.nodes
    .filter((n) => n.callFrame.functionName === '(idle)')
    .reduce((s, n) => s + (n.hitCount ?? 0), 0);
  const pct = (hits: number) => `${((hits / total) * 100).toFixed(1)}%`;
  const rows = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, hits]) => `  ${pct(hits).padStart(6)}  ${name}`);
  const seconds = (profile.endTime - profile.startTime) / 1e6;
  return [
    `${basename(file)}: ${seconds.toFixed(1)} s profiled, ${pct(total - idle)} busy`,
    ' self time by package:',
    ...rows(byPackage),
    ' top functions by self time:',
    ...rows(byFunction),
    '',
  ].join('\n');
}

const [target, topArg] = process.argv.slice(2);
if (!target) {
  process.stderr.write('usage: node bench/dist/profile-main.js <file.cpuprofile | dir> [top]\n');
  process.exit(2);
}
const top = Number(topArg ?? 15);
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(target, f))
  : [target];
for (const file of files) process.stdout.write(summarise(file, top));
