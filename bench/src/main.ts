/**
 * `npm run bench -- [flags]`: the benchmark harness (README.md). Starts the
 * stack from its built entry points (or uses a running one with --target),
 * seeds it, measures every target of issue 6 against the B_db yardstick in
 * the same run, writes the markdown results and removes what it created.
 * Exits 0 once the results are written, whatever the figures: it judges
 * targets (PASS/MISS) in the results, it does not fail on them.
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { connectTestNats } from '@inventario/testkit';
import { openBenchDb } from './bench-db';
import { loadConfig, UsageError, type BenchConfig } from './config';
import { renderReport, type RunInfo } from './report';
import { writeResults } from './results-file';
import { runBench, settle, verifyTargets } from './run';
import { seed } from './seed';
import { startOwnStack, useRunningStack, type Stack } from './stack';
import { seedStock, STOCK_CAPACIDAD, STOCK_UNITS, STOCKED_PRODUCTOS } from './stock';
import { buildTargets, type Target } from './targets';

const ROOT = resolve(__dirname, '..', '..');
const say = (line: string) => void process.stdout.write(`bench: ${line}\n`);

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

function runInfo(config: BenchConfig, stack: Stack, targets: readonly Target[]): RunInfo {
  const cpu = cpus();
  const commit = git(['rev-parse', '--short', 'HEAD']) || 'unknown';
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit: `${commit}${dirty ? ' + uncommitted changes' : ''}`,
    machine:
      `${cpu.length} x ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 1024 ** 3)} GiB, ` +
      `Node ${process.version}, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} at the end`,
    command: config.command,
    quick: config.quick,
    notes: [
      stack.owned
        ? 'stack: started by the harness (built services, fresh databases and stream)'
        : `stack: running one at ${stack.bffUrl}`,
      `${config.rounds} rounds of ${config.durationSeconds} s per target after a ${config.warmupSeconds} s ` +
        `warm-up, ${config.connections} connections under load; LOG_LEVEL=${config.logLevel}`,
      ...(stack.owned
        ? [
            `keyed writes: producto-svc's idempotency table holds ${config.idempotencyBacklog} keys of earlier ` +
              `requests before each window (--idempotency-backlog)`,
          ]
        : []),
      ...(targets.some((t) => t.writes === 'existencias')
        ? [
            `stock writes: ${STOCKED_PRODUCTOS} products x ${STOCK_UNITS.toLocaleString('en')} units in each of ` +
              `the ${config.bodegas} warehouses (capacity ${STOCK_CAPACIDAD.toLocaleString('en')}), one unit per ` +
              `movement or transfer`,
          ]
        : []),
    ],
  };
}

async function main(): Promise<void> {
  let config: BenchConfig;
  try {
    config = loadConfig(process.argv.slice(2), process.env, ROOT);
  } catch (err) {
    if (
      err instanceof UsageError ||
      (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      process.stderr.write(`bench: ${err.message} (see bench/README.md)\n`);
      process.exit(2);
    }
    throw err;
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const logDir = join(ROOT, '.tmp', 'bench', `logs-${stamp}`);
  const stackOptions = {
    mysqlServer: config.mysqlServer,
    natsUrl: config.natsUrl,
    logLevel: config.logLevel,
    logDir,
    ...(config.profile ? { profileDir: join(ROOT, '.tmp', 'bench', `profiles-${stamp}`) } : {}),
    baseEnv: process.env,
    // Twice the seed: the warm targets' products all fit, while the soak reads
    // half as many again (README "Soak"), so its LRU evicts with the cache full.
    readCacheMaxEntries: 2 * config.productos,
  };
  say(`${config.target ? `using ${config.target.bffUrl}` : 'starting the stack'}; process logs in ${logDir}`);
  const stack = config.target
    ? await useRunningStack({ ...config.target, natsUrl: config.natsUrl }, stackOptions)
    : await startOwnStack(stackOptions);
  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
    say('interrupted: cleaning up');
    void stack.close().finally(() => process.exit(130));
  });

  const db = openBenchDb(stack.productoDbUrl, stack.bodegaDbUrl);
  const nc = await connectTestNats(stack.natsUrl);
  try {
    say(`seeding ${config.bodegas} warehouses and ${config.productos} products through the REST API`);
    const seeded = await seed(stack.bffUrl, stack.auth, 'bench', config.bodegas, config.productos);
    // B_db and REST GET-by-id always run: every ratio and the soak's rate start from them;
    // a target judged against a baseline (a safe write, a stock write) brings it.
    const all = buildTargets(stack, seeded, { connections: config.connections });
    const chosen = new Set<string>(['bdb', 'restGetById', ...(config.only ?? [])]);
    for (const t of all) if (chosen.has(t.key) && t.baseline) chosen.add(t.baseline);
    const targets = all.filter((t) => !config.only || chosen.has(t.key));
    // The stock targets move units of levels set up once, far from 0 and from capacity (README "Stock writes").
    if (targets.some((t) => t.writes === 'existencias')) {
      say(
        `stocking ${STOCKED_PRODUCTOS} products x ${STOCK_UNITS} units in each of ` +
          `the ${seeded.bodegaIds.length} warehouses`,
      );
      await seedStock(stack.bffUrl, stack.auth, seeded);
    }
    await settle({ stack, db, nc, say });
    // The keyed writes meet a key table like a running service's (docs: README "Safe writes").
    if (stack.owned && config.idempotencyBacklog > 0) {
      say(`filling producto-svc's idempotency table with ${config.idempotencyBacklog} keys of earlier requests`);
      await db.fillIdempotencyKeys(config.idempotencyBacklog);
    }
    await verifyTargets(targets, say);
    const results = await runBench({ config, stack, seed: seeded, targets, db, nc, say });
    const markdown = renderReport(runInfo(config, stack, targets), results);
    writeResults(config.out, markdown);
    process.stdout.write(`\n${markdown}\n`);
    say(`results written to ${config.out}`);
    if (stackOptions.profileDir) say(`CPU profiles (written as each process exits) in ${stackOptions.profileDir}`);
  } finally {
    await nc.close();
    await db.close();
    if (!interrupted) await stack.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
