import type { BenchResults, Window } from './run';
import { median } from './stats';
import type { StockVerification } from './stock';
import type { TargetKey } from './targets';

/** Where and on what a run happened, for the results' header. */
export interface RunInfo {
  date: string;
  commit: string;
  machine: string;
  command: string;
  quick: boolean;
  notes: string[];
}

/** The median over rounds of each figure of a target's windows. */
export interface Summary {
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  /** Median over rounds of each process's event-loop delay p99. */
  loopP99: Record<string, number>;
  /** Median over rounds of each process's CPU ms per request. */
  cpuMsPerRequest: Record<string, number>;
}

export function summarise(windows: readonly Window[]): Summary {
  const names = Object.keys(windows[0]?.loop ?? {});
  return {
    reqPerSec: median(windows.map((w) => w.load.reqPerSec)),
    p50: median(windows.map((w) => w.load.p50)),
    p99: median(windows.map((w) => w.load.p99)),
    errors: windows.reduce((sum, w) => sum + w.load.errors, 0),
    loopP99: Object.fromEntries(names.map((n) => [n, median(windows.map((w) => w.loop[n]?.p99Ms ?? Number.NaN))])),
    cpuMsPerRequest: Object.fromEntries(
      names.map((n) => [n, median(windows.map((w) => w.cpuMsPerRequest[n] ?? Number.NaN))]),
    ),
  };
}

export interface Verdict {
  target: string;
  measured: string;
  pass: boolean;
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');
const num = (v: number) => (Number.isFinite(v) ? String(Math.round(v)) : 'n/a');
const ratio = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : 'n/a');
const pct = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');
/** `old_space +21.3, new_space +16.0`, largest first; `none` when no space moved by 1 MiB. */
const spaceGrowth = (grown: Record<string, number>) =>
  Object.entries(grown)
    .filter(([, mib]) => Number.isFinite(mib))
    .sort(([, a], [, b]) => Math.abs(b) - Math.abs(a))
    .map(([space, mib]) => `${space} ${mib >= 0 ? '+' : ''}${mib.toFixed(1)}`)
    .join(', ') || 'none';

/** The issue's targets, judged on this run's figures only. */
function judge(results: BenchResults): Verdict[] {
  const load = (key: TargetKey) => summarise(results.loaded.get(key) ?? []);
  const seq = (key: TargetKey) => summarise(results.sequential.get(key) ?? []);
  const restVsDb = load('restGetById').reqPerSec / load('bdb').reqPerSec;
  const gqlVsRest = load('gqlProducto').reqPerSec / load('restGetById').reqPerSec;
  const addedP50 = seq('restGetById').p50 - seq('bdb').p50;
  /** A ratio of windows that had errors compares failures, not speed: it cannot pass. */
  const errorsOf = (...keys: TargetKey[]) => keys.reduce((sum, key) => sum + load(key).errors + seq(key).errors, 0);
  const withErrors = (measured: string, errors: number) => (errors > 0 ? `${measured} (${errors} errors)` : measured);
  const restErrors = errorsOf('bdb', 'restGetById');
  const gqlErrors = errorsOf('restGetById', 'gqlProducto');
  const halfLoadErrors = results.soak.load.errors + results.soakEvents.writeErrors;
  const paired = (f: PairedFigures) => ({
    target: f.verdict,
    measured: withErrors(ratio(f.pairedRatio), f.baselineErrors + f.targetErrors),
    pass: f.pairedRatio >= f.minimum && f.baselineErrors + f.targetErrors === 0,
  });
  const stock = results.stock;
  const worstGrowth = results.soak.rss.reduce(
    (worst, r) => (r.growthPct > worst.growthPct ? r : worst),
    results.soak.rss[0] ?? { name: 'n/a', growthPct: Number.NaN },
  );
  return [
    {
      target: 'REST GET-by-id >= 0.45x B_db',
      measured: withErrors(ratio(restVsDb), restErrors),
      pass: restVsDb >= 0.45 && restErrors === 0,
    },
    {
      target: 'GraphQL producto(id) >= 0.85x REST GET-by-id',
      measured: withErrors(ratio(gqlVsRest), gqlErrors),
      pass: gqlVsRest >= 0.85 && gqlErrors === 0,
    },
    {
      target: 'added p50 at one connection <= 1.0 ms over B_db',
      measured: withErrors(`${ms(addedP50)} ms`, restErrors),
      pass: addedP50 <= 1.0 && restErrors === 0,
    },
    {
      target: 'outbox lag p99 <= 50 ms',
      measured: `${ms(results.events.outboxLagP99)} ms`,
      pass: results.events.outboxLagP99 <= 50,
    },
    {
      target: 'write -> email p99 <= 250 ms',
      measured: `${ms(results.events.emailP99)} ms`,
      pass: results.events.emailP99 <= 250 && results.events.emailsMissing === 0,
    },
    { target: 'zero errors at half load', measured: `${halfLoadErrors} errors`, pass: halfLoadErrors === 0 },
    {
      target: 'RSS growth <= 5% after the first minute (every process)',
      measured: `worst ${worstGrowth.name} ${pct(worstGrowth.growthPct)}%`,
      pass: results.soak.rss.every((r) => r.growthPct <= RSS_GROWTH_MAX_PCT),
    },
    ...cacheSoakVerdicts(results),
    ...pairedFigures(results, LISTS).map(paired),
    ...pairedFigures(results, SAFE_WRITES).map(paired),
    ...pairedFigures(results, STOCK_WRITES).map(paired),
    ...pairedFigures(results, CACHE).map(paired),
    ...pairedFigures(results, THROUGHPUT).map(paired),
    ...cacheVerdicts(results),
    ...(stock
      ? [
          {
            target: 'stock consistent after the run (GET /api/existencias/verificacion)',
            measured: stockVerdict(stock),
            pass: stock.status === 200 && stock.consistente,
          },
        ]
      : []),
  ];
}

/** Issue 14's read-cache targets that are not a paired ratio; none when --only left the cached reads out. */
function cacheVerdicts(results: BenchResults): Verdict[] {
  if (!results.loaded.has('restGetByIdCached') || !results.loaded.has('gqlProductoCached')) return [];
  const load = (key: TargetKey) => summarise(results.loaded.get(key) ?? []);
  const seq = (key: TargetKey) => summarise(results.sequential.get(key) ?? []);
  const errors = (...keys: TargetKey[]) => keys.reduce((sum, key) => sum + load(key).errors + seq(key).errors, 0);
  const gqlVsRest = load('gqlProductoCached').reqPerSec / load('restGetByIdCached').reqPerSec;
  const addedP50 = seq('restGetByIdCached').p50 - seq('bdb').p50;
  const gqlErrors = errors('restGetByIdCached', 'gqlProductoCached');
  const restErrors = errors('bdb', 'restGetByIdCached');
  return [
    {
      target: 'GraphQL producto(id), read cache on >= 0.9x REST GET-by-id cached',
      measured: gqlErrors > 0 ? `${ratio(gqlVsRest)} (${gqlErrors} errors)` : ratio(gqlVsRest),
      pass: gqlVsRest >= 0.9 && gqlErrors === 0,
    },
    {
      target: 'added p50 at one connection, read cache on <= 0.3 ms over B_db',
      measured: restErrors > 0 ? `${ms(addedP50)} ms (${restErrors} errors)` : `${ms(addedP50)} ms`,
      pass: addedP50 <= 0.3 && restErrors === 0,
    },
  ];
}

/** The soak's RSS rule: growth after a full GC, from the baseline moment (after the first minute) to the end. */
const RSS_GROWTH_MAX_PCT = 5;

/**
 * "Full" at one end of the soak: at least this share of READ_CACHE_MAX_ENTRIES.
 * A write drops its entry and the next miss takes the place again, so a full
 * cache read at a random moment may lack the few entries of the last writes.
 */
const FULL_SHARE = 0.99;

const entriesOf = (entries: number, max: number) =>
  `${num(entries)}${entries >= FULL_SHARE * max ? '' : ' (not full)'}`;

/**
 * Issue 14: RSS of the cached BFF flat over the soak with its cache full,
 * by the rule every process's RSS is judged by (RSS_GROWTH_MAX_PCT); the
 * cache must be full at both ends, or the soak did not measure a full cache.
 */
function cacheSoakVerdicts(results: BenchResults): Verdict[] {
  const c = results.cacheSoak;
  if (!c) return [];
  const growth = results.soak.rss.find((r) => r.name === 'bff-cached')?.growthPct ?? Number.NaN;
  const full = [c.start, c.end].every((m) => m.entries >= FULL_SHARE * c.maxEntries);
  return [
    {
      target:
        `RSS of the cached BFF flat over the soak, cache full (growth <= ${RSS_GROWTH_MAX_PCT}% ` +
        `after the first minute)`,
      measured:
        `bff-cached ${Number.isFinite(growth) ? growth.toFixed(1) : 'n/a'}%; ` +
        `cache entries ${entriesOf(c.start.entries, c.maxEntries)} at the ` +
        `start, ${entriesOf(c.end.entries, c.maxEntries)} at the end, of ${num(c.maxEntries)}`,
      pass: growth <= RSS_GROWTH_MAX_PCT && full,
    },
  ];
}

/** The verification's answer in a few words. */
function stockVerdict(stock: StockVerification): string {
  if (stock.status !== 200) return `answered ${stock.status}`;
  const checked = `${num(stock.nivelesVerificados)} levels, ${num(stock.bodegasVerificadas)} warehouses`;
  return stock.consistente ? `consistente (${checked})` : `${stock.diferencias} differences (${checked})`;
}

/** A target judged as a ratio to its baseline (Target.baseline), both measured in the same rounds. */
interface Paired {
  key: TargetKey;
  /** What the row names, e.g. `product create: plain vs with Idempotency-Key`. */
  what: string;
  /** The verdict's wording. */
  verdict: string;
  /** The lowest passing ratio. */
  minimum: number;
}

interface PairedFigures extends Paired {
  baselineLabel: string;
  baseline: Summary;
  target: Summary;
  baselineSeq: Summary;
  targetSeq: Summary;
  /** Median target req/s over median baseline req/s, under load (the two medians may come from different rounds). */
  ratio: number;
  /** Target over baseline req/s of each round's two windows under load, run near each other. */
  perRound: number[];
  /**
   * The median of perRound: the judged figure. Each round's two windows
   * run within a few windows of each other, so their ratio cancels the
   * drift between rounds that the ratio of the medians keeps.
   */
  pairedRatio: number;
  /** Errors of both windows (under load and at one connection) over all rounds. */
  baselineErrors: number;
  targetErrors: number;
}

/** Issue 12: each safe write within 15 % of the feature off. */
const SAFE_WRITES: Paired[] = [
  {
    key: 'restPostSafe',
    what: 'product create: plain vs with Idempotency-Key',
    verdict: 'product create with Idempotency-Key >= 0.85x plain',
    minimum: 0.85,
  },
  {
    key: 'restPutSafe',
    what: 'product update: plain vs with If-Match',
    verdict: 'product update with If-Match >= 0.85x plain',
    minimum: 0.85,
  },
];

/** Issue 13: a stock write at least 0.8x the throughput of a product create. */
const STOCK_WRITES: Paired[] = [
  {
    key: 'restMovimiento',
    what: 'stock movement (ENTRADA/SALIDA of 1)',
    verdict: 'stock movement POST >= 0.8x REST POST /api/productos',
    minimum: 0.8,
  },
  {
    key: 'restTransferencia',
    what: 'stock transfer (1 unit)',
    verdict: 'stock transfer POST >= 0.8x REST POST /api/productos',
    minimum: 0.8,
  },
];

/**
 * Issue 23: each write beside B_db's write of the same durability (one InnoDB
 * transaction with its outbox row), 32 clients each, in the same rounds.
 */
const THROUGHPUT: Paired[] = [
  {
    key: 'restCreate',
    what: 'product create vs (a) product row + outbox row',
    verdict: 'product create >= 0.5x B_db (a) product + outbox',
    minimum: 0.5,
  },
  {
    key: 'restSalida',
    what: 'stock exit (SALIDA of 1, 200 products of one warehouse) vs (b) level locked + line + outbox',
    verdict: 'stock exit (SALIDA of 1, one warehouse) >= 0.5x B_db (b) level + line + outbox',
    minimum: 0.5,
  },
  {
    // Issue 24 sets no figure: two writes where the exit is one, so half the exit's 0.5.
    key: 'restReservaConsumo',
    what: 'reserve + consume of 1 (two requests, counted as one pair) vs (b) level locked + line + outbox',
    verdict: 'reserve + consume of 1 unit >= 0.25x B_db (b) level + line + outbox',
    minimum: 0.25,
  },
  {
    key: 'restTransfer',
    what: 'stock transfer (1 unit, two warehouses) vs (b) level locked + line + outbox',
    verdict: 'stock transfer >= 0.4x B_db (b) level + line + outbox',
    minimum: 0.4,
  },
];

/** Issue 14: the REST list of 1,000 products at least half as fast as B_db's SELECT of the same rows. */
const LISTS: Paired[] = [
  {
    key: 'restList',
    what: 'REST list vs B_db list (every product)',
    verdict: 'GET /api/productos (1,000 rows) >= 0.5x B_db list',
    minimum: 0.5,
  },
];

/**
 * Issue 14's read cache: the cached GET against B_db (in B_db's block of
 * each round), and the plain PUT through the cached BFF against the same
 * PUT through the BFF without it (the cost of its invalidations).
 */
const CACHE: Paired[] = [
  {
    key: 'restGetByIdCached',
    what: 'REST GET-by-id, read cache on, vs B_db',
    verdict: 'REST GET-by-id, read cache warm >= 1.0x B_db',
    minimum: 1.0,
  },
  // Issue 26: the cached read as a user of identidad-svc, by password and by token.
  {
    key: 'restGetByIdUser',
    what: 'REST GET-by-id, read cache on, per-user Basic (identidad-svc), vs B_db',
    verdict: 'REST GET-by-id, per-user Basic, read cache warm >= 1.0x B_db',
    minimum: 1.0,
  },
  {
    key: 'restGetByIdToken',
    what: 'REST GET-by-id, read cache on, API token (identidad-svc), vs B_db',
    verdict: 'REST GET-by-id, API token, read cache warm >= 1.0x B_db',
    minimum: 1.0,
  },
  {
    key: 'restPutCached',
    what: 'product update, read cache on vs off',
    verdict: 'PUT with the read cache on >= 0.9x off',
    minimum: 0.9,
  },
];

/** The targets of `which` measured in this run, each with its baseline; none when --only left them out. */
function pairedFigures(results: BenchResults, which: readonly Paired[]): PairedFigures[] {
  const out: PairedFigures[] = [];
  for (const paired of which) {
    const baselineKey = results.targets.find((t) => t.key === paired.key)?.baseline;
    const baselineTarget = results.targets.find((t) => t.key === baselineKey);
    if (!baselineKey || !baselineTarget) continue;
    const baselineWindows = results.loaded.get(baselineKey) ?? [];
    const targetWindows = results.loaded.get(paired.key) ?? [];
    const baseline = summarise(baselineWindows);
    const target = summarise(targetWindows);
    const baselineSeq = summarise(results.sequential.get(baselineKey) ?? []);
    const targetSeq = summarise(results.sequential.get(paired.key) ?? []);
    const perRound = targetWindows.map((w, i) => w.load.reqPerSec / (baselineWindows[i]?.load.reqPerSec ?? Number.NaN));
    out.push({
      ...paired,
      baselineLabel: baselineTarget.label,
      baseline,
      target,
      baselineSeq,
      targetSeq,
      ratio: target.reqPerSec / baseline.reqPerSec,
      perRound,
      pairedRatio: median(perRound),
      baselineErrors: baseline.errors + baselineSeq.errors,
      targetErrors: target.errors + targetSeq.errors,
    });
  }
  return out;
}

/** One row of a paired table: both sides' figures and the ratios. */
function pairedRow(f: PairedFigures, what: string): string {
  return (
    `| ${what} | ${num(f.baseline.reqPerSec)} | ${num(f.target.reqPerSec)} ` +
    `| ${f.perRound.map((r) => (Number.isFinite(r) ? r.toFixed(2) : 'n/a')).join(', ')} | ${ratio(f.pairedRatio)} ` +
    `| ${ratio(f.ratio)} | ` +
    `${ms(f.baseline.p50)} / ${ms(f.baseline.p99)} | ${ms(f.target.p50)} / ${ms(f.target.p99)} ` +
    `| ${ms(f.baselineSeq.p50)} / ${ms(f.targetSeq.p50)} | ${f.baselineErrors} / ${f.targetErrors} |`
  );
}

/** The cached BFF's part of the soak: its load, and its cache at both ends (GET /metrics). */
function cacheSoakLines(results: BenchResults): string[] {
  const c = results.cacheSoak;
  if (!c) return [];
  const delta = (a: number, b: number) => num(b - a);
  const causes = [...new Set([...Object.keys(c.start.invalidations), ...Object.keys(c.end.invalidations)])].sort();
  const hits = c.end.hits - c.start.hits;
  const misses = c.end.misses - c.start.misses;
  return [
    '',
    `Read cache under the soak (issue 14): \`bff-cached\` (READ_CACHE_MAX_ENTRIES=${c.maxEntries}) answered ` +
      `GET-by-id at ${c.rate} req/s over ${c.records} products for the whole soak, ` +
      `alongside the reads above, plus ${c.writes} paced PUTs of those products, half through each BFF ` +
      `(${c.writeErrors} errors): ` +
      `${num(c.load.reqPerSec)} req/s, p50 ${ms(c.load.p50)} ms, p99 ${ms(c.load.p99)} ms, ${c.load.errors} errors` +
      `${Object.keys(c.load.statuses).length > 0 ? ` (statuses ${JSON.stringify(c.load.statuses)})` : ''}; ` +
      `hit ratio ${Number.isFinite(hits / (hits + misses)) ? ((100 * hits) / (hits + misses)).toFixed(1) : 'n/a'}% ` +
      `(every miss fills, and evicts when the cache is full). Its GET /metrics:`,
    '',
    '| bff_read_cache_* | soak start (cache filled) | soak end | over the soak |',
    '|---|---|---|---|',
    `| entries (of ${c.maxEntries}) | ${num(c.start.entries)} | ${num(c.end.entries)} | |`,
    `| bypassed | ${num(c.start.bypassed)} | ${num(c.end.bypassed)} | |`,
    `| hits_total | ${num(c.start.hits)} | ${num(c.end.hits)} | ${delta(c.start.hits, c.end.hits)} |`,
    `| misses_total | ${num(c.start.misses)} | ${num(c.end.misses)} | ${delta(c.start.misses, c.end.misses)} |`,
    ...causes.map(
      (cause) =>
        `| invalidations_total{cause="${cause}"} | ${num(c.start.invalidations[cause] ?? 0)} ` +
        `| ${num(c.end.invalidations[cause] ?? 0)} ` +
        `| ${delta(c.start.invalidations[cause] ?? 0, c.end.invalidations[cause] ?? 0)} |`,
    ),
  ];
}

/** The markdown of one run: header, targets, then every figure. */
export function renderReport(info: RunInfo, results: BenchResults): string {
  const lines: string[] = [];
  const push = (...more: string[]) => lines.push(...more);
  push(
    `### Run of ${info.date}${info.quick ? ' (--quick: figures only, targets not judged)' : ''}`,
    '',
    `- commit: \`${info.commit}\``,
    `- machine: ${info.machine}`,
    `- command: \`${info.command}\``,
    ...info.notes.map((n) => `- ${n}`),
    '',
  );

  const bdb = summarise(results.loaded.get('bdb') ?? []);
  const bdbSeq = summarise(results.sequential.get('bdb') ?? []);
  if (!info.quick) {
    push('| Target | Measured | Result |', '|---|---|---|');
    for (const v of judge(results)) push(`| ${v.target} | ${v.measured} | ${v.pass ? 'PASS' : 'MISS'} |`);
    push('');
  }

  push(
    'Under load (median of rounds; errors summed over rounds):',
    '',
    '| Target | req/s | p50 ms | p99 ms | errors | ratio to B_db | 1 conn p50 ms | 1 conn p99 ms | 1 conn ' +
      'p50 over B_db ms |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const target of results.targets) {
    const s = summarise(results.loaded.get(target.key) ?? []);
    const q = summarise(results.sequential.get(target.key) ?? []);
    push(
      `| ${target.label} | ${num(s.reqPerSec)} | ${ms(s.p50)} | ${ms(s.p99)} | ${s.errors + q.errors} ` +
        `| ${ratio(s.reqPerSec / bdb.reqPerSec)} | ${ms(q.p50)} | ${ms(q.p99)} | ${ms(q.p50 - bdbSeq.p50)} |`,
    );
  }

  const lists = pairedFigures(results, LISTS);
  if (lists.length > 0) {
    push(
      '',
      `Lists (issue 14), each against ${lists[0]?.baselineLabel} (express + mysql2, one SELECT of the same rows, ` +
        `res.json) in the same rounds, after it in odd rounds and before it in even ones; only 2xx answers count:`,
      '',
      "| List | B_db list req/s | list req/s | list/B_db each round | median of the rounds' list/B_db (judged) | " +
        'ratio of the medians | B_db p50 / p99 ms | list p50 / p99 ms | 1 conn p50 B_db / list ms | ' +
        'errors B_db / list |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...lists.map((f) => pairedRow(f, f.what)),
    );
  }

  const safeWrites = pairedFigures(results, SAFE_WRITES);
  if (safeWrites.length > 0) {
    push(
      '',
      'Safe writes (issue 12), each against its plain baseline (no headers: the feature off) in the same rounds, ' +
        'the two near each other, the safe one after the plain one in odd rounds and before it in even ones; only ' +
        '2xx answers count:',
      '',
      "| Write | plain req/s | safe req/s | safe/plain each round | median of the rounds' safe/plain (judged) | " +
        'ratio of the medians | plain p50 / p99 ms | safe p50 / p99 ms | 1 conn p50 plain / safe ms | ' +
        'errors plain / safe |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...safeWrites.map((f) => pairedRow(f, f.what)),
    );
  }

  const cache = pairedFigures(results, CACHE);
  if (cache.length > 0) {
    push(
      '',
      'Read cache (issue 14): the cached GET against B_db, after it in odd rounds and before it in even ones ' +
        '(GraphQL producto(id) cached rotates with it); the PUT through the cached BFF against the same PUT ' +
        'through the BFF without the cache; only 2xx answers count:',
      '',
      "| Pair | baseline req/s | target req/s | target/baseline each round | median of the rounds' ratios (judged) " +
        '| ratio of the medians | baseline p50 / p99 ms | target p50 / p99 ms | 1 conn p50 baseline / target ms | ' +
        'errors baseline / target |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...cache.map((f) => pairedRow(f, f.what)),
    );
  }

  const stockWrites = pairedFigures(results, STOCK_WRITES);
  if (stockWrites.length > 0) {
    push(
      '',
      `Stock writes (issue 13), each against ${stockWrites[0]?.baselineLabel} in the same rounds, after it in odd ` +
        `rounds and before it in even ones, rotating with the other targets on that baseline; only 2xx answers count:`,
      '',
      "| Write | product create req/s | stock write req/s | stock/create each round | median of the rounds' " +
        'stock/create (judged) | ratio of the medians | create p50 / p99 ms | stock p50 / p99 ms | 1 conn p50 ' +
        'create / stock ms | errors create / stock |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...stockWrites.map((f) => pairedRow(f, f.what)),
    );
  }
  const throughput = pairedFigures(results, THROUGHPUT);
  if (throughput.length > 0) {
    const load = (key: TargetKey) => summarise(results.loaded.get(key) ?? []);
    const gql = load('gqlProductoCached').reqPerSec / load('restGetByIdCached').reqPerSec;
    push(
      '',
      `Writes near the database's limit (issue 23), each against B_db's write of the same durability (one InnoDB ` +
        `transaction with its outbox row, express + mysql2, prepared statements, a pool of 10) in the same rounds, ` +
        `both at 32 clients, after it in odd rounds and before it in even ones; only 2xx answers count:`,
      '',
      "| Write | B_db req/s | service req/s | service/B_db each round | median of the rounds' ratios (judged) | " +
        'ratio of the medians | B_db p50 / p99 ms | service p50 / p99 ms | 1 conn p50 B_db / service ms | ' +
        'errors B_db / service |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...throughput.map((f) => pairedRow(f, f.what)),
      '',
      `GraphQL producto(id) against REST GET-by-id, both through the cached BFF (issue 23 asks >= ` +
        `0.9x): ${ratio(gql)}.`,
    );
  }
  if (results.stock) {
    const s = results.stock;
    push(
      '',
      `Stock verification after the soak (GET /api/existencias/verificacion, every level and occupancy recomputed ` +
        `from the ledger): ${stockVerdict(s)}` +
        `${s.status !== 200 || !s.consistente ? `; ${s.muestra}` : ''}.`,
    );
  }

  const names = Object.keys(summarise(results.loaded.get('bdb') ?? []).loopP99);
  push(
    '',
    'Event-loop delay p99 (ms beyond the 10 ms sampling period) of each process while each target ran under load:',
    '',
    `| Target | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---|').join('')}`,
  );
  for (const target of results.targets) {
    const s = summarise(results.loaded.get(target.key) ?? []);
    push(`| ${target.label} | ${names.map((n) => ms(s.loopP99[n] ?? Number.NaN)).join(' | ')} |`);
  }

  push(
    '',
    'CPU time per request (ms, user + system, /proc/<pid>/stat) of each process while each target ran under load; ' +
      'the harness (autocannon) and MariaDB are not included:',
    '',
    `| Target | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---|').join('')}`,
  );
  for (const target of results.targets) {
    const s = summarise(results.loaded.get(target.key) ?? []);
    push(`| ${target.label} | ${names.map((n) => (s.cpuMsPerRequest[n] ?? Number.NaN).toFixed(3)).join(' | ')} |`);
  }

  const e = results.events;
  const se = results.soakEvents;
  push(
    '',
    'Events (POST /api/productos at a fixed rate; "commit" is the outbox row\'s created_at, taken at its INSERT ' +
      'just before the COMMIT, so the lag is an upper bound):',
    '',
    '| Measurement | alone | during the soak |',
    '|---|---|---|',
    `| writes (errors) | ${e.writes} (${e.writeErrors}) | ${se.writes} (${se.writeErrors}) |`,
    `| commit -> stored in JetStream (outbox lag) p50 / p99 ms | ${ms(e.outboxLagP50)} / ${ms(e.outboxLagP99)} ` +
      `| ${ms(se.outboxLagP50)} / ${ms(se.outboxLagP99)} |`,
    `| commit -> seen by the harness's consumer p99 ms | ${ms(e.observedLagP99)} | ${ms(se.observedLagP99)} |`,
    `| 201 received -> stored in JetStream p99 ms (lower bound of the lag) | ${ms(e.storedAfterAnswerP99)} ` +
      `| ${ms(se.storedAfterAnswerP99)} |`,
    `| write sent -> SMTP 250 p50 / p99 ms (missing) | ${ms(e.emailP50)} / ${ms(e.emailP99)} (${e.emailsMissing}) ` +
      `| ${ms(se.emailP50)} / ${ms(se.emailP99)} (${se.emailsMissing}) |`,
    `| relay throughput (outbox filled at once) ` +
      `| ${
        Number.isFinite(results.relayPerSecond)
          ? `${num(results.relayPerSecond)} events/s`
          : 'not measured ' + '(running stack)'
      } | |`,
  );

  const logins = results.logins;
  push(
    '',
    logins
      ? `Logins (issue 26): ${logins.logins} Basic logins through bff-identidad, each a miss of its ` +
          'verified-credential cache and so one argon2id verification (m=19 MiB, t=2, p=1) in identidad-svc, ' +
          `${num(logins.seconds)} s: ${num(logins.perSecond)} logins/s, ${num(logins.perCore)} logins/s per core ` +
          `(${logins.cores} cores), ${logins.errors} errors.`
      : 'Logins (issue 26): not measured (running stack).',
  );

  const soak = results.soak;
  push(
    '',
    `Soak: REST GET-by-id at ${soak.rate} req/s (half the measured maximum) for ${soak.seconds} s, ` +
      `plus ${results.soakEvents.writes} paced writes: ` +
      `${num(soak.load.reqPerSec)} req/s, p50 ${ms(soak.load.p50)} ms, p99 ${ms(soak.load.p99)} ` +
      `ms, ${soak.load.errors} errors` +
      `${Object.keys(soak.load.statuses).length > 0 ? ` (statuses ${JSON.stringify(soak.load.statuses)})` : ''}.`,
    '',
    `| Process | RSS after GC at ${num(soak.baselineAtSeconds)} s MiB | RSS after GC at the end MiB | max RSS MiB ` +
      `| growth | growth without forced GC (mean ` +
      `RSS, ${num(soak.baselineAtSeconds)}-${num(2 * soak.baselineAtSeconds)} s vs the ` +
      `last ${num(soak.baselineAtSeconds)} s) | V8 heap retained (after a full GC) ` +
      `at ${num(soak.baselineAtSeconds)} s / end MiB | V8 heap committed / end MiB | committed growth by heap ` +
      `space MiB | external / end MiB |`,
    '|---|---|---|---|---|---|---|---|---|---|',
    ...soak.rss.map(
      (r) =>
        `| ${r.name} | ${r.baselineMiB.toFixed(1)} | ${r.finalMiB.toFixed(1)} | ${r.maxMiB.toFixed(1)} ` +
        `| ${pct(r.growthPct)}% ` +
        `| ${pct(r.sampledGrowthPct)}% ` +
        `| ${r.baselineHeapMiB.toFixed(1)} / ${r.finalHeapMiB.toFixed(1)} | ${r.baselineHeapTotalMiB.toFixed(1)} ` +
        `/ ${r.finalHeapTotalMiB.toFixed(1)} | ${spaceGrowth(r.spaceGrowthMiB)} ` +
        `| ${r.baselineExternalMiB.toFixed(1)} / ${r.finalExternalMiB.toFixed(1)} |`,
    ),
    ...cacheSoakLines(results),
    '',
    `Mean RSS (MiB, plain samples, no forced GC) in each fifth of the ${soak.seconds} s soak: where each ` +
      `process levels off.`,
    '',
    '| Process | 1st | 2nd | 3rd | 4th | 5th |',
    '|---|---|---|---|---|---|',
    ...soak.rss.map(
      (r) => `| ${r.name} | ${r.fifthsMiB.map((v) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a')).join(' | ')} |`,
    ),
    '',
  );
  return lines.join('\n');
}
