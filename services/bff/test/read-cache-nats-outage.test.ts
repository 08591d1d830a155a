/**
 * The read cache when NATS goes away (docs/contract.md §11): the services
 * and both BFF replicas use a private nats-server, stopped mid-run under
 * the concurrent workload of support/coherence.ts and started again, with
 * its store kept or lost (a fresh store: the stream is re-created and its
 * sequence restarts at 1, so "resume after the last sequence seen" would
 * skip events); or only replica B's link to it cut while the services keep
 * publishing (B's next subscription from "new" never sees those events, so
 * it must not keep what it held). With a fresh store the services must make
 * the stream again themselves. Writes acknowledged while the outboxes held
 * a backlog are left out of the bound across replicas, as §11 says, until
 * both outboxes are empty. The cache must be bypassed (waited for
 * with a 5 s deadline; the time is printed, not judged: a wall-clock bound
 * fails on a loaded machine, and what protects readers is that no stale
 * read appears at any time), and the cache must serve again once a new
 * subscription follows the stream.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { countPendingEvents, createDb } from '@inventario/platform';
import { startPrivateNatsServer, waitFor, type PrivateNatsServer } from '@inventario/testkit';
import { startCacheStack, type CacheStack } from './support/cache-stack';
import { createWorkload, runWorkload, type BacklogWindow } from './support/coherence';
import { startTcpLink, type TcpLink } from './support/tcp-link';

let nats: PrivateNatsServer | undefined;
let stack: CacheStack | undefined;
let link: TcpLink | undefined;

afterEach(async () => {
  await stack?.close();
  await link?.close();
  link = undefined;
  await nats?.dispose();
  stack = undefined;
  nats = undefined;
});

async function totalHits(s: CacheStack): Promise<number> {
  const counts = await Promise.all(
    s.replicas.flatMap((r) => [
      r.metric('bff_read_cache_hits_total', { kind: 'producto' }),
      r.metric('bff_read_cache_hits_total', { kind: 'bodega' }),
    ]),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/** Both services' outboxes empty: their relays caught up with what waited while NATS was away. */
async function outboxesDrained(s: CacheStack): Promise<void> {
  const dbs = [createDb(s.backend.databaseUrls.producto), createDb(s.backend.databaseUrls.bodega)];
  try {
    await waitFor(
      async () => (await Promise.all(dbs.map(countPendingEvents))).every((n) => n === 0),
      'the outboxes to drain',
      20_000,
      50,
    );
  } finally {
    await Promise.all(dbs.map((db) => db.destroy()));
  }
}

test.each([
  ['with its store kept', false],
  ['with a fresh store (the stream restarts at sequence 1)', true],
])(
  'NATS restarted %s: the cache is bypassed, no stale read, cache serving again afterwards',
  async (_label, freshStore) => {
    nats = await startPrivateNatsServer();
    const s = await startCacheStack(freshStore ? 'cache_nats_fresh' : 'cache_nats_kept', { natsUrl: nats.url });
    stack = s;
    await s.allServing();
    const workload = await createWorkload(s.replicas[0], 2, 4);
    const stop = new AbortController();
    const backlog: BacklogWindow = {};
    const run = runWorkload(s.replicas, workload, stop.signal, backlog);
    let natsDown = false;
    try {
      await sleep(4000);
      expect(await totalHits(s)).toBeGreaterThan(0);

      const stoppedAt = performance.now();
      backlog.from = stoppedAt;
      natsDown = true;
      await nats.stop();
      await waitFor(
        async () =>
          (await Promise.all(s.replicas.map((r) => r.metric('bff_read_cache_bypassed')))).every((v) => v === 1),
        'both replicas to bypass their cache',
        5000,
        20,
      );
      const bypassMs = performance.now() - stoppedAt;

      // Writes go on while NATS is away (their events wait in the outboxes); reads must see them.
      await sleep(3000);
      if (freshStore) rmSync(join(nats.storeDir, 'jetstream'), { recursive: true, force: true });
      await nats.start();
      natsDown = false;
      if (freshStore) {
        // The services make the stream again when they reconnect (a server that lost its store).
        const { nc, namespace } = s.backend;
        await waitFor(
          () =>
            jetstreamManager(nc)
              .then((jsm) => jsm.streams.info(namespace.stream))
              .then(
                () => true,
                () => false,
              ),
          'the services to create the stream again',
          20_000,
          100,
        );
      }
      await s.allServing(20_000);
      await outboxesDrained(s);
      backlog.to = performance.now();
      const hitsAtResume = await totalHits(s);
      await waitFor(async () => (await totalHits(s)) > hitsAtResume, 'the caches to serve again', 20_000, 100);
      const hitsAfter = await totalHits(s);

      stop.abort();
      const result = await run;
      process.stdout.write(
        `NATS restart ${_label}: bypassed ${Math.round(bypassMs)} ms after the stop; ${result.reads} reads, ${result.writes} writes (${result.timedOut} answered 504); hits ${hitsAtResume} -> ${hitsAfter}\n`,
      );
      expect(result.violations).toEqual([]);
      expect(hitsAfter).toBeGreaterThan(hitsAtResume);
    } finally {
      stop.abort();
      await run;
      // A failed run must not leave the clients reconnecting forever.
      if (natsDown) await nats.start();
    }
  },
  90_000,
);

test("replica B's link to NATS cut while events flow: B bypasses, never serves what it missed, and serves again afterwards", async () => {
  nats = await startPrivateNatsServer();
  link = await startTcpLink(nats.port);
  const s = await startCacheStack('cache_nats_link', {
    natsUrl: nats.url,
    replicaEnv: [{}, { NATS_URL: `nats://127.0.0.1:${link.port}` }],
  });
  stack = s;
  await s.allServing();
  const workload = await createWorkload(s.replicas[0], 2, 4);
  const stop = new AbortController();
  const run = runWorkload(s.replicas, workload, stop.signal);
  const b = s.replicas[1];
  const bHits = async () =>
    (await b.metric('bff_read_cache_hits_total', { kind: 'producto' })) +
    (await b.metric('bff_read_cache_hits_total', { kind: 'bodega' }));
  try {
    await waitFor(async () => (await bHits()) > 0, 'replica B to serve from its cache', 20_000, 100);

    const cutAt = performance.now();
    link.cut();
    await waitFor(
      async () => (await b.metric('bff_read_cache_bypassed')) === 1,
      'replica B to bypass its cache',
      5000,
      20,
    );
    const bypassMs = performance.now() - cutAt;
    // Replica A still follows the stream and serves from its cache.
    expect(await s.replicas[0].metric('bff_read_cache_bypassed')).toBe(0);

    await sleep(3000);
    link.restore();
    await s.allServing(20_000);
    const hitsAtResume = await bHits();
    await waitFor(async () => (await bHits()) > hitsAtResume, 'replica B to serve again', 20_000, 100);
    const hitsAfter = await bHits();

    stop.abort();
    const result = await run;
    process.stdout.write(
      `NATS link of replica B cut: bypassed ${Math.round(bypassMs)} ms after the cut; ${result.reads} reads, ${result.writes} writes (${result.timedOut} answered 504); B hits ${hitsAtResume} -> ${hitsAfter}\n`,
    );
    expect(result.violations).toEqual([]);
    expect(hitsAfter).toBeGreaterThan(hitsAtResume);
  } finally {
    stop.abort();
    await run;
  }
}, 90_000);
