/**
 * A concurrent workload over a few products and warehouses through two BFF
 * replicas, and the read cache's coherence rules checked on everything it
 * saw (docs/contract.md §11):
 * - a read returns a version at least as new as any write acknowledged
 *   through the same replica before the read began (read-your-writes),
 * - and as any write acknowledged anywhere more than STALENESS_MS before it
 *   began (bounded staleness),
 * - and never older than one the same replica returned before it began
 *   (monotonic reads).
 * A warehouse's `ocupacion` has no version: the stock writes are all +1
 * entries, so after a write W it is at least initial + 1 + the writes
 * acknowledged before W was sent, and the same three rules apply to it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CacheReplica } from './cache-stack';

/** The bound on staleness across replicas (event delay). */
export const STALENESS_MS = 250;

interface Ack {
  replica: number;
  /** When the answer arrived (performance.now()). */
  at: number;
  version?: number;
  /** ocupacion is at least this after the write (stock writes). */
  ocupacionAtLeast?: number;
}

interface Read {
  replica: number;
  key: string;
  start: number;
  end: number;
  version: number;
  ocupacion?: number;
}

export interface Workload {
  productoIds: number[];
  bodegaIds: number[];
  /** Every warehouse's ocupacion when the run started. */
  initialOcupacion: Map<number, number>;
}

/**
 * Writes acknowledged while their service's outbox had a backlog (NATS stopped, then until the
 * relays drained it): the bound across replicas does not cover them (docs/contract.md §11, "What
 * the bound does not cover"), so the "acknowledged elsewhere" rule leaves them out. Read-your-writes
 * and monotonic reads still hold for them. Set by the test as the outage happens; `to` must be set
 * once the outboxes are empty, or the window stays open and the run is refused.
 */
export interface BacklogWindow {
  from?: number;
  to?: number;
}

export interface RunResult {
  reads: number;
  writes: number;
  /** Writes answered 504: their outcome is unknown to the client, so they are acknowledged to no check. */
  timedOut: number;
  violations: string[];
}

/** Creates `bodegas` warehouses and `productos` products spread over them, through replica 0. */
export async function createWorkload(replica: CacheReplica, bodegas: number, productos: number): Promise<Workload> {
  const bodegaIds: number[] = [];
  for (let i = 0; i < bodegas; i++) {
    const res = await replica.request('POST', '/api/bodegas', {
      body: { nombre: `B${i}`, ubicacion: 'Madrid', capacidad: 1_000_000 },
    });
    if (res.status !== 201) throw new Error(`create bodega: ${res.status} ${res.text}`);
    bodegaIds.push(res.body.id as number);
  }
  const productoIds: number[] = [];
  for (let i = 0; i < productos; i++) {
    const res = await replica.request('POST', '/api/productos', {
      body: { nombre: `P${i}`, precio: 1.5, cantidadEnStock: 1, bodegaId: bodegaIds[i % bodegaIds.length] },
    });
    if (res.status !== 201) throw new Error(`create producto: ${res.status} ${res.text}`);
    productoIds.push(res.body.id as number);
  }
  return { productoIds, bodegaIds, initialOcupacion: new Map(bodegaIds.map((id) => [id, 0])) };
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/**
 * Runs writers and readers on both replicas until `signal` aborts, then
 * checks every read against every acknowledged write.
 */
export async function runWorkload(
  replicas: readonly CacheReplica[],
  workload: Workload,
  signal: AbortSignal,
  backlog: BacklogWindow = {},
): Promise<RunResult> {
  const acks = new Map<string, Ack[]>();
  const reads: Read[] = [];
  const errors: string[] = [];
  let counter = 0;
  let timedOut = 0;
  // A write the gateway gave up on (504, a loaded machine) may or may not have committed: like a client,
  // the run records no acknowledgement for it. Every bound below is "at least what was acknowledged",
  // so a commit nobody acknowledged cannot make a correct read look stale.
  const unknownOutcome = (status: number) => status === 504 && ++timedOut > 0;
  /** Stock writes acknowledged so far, per warehouse (for the ocupacion bound). */
  const stockAcked = new Map<number, number>(workload.bodegaIds.map((id) => [id, 0]));

  const ack = (key: string, a: Ack) => {
    const list = acks.get(key) ?? [];
    list.push(a);
    acks.set(key, list);
  };

  async function loop(pauseMs: number, step: () => Promise<void>): Promise<void> {
    while (!signal.aborted) {
      try {
        await step();
      } catch (err) {
        errors.push(String(err));
      }
      await sleep(pauseMs);
    }
  }

  // Replica 0 writes every record, replica 1 only the first half: the other records change
  // only through replica 0, so replica 1 learns of those changes from the event stream alone.
  const writable = (r: number, ids: number[]) => (r === 0 ? ids : ids.slice(0, Math.ceil(ids.length / 2)));
  const writers = replicas.flatMap((replica, r) => [
    loop(30, async () => {
      const id = pick(writable(r, workload.productoIds));
      const res = await replica.request('PUT', `/api/productos/${id}`, { body: { nombre: `n${++counter}` } });
      if (unknownOutcome(res.status)) return;
      if (res.status !== 200) throw new Error(`PUT producto ${id} on ${replica.name}: ${res.status} ${res.text}`);
      ack(`p${id}`, { replica: r, at: performance.now(), version: res.body.version as number });
    }),
    loop(60, async () => {
      const id = pick(writable(r, workload.bodegaIds));
      const res = await replica.request('PUT', `/api/bodegas/${id}`, { body: { nombre: `n${++counter}` } });
      if (unknownOutcome(res.status)) return;
      if (res.status !== 200) throw new Error(`PUT bodega ${id} on ${replica.name}: ${res.status} ${res.text}`);
      ack(`b${id}`, { replica: r, at: performance.now(), version: res.body.version as number });
    }),
    loop(40, async () => {
      const id = pick(writable(r, workload.bodegaIds));
      // Committed before this write was sent, so counted in what it leaves.
      const before = stockAcked.get(id)!;
      const res = await replica.request('POST', `/api/bodegas/${id}/movimientos`, {
        body: { productoId: pick(workload.productoIds), tipo: 'ENTRADA', cantidad: 1 },
      });
      if (unknownOutcome(res.status)) return;
      if (res.status !== 201) throw new Error(`stock entry in ${id} on ${replica.name}: ${res.status} ${res.text}`);
      stockAcked.set(id, stockAcked.get(id)! + 1);
      ack(`b${id}`, {
        replica: r,
        at: performance.now(),
        ocupacionAtLeast: workload.initialOcupacion.get(id)! + before + 1,
      });
    }),
  ]);

  const readOnce = async (replica: CacheReplica, r: number) => {
    const start = performance.now();
    const choice = Math.floor(Math.random() * 4);
    const record = (key: string, body: unknown) => {
      const { version, ocupacion } = body as { version: number; ocupacion?: number };
      reads.push({ replica: r, key, start, end: performance.now(), version, ocupacion });
    };
    if (choice === 0) {
      const id = pick(workload.productoIds);
      const res = await replica.request('GET', `/api/productos/${id}`);
      if (res.status !== 200) throw new Error(`GET producto ${id}: ${res.status}`);
      record(`p${id}`, res.body);
    } else if (choice === 1) {
      const id = pick(workload.bodegaIds);
      const res = await replica.request('GET', `/api/bodegas/${id}`);
      if (res.status !== 200) throw new Error(`GET bodega ${id}: ${res.status}`);
      record(`b${id}`, res.body);
    } else if (choice === 2) {
      // producto(id) and its warehouse through the DataLoader batch.
      const id = pick(workload.productoIds);
      const res = await replica.request('POST', '/api/graphql', {
        body: { query: `{ producto(id: "${id}") { id version bodega { id version ocupacion } } }` },
      });
      const producto = res.body?.data?.producto as { bodega?: { id: number } } | null | undefined;
      if (res.status !== 200 || !producto?.bodega) throw new Error(`graphql producto ${id}: ${res.status} ${res.text}`);
      record(`p${id}`, producto);
      record(`b${producto.bodega.id}`, producto.bodega);
    } else {
      const id = pick(workload.bodegaIds);
      const res = await replica.request('POST', '/api/graphql', {
        body: { query: `{ bodega(id: "${id}") { id version ocupacion } }` },
      });
      const bodega: unknown = res.body?.data?.bodega;
      if (res.status !== 200 || !bodega) throw new Error(`graphql bodega ${id}: ${res.status} ${res.text}`);
      record(`b${id}`, bodega);
    }
  };
  const readers = replicas.flatMap((replica, r) => [0, 1].map(() => loop(5, () => readOnce(replica, r))));

  await Promise.all([...writers, ...readers]);
  const writes = [...acks.values()].reduce((n, list) => n + list.length, 0);
  if (backlog.from !== undefined && backlog.to === undefined)
    errors.push('the outbox backlog window was opened and never closed');
  if (writes === 0) errors.push('no write was acknowledged');
  return { reads: reads.length, writes, timedOut, violations: [...errors.slice(0, 5), ...check(reads, acks, backlog)] };
}

/** Every read against the three rules; one line per violation (at most 20). */
function check(reads: readonly Read[], acks: ReadonlyMap<string, Ack[]>, backlog: BacklogWindow): string[] {
  const inBacklog = (at: number) => backlog.from !== undefined && at >= backlog.from && at <= (backlog.to ?? Infinity);
  const out: string[] = [];
  const byReplicaKey = new Map<string, Read[]>();
  for (const read of reads) {
    const k = `${read.replica}/${read.key}`;
    const list = byReplicaKey.get(k) ?? [];
    list.push(read);
    byReplicaKey.set(k, list);
  }
  for (const read of reads) {
    let version = 0;
    let ocupacion = 0;
    let rule = '';
    let ocupacionRule = '';
    for (const a of acks.get(read.key) ?? []) {
      const same = a.replica === read.replica && a.at < read.start;
      const anywhere = a.at < read.start - STALENESS_MS && !inBacklog(a.at);
      if (!same && !anywhere) continue;
      const why = same ? 'read-your-writes' : `acknowledged >${STALENESS_MS} ms before`;
      if ((a.version ?? 0) > version) {
        version = a.version!;
        rule = why;
      }
      if ((a.ocupacionAtLeast ?? 0) > ocupacion) {
        ocupacion = a.ocupacionAtLeast!;
        ocupacionRule = why;
      }
    }
    for (const before of byReplicaKey.get(`${read.replica}/${read.key}`) ?? []) {
      if (before.end >= read.start) continue;
      if (before.version > version) {
        version = before.version;
        rule = 'monotonic';
      }
      if ((before.ocupacion ?? 0) > ocupacion) {
        ocupacion = before.ocupacion!;
        ocupacionRule = 'monotonic';
      }
    }
    if (read.version < version)
      out.push(`replica ${read.replica} read ${read.key} version ${read.version} < ${version} (${rule})`);
    if (read.ocupacion !== undefined && read.ocupacion < ocupacion)
      out.push(
        `replica ${read.replica} read ${read.key} ocupacion ${read.ocupacion} < ${ocupacion} (${ocupacionRule})`,
      );
    if (out.length >= 20) break;
  }
  return out;
}

/** The q-quantile of a Prometheus histogram's cumulative buckets (upper bound of the bucket it falls in), from /metrics text. */
export function histogramQuantile(
  text: string,
  name: string,
  labels: Record<string, string>,
  q: number,
): number | undefined {
  const buckets: [number, number][] = [];
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}_bucket{`) || !wanted.every((w) => line.includes(w))) continue;
    const le = /le="([^"]+)"/.exec(line)?.[1];
    buckets.push([le === '+Inf' ? Infinity : Number(le), Number(line.slice(line.lastIndexOf(' ') + 1))]);
  }
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total === 0) return undefined;
  return buckets.find(([, count]) => count >= q * total)?.[0];
}
