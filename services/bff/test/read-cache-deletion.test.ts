/**
 * Deleted records and the read cache (docs/contract.md §11): once a
 * deletion is acknowledged through a replica, that replica never serves the
 * record again, and the other stops within 250 ms (the event delay); a
 * forced warehouse delete's unassigned products are never served with the
 * old bodegaId by the same rules. Readers hammer both replicas (REST and
 * GraphQL) around the deletion, the records cached on both beforehand.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startCacheStack, type CacheReplica, type CacheStack } from './support/cache-stack';
import { STALENESS_MS } from './support/coherence';

let stack: CacheStack;

beforeAll(async () => {
  stack = await startCacheStack('cache_deletion');
  await stack.allServing();
});

afterAll(async () => {
  await stack?.close();
});

interface Seen {
  replica: number;
  start: number;
  /** What the read said about the record: gone, or a field's value. */
  value: unknown;
}

/** Reads `read` on both replicas, two readers each, until `signal` aborts. */
async function observe(read: (replica: CacheReplica) => Promise<unknown>, signal: AbortSignal): Promise<Seen[]> {
  const seen: Seen[] = [];
  await Promise.all(
    stack.replicas.flatMap((replica, r) =>
      [0, 1].map(async () => {
        while (!signal.aborted) {
          const start = performance.now();
          seen.push({ replica: r, start, value: await read(replica) });
          await sleep(2);
        }
      }),
    ),
  );
  return seen;
}

/** Reads that began after the ack on the deleting replica (0), or more than 250 ms after it on the other, and still saw `stale`. */
function staleAfter(seen: Seen[], ackAt: number, isStale: (value: unknown) => boolean): Seen[] {
  return seen.filter((s) => (s.replica === 0 ? s.start > ackAt : s.start > ackAt + STALENESS_MS) && isStale(s.value));
}

async function hits(): Promise<number> {
  const counts = await Promise.all(
    stack.replicas.flatMap((r) => [
      r.metric('bff_read_cache_hits_total', { kind: 'producto' }),
      r.metric('bff_read_cache_hits_total', { kind: 'bodega' }),
    ]),
  );
  return counts.reduce((a, b) => a + b, 0);
}

test('a deleted product is never served after its deletion is acknowledged on that replica, nor 250 ms after on the other', async () => {
  const created = await stack.replicas[0].request('POST', '/api/productos', {
    body: { nombre: 'Efímero', precio: 2, cantidadEnStock: 1 },
  });
  const id = created.body.id as number;
  const hitsBefore = await hits();
  const stop = new AbortController();
  const restOrGraphql = async (replica: CacheReplica) => {
    if (Math.random() < 0.5) return (await replica.request('GET', `/api/productos/${id}`)).status;
    const res = await replica.request('POST', '/api/graphql', { body: { query: `{ producto(id: "${id}") { id } }` } });
    return res.body?.data?.producto === null ? 404 : 200;
  };
  const observing = observe(restOrGraphql, stop.signal);
  await sleep(500);
  const deleted = await stack.replicas[0].request('DELETE', `/api/productos/${id}`);
  const ackAt = performance.now();
  expect(deleted.status).toBe(204);
  await sleep(1000);
  stop.abort();
  const seen = await observing;

  // It was served from the cache before (else this proves nothing), and never after.
  expect(await hits()).toBeGreaterThan(hitsBefore);
  expect(seen.filter((s) => s.start < ackAt - 50 && s.value === 200).length).toBeGreaterThan(0);
  expect(staleAfter(seen, ackAt, (status) => status !== 404)).toEqual([]);
}, 30_000);

test('a deleted warehouse is gone on both replicas by the same rules, and its products lose its bodegaId', async () => {
  const bodega = await stack.replicas[0].request('POST', '/api/bodegas', {
    body: { nombre: 'Temporal', ubicacion: 'Bilbao', capacidad: 100 },
  });
  const bodegaId = bodega.body.id as number;
  const producto = await stack.replicas[0].request('POST', '/api/productos', {
    body: { nombre: 'Asignado', precio: 2, cantidadEnStock: 1, bodegaId },
  });
  const productoId = producto.body.id as number;
  const hitsBefore = await hits();
  const stop = new AbortController();
  const both = async (replica: CacheReplica) => {
    const [b, p] = await Promise.all([
      replica.request('GET', `/api/bodegas/${bodegaId}`),
      replica.request('GET', `/api/productos/${productoId}`),
    ]);
    return { bodega: b.status, bodegaId: p.body?.bodegaId as number | null };
  };
  const observing = observe(both, stop.signal);
  await sleep(500);
  const deleted = await stack.replicas[0].request('DELETE', `/api/bodegas/${bodegaId}?force=true`);
  const ackAt = performance.now();
  expect(deleted.status).toBe(200);
  await sleep(1000);
  stop.abort();
  const seen = await observing;

  expect(await hits()).toBeGreaterThan(hitsBefore);
  expect(staleAfter(seen, ackAt, (v) => (v as { bodega: number }).bodega !== 404)).toEqual([]);
  expect(staleAfter(seen, ackAt, (v) => (v as { bodegaId: number | null }).bodegaId !== null)).toEqual([]);
}, 30_000);
