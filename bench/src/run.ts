import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { waitFor } from '@inventario/testkit';
import type { NatsConnection } from '@inventario/platform';
import type { BenchDb } from './bench-db';
import { cacheSoak, prepareCacheSoak, readCacheMetrics, type CacheSoakFigures } from './cache-soak';
import type { BenchConfig } from './config';
import { measureEvents, measureRelay, type EventFigures } from './events';
import { measureLogins, type LoginFigures } from './logins';
import { runLoad, type LoadResult, type RequestContext, type RequestShape } from './load';
import type { LoopSample } from './loop-protocol';
import type { Seed } from './seed';
import { median } from './stats';
import { soak, type SoakFigures } from './soak';
import type { Stack } from './stack';
import { verifyStock, type StockVerification } from './stock';
import type { Target, TargetKey } from './targets';

export type Say = (line: string) => void;

/** One window of one target: the load figures and, per process, its event-loop delay and CPU ms per request. */
export interface Window {
  load: LoadResult;
  loop: Record<string, LoopSample>;
  cpuMsPerRequest: Record<string, number>;
}

export interface BenchResults {
  targets: Target[];
  /** Per target, one window per round, under full load and at one connection. */
  loaded: Map<TargetKey, Window[]>;
  sequential: Map<TargetKey, Window[]>;
  events: EventFigures;
  /** events/s; NaN when not measured (a running stack's outbox is not ours to fill). */
  relayPerSecond: number;
  /** Cache-miss Basic logins through bff-identidad (issue 26); absent on a running stack. */
  logins?: LoginFigures;
  soak: SoakFigures;
  /** The paced writes that ran during the soak. */
  soakEvents: EventFigures;
  /** The cached BFF's reads and writes during the soak, its cache full; absent on a running stack. */
  cacheSoak?: CacheSoakFigures;
  /** The ledger verification after the soak; absent when no stock target ran. */
  stock?: StockVerification;
}

export interface RunDeps {
  config: BenchConfig;
  stack: Stack;
  seed: Seed;
  targets: Target[];
  db: BenchDb;
  nc: NatsConnection;
  say: Say;
}

/**
 * Emails expected so far: one per product, warehouse and StockBajo event in the stream (docs/contract.md §6.1, §10.4).
 */
async function expectedEmails(nc: NatsConnection, stack: Stack): Promise<number> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(stack.stream, { subjects_filter: `${stack.prefix}.>` });
  const subjects = info.state.subjects ?? {};
  return (
    Object.entries(subjects)
      // The emailed subjects only: dead letters (`<prefix>.dlq.<type>`), MovimientoRegistrado, StockRepuesto and the
      // reservations but ReservaDescubierta get none.
      .filter(([subject]) =>
        ['producto.', 'bodega.', 'stock.bajo', 'reserva.descubierta'].some((emailed) =>
          subject.startsWith(`${stack.prefix}.${emailed}`),
        ),
      )
      .reduce((sum, [, n]) => sum + n, 0)
  );
}

/** The stream's consumers still behind (messages not delivered, or delivered and not acked), by name. */
async function consumersBehind(nc: NatsConnection, stack: Stack): Promise<string[]> {
  const jsm = await jetstreamManager(nc);
  const behind: string[] = [];
  for await (const consumer of jsm.consumers.list(stack.stream)) {
    if (consumer.num_pending > 0 || consumer.num_ack_pending > 0) {
      behind.push(`${consumer.name} (${consumer.num_pending} pending, ${consumer.num_ack_pending} unacked)`);
    }
  }
  return behind;
}

/**
 * Waits until the system is quiet again: the outboxes drained (producto-svc's,
 * and bodega-svc's, where the stock writes' events wait), with a sink every
 * emailed event's email accepted, and every consumer of the stream caught up
 * (the audit trail, the read caches' invalidation, the projections). A write
 * window leaves work behind that would otherwise load the next target's
 * window: a 32-client stock window leaves thousands of events that the
 * followers were still working through in the next read window.
 * A consumer that stays behind (a message waiting for a redelivery) is
 * reported and not waited for past `followersMs`.
 */
export async function settle(
  deps: Pick<RunDeps, 'stack' | 'db' | 'nc'> & { say?: Say },
  timeoutMs = 180_000,
  followersMs = 60_000,
): Promise<void> {
  const { stack, db, nc } = deps;
  await waitFor(async () => (await db.pendingOutbox()) === 0, 'the outbox to drain', timeoutMs, 100);
  const sink = stack.sink;
  if (sink && stack.owned) {
    const expected = await expectedEmails(nc, stack);
    await waitFor(() => sink.count() >= expected, `${expected} emails at the sink`, timeoutMs, 100);
  }
  // A running stack's consumers are the deployment's, not the bench's to wait for.
  if (!stack.owned) return;
  let behind: string[] = [];
  await waitFor(
    async () => (behind = await consumersBehind(nc, stack)).length === 0,
    'the stream consumers to catch up',
    followersMs,
    100,
  ).catch((err: unknown) =>
    deps.say?.(`settle: ${err instanceof Error ? err.message : String(err)}; last seen behind: ${behind.join(', ')}`),
  );
}

/** Sends one request of each target and checks it answers 2xx (and GraphQL without errors). */
export async function verifyTargets(targets: Target[], say: Say): Promise<void> {
  for (const target of targets) {
    await target.prepare?.();
    const context: RequestContext = {};
    // A sequence (RequestShape.then) is checked step by step, with one context.
    for (let request: RequestShape | undefined = target.request; request; request = request.then) {
      const varying = request.setup?.(context) ?? {};
      const response = await fetch(`${target.url}${varying.path ?? request.path}`, {
        method: request.method,
        headers: { ...request.headers, ...varying.headers },
        body: varying.body ?? request.body,
      });
      const text = await response.text();
      request.onResponse?.(response.status, text, Object.fromEntries(response.headers), context);
      const failedBody = request.verifyBody ? !request.verifyBody(text) : false;
      if (response.status < 200 || response.status > 299 || failedBody) {
        throw new Error(`${target.label} answered ${response.status}: ${text.slice(0, 300)}`);
      }
    }
  }
  say(`verified ${targets.length} targets answer 2xx`);
}

async function loadWindow(deps: RunDeps, target: Target, connections: number, seconds: number): Promise<Window> {
  const { stack, db, seed } = deps;
  await target.prime?.();
  await target.prepare?.();
  const cpuBefore = new Map(stack.children.map((child) => [child.name, child.cpuMs()]));
  for (const child of stack.children) child.resetLoop();
  const load = await runLoad({ url: target.url, request: target.request, connections, durationSeconds: seconds });
  const loop: Record<string, LoopSample> = {};
  const cpuMsPerRequest: Record<string, number> = {};
  for (const child of stack.children) {
    loop[child.name] = await child.readLoop();
    cpuMsPerRequest[child.name] = (child.cpuMs() - (cpuBefore.get(child.name) ?? 0)) / Math.max(1, load.requests);
  }
  if (target.writes) {
    await settle(deps);
    // List targets keep their size: rows a POST window added go (no events; bench only).
    // Keys go too, so every keyed window inserts into the same (empty) key table.
    // Stock windows leave ledger lines, which stay (append-only) and no list target reads.
    if (target.writes === 'productos' && stack.owned) {
      await db.trimProductos(seed.maxProductoId);
      await db.trimIdempotencyKeys();
    }
  }
  return { load, loop, cpuMsPerRequest };
}

const rate = (r: LoadResult) =>
  `${Math.round(r.reqPerSec)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ${r.errors} errors` +
  (r.errors > 0 ? ` ${JSON.stringify(r.statuses)}` : '');

/**
 * The order of one round (1-based). A baseline and the targets judged
 * against it run as one block, at the baseline's place in the list: in
 * odd rounds the baseline first and then the others; in even rounds the
 * mirror image, the others reversed and the baseline last. So in each pair
 * of rounds every target of the block runs once after and once before its
 * baseline, at the same distance from it (ABBA: with one target, as for a
 * safe write and its plain variant, the two just swap places). With
 * several targets on one baseline (REST POST /api/productos: the keyed
 * create and both stock writes) one of them sits next to the baseline and
 * the others further off, so they rotate by one place from each pair of
 * rounds to the next: over 2k rounds (k targets on the baseline) each
 * takes every distance equally often (5 rounds with 3: distances summing
 * to 10, 9 and 11 windows; 6 rounds: 12 each). Everything else runs as listed.
 */
export function roundOrder(targets: readonly Target[], round: number): Target[] {
  const keys = new Set(targets.map((t) => t.key));
  const pair = Math.floor((round - 1) / 2);
  const order: Target[] = [];
  for (const target of targets) {
    if (target.baseline && keys.has(target.baseline)) continue; // runs in its baseline's block
    const judged = targets.filter((t) => t.baseline === target.key);
    const shift = judged.length > 0 ? pair % judged.length : 0;
    const rotated = [...judged.slice(shift), ...judged.slice(0, shift)];
    order.push(...(round % 2 === 1 ? [target, ...rotated] : [...rotated.reverse(), target]));
  }
  return order;
}

/**
 * The whole measurement, in the order README.md gives: a discarded warm-up
 * of every target, then `rounds` rounds, each running every target under
 * load and then every target at one connection (A B C ... A B C ...), so
 * slow drifts of a shared machine touch every target alike (a target
 * judged against a baseline runs near it, after it in odd rounds and
 * before it in even ones: roundOrder); then the event figures at a fixed write rate, the relay
 * alone, the soak, and, when stock targets ran, the ledger verification.
 */
export async function runBench(deps: RunDeps): Promise<BenchResults> {
  const { config, targets, say } = deps;
  const loaded = new Map<TargetKey, Window[]>(targets.map((t) => [t.key, []]));
  const sequential = new Map<TargetKey, Window[]>(targets.map((t) => [t.key, []]));

  say(`warm-up: ${config.warmupSeconds} s per target (discarded)`);
  for (const target of targets)
    await loadWindow(deps, target, target.connections ?? config.connections, config.warmupSeconds);

  for (let round = 1; round <= config.rounds; round++) {
    const order = roundOrder(targets, round);
    for (const target of order) {
      const connections = target.connections ?? config.connections;
      const w = await loadWindow(deps, target, connections, config.durationSeconds);
      loaded.get(target.key)?.push(w);
      say(`round ${round} ${target.label} x${connections}: ${rate(w.load)}`);
    }
    for (const target of order) {
      const w = await loadWindow(deps, target, 1, config.durationSeconds);
      sequential.get(target.key)?.push(w);
      say(`round ${round} ${target.label} x1: ${rate(w.load)}`);
    }
  }

  say(`events: ${config.eventRate} writes/s for ${config.eventSeconds} s`);
  const events = await measureEvents(deps.stack, deps.nc, deps.db, deps.seed, config.eventRate, config.eventSeconds);
  say(
    `events: outbox lag p99 ${events.outboxLagP99.toFixed(1)} ms, write -> email p99 ${events.emailP99.toFixed(1)} ms`,
  );
  await settle(deps);

  let relayPerSecond = Number.NaN;
  if (deps.stack.owned) {
    relayPerSecond = await measureRelay(deps.stack, deps.nc, deps.db, config.relayEvents);
    say(`relay: ${Math.round(relayPerSecond)} events/s`);
  }

  let logins: LoginFigures | undefined;
  if (deps.stack.identidad) {
    logins = await measureLogins(deps.stack, config.loginUsers, config.connections);
    say(
      `logins (cache miss, one argon2id verification each): ${logins.perSecond.toFixed(1)}/s, ` +
        `${logins.perCore.toFixed(1)}/s per core (${logins.cores} cores), ${logins.errors} errors`,
    );
  }

  const getById = targets.find((t) => t.key === 'restGetById') as Target;
  const maxRate = median(loaded.get('restGetById')?.map((w) => w.load.reqPerSec) ?? []);
  const half = Math.max(1, Math.round(maxRate / 2));
  say(
    `soak: ${getById.label} at ${half} req/s (half of ${Math.round(maxRate)}) for ${config.soakSeconds} s, ` +
      `with ${config.soakWriteRate} writes/s`,
  );
  // Issue 14: the cached BFF soaks alongside, its cache full (README "Soak").
  const { bffCachedMetricsUrl: metricsUrl, readCacheMaxEntries: maxEntries } = deps.stack;
  const cached = deps.stack.owned && metricsUrl !== undefined && maxEntries !== undefined;
  let cacheIds: number[] = [];
  if (cached) {
    cacheIds = await prepareCacheSoak(deps.stack, deps.db, deps.seed);
    say(
      `soak: bff-cached at ${config.soakCachedRate} req/s over ${cacheIds.length} products, cache ` +
        `of ${maxEntries} entries filled, ` +
        `plus ${config.soakWriteRate} PUTs/s through both BFFs`,
    );
  }
  const cacheStart = cached ? await readCacheMetrics(metricsUrl) : undefined;
  await sleep(1000);
  const soakEventsPromise = measureEvents(
    deps.stack,
    deps.nc,
    deps.db,
    deps.seed,
    config.soakWriteRate,
    config.soakSeconds,
  );
  const cachePromise = cached
    ? cacheSoak(deps.stack, cacheIds, config.soakCachedRate, config.soakWriteRate, config.soakSeconds)
    : undefined;
  const soakFigures = await soak(
    getById,
    deps.stack.children,
    half,
    config.soakSeconds,
    Promise.all([soakEventsPromise, cachePromise]),
  );
  const soakEvents = await soakEventsPromise;
  say(`soak: ${rate(soakFigures.load)}; write errors ${soakEvents.writeErrors}`);
  let cacheSoakFigures: CacheSoakFigures | undefined;
  if (cached && cachePromise && cacheStart) {
    const cachedRun = await cachePromise;
    cacheSoakFigures = {
      maxEntries,
      records: cacheIds.length,
      rate: config.soakCachedRate,
      ...cachedRun,
      start: cacheStart,
      end: await readCacheMetrics(metricsUrl),
    };
    say(
      `soak: bff-cached ${rate(cachedRun.load)}; PUT errors ${cachedRun.writeErrors}; ` +
        `cache entries ${cacheSoakFigures.start.entries} -> ${cacheSoakFigures.end.entries} of ${maxEntries}`,
    );
  }

  let stock: StockVerification | undefined;
  if (targets.some((t) => t.writes === 'existencias')) {
    stock = await verifyStock(deps.stack.bffUrl, deps.stack.auth);
    say(
      `stock verification: ${
        stock.status === 200
          ? `consistente ${stock.consistente}, ${stock.diferencias} ` +
            `differences, ${stock.nivelesVerificados} levels and ${stock.bodegasVerificadas} warehouses checked`
          : `answered ${stock.status} ${stock.muestra}`
      }`,
    );
  }
  return {
    targets,
    loaded,
    sequential,
    events,
    relayPerSecond,
    ...(logins ? { logins } : {}),
    soak: soakFigures,
    soakEvents,
    ...(cacheSoakFigures ? { cacheSoak: cacheSoakFigures } : {}),
    ...(stock ? { stock } : {}),
  };
}
