/**
 * Issue 16, item 2, timed (built processes, a private nats-server, the
 * suite's private mariadbd): the REST full lists are streamed a page at a
 * time, so a big list costs the BFF one page, not the list. With 100,000
 * products seeded by SQL, `GET /api/productos` answers all of them in id
 * order; 4 of them at once (after a warm-up round of the same) grow the
 * BFF's RSS by less than 64 MiB while `/actuator/health/liveness` keeps a
 * p99 under 100 ms; and 30 clients that
 * send the request and never read are cut off after HTTP_WRITE_TIMEOUT_MS,
 * pinning no memory meanwhile or after.
 */
import { readFileSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { createDb } from '@inventario/platform';
import { startPrivateNatsServer, waitFor, type PrivateNatsServer } from '@inventario/testkit';
import { startLoad, type LoadSample } from './support/load';
import { killAllServiceProcesses, startProcessStack, type ProcessStack } from './support/processes';

const PRODUCTOS = 100_000;
const MIB = 1024 * 1024;
const WRITE_TIMEOUT_MS = 3000;
const PRECIOS = ['19.90', '0.00', '99999999.99', '7.05'];

let nats: PrivateNatsServer;
let stack: ProcessStack;

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  stack = await startProcessStack({
    label: 'f_lists',
    natsUrl: nats.url,
    // MALLOC_ARENA_MAX=2 as every service image sets it: without it glibc keeps freed memory in per-thread arenas
    // and the resident size measured below need not come back on some machines (it did not on an Intel host).
    env: { bff: { HTTP_WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS), MALLOC_ARENA_MAX: '2' } },
  });
  // Straight into producto-svc's database, in batches: 100,000 creates through the API would take minutes.
  const db = createDb(stack.databaseUrls['producto-svc'], { poolMax: 1 });
  try {
    const at = new Date('2026-05-06T07:08:09Z');
    for (let start = 0; start < PRODUCTOS; start += 5000) {
      const rows = Array.from({ length: 5000 }, (_, k) => {
        const i = start + k;
        return {
          nombre: `Producto ${i}`,
          descripcion: i % 4 === 0 ? null : `Descripción ñandú 🍎 del producto ${i}`,
          precio: PRECIOS[i % PRECIOS.length],
          cantidad_en_stock: i % 100,
          bodega_id: null,
          fecha_creacion: at,
          fecha_actualizacion: at,
        };
      });
      await db('productos').insert(rows);
    }
  } finally {
    await db.destroy();
  }
}, 300_000);

afterAll(async () => {
  await stack?.close();
  await killAllServiceProcesses();
  await nats?.dispose();
});

/** The BFF's resident set now, in MiB (Linux /proc). */
function bffRssMiB(): number {
  const status = readFileSync(`/proc/${stack.process('bff').pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error('no VmRSS in /proc/<pid>/status');
  return Number(kb) / 1024;
}

/** Samples the BFF's RSS every 25 ms until stopped; resolves with every reading. */
function sampleRss(): { stop(): number[] } {
  const readings = [bffRssMiB()];
  const timer = setInterval(() => readings.push(bffRssMiB()), 25);
  return {
    stop() {
      clearInterval(timer);
      readings.push(bffRssMiB());
      return readings;
    },
  };
}

/** GET `path` as the BFF's user, the body kept as received (parsing it would stall this process's timers). */
function getRaw(path: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = get(
      `${stack.baseUrl}${path}`,
      { headers: { authorization: stack.auth }, agent: false },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

/** Every product of a list body is there, once, in id order. */
function expectComplete(body: Buffer): void {
  const list = JSON.parse(body.toString('utf8')) as { id: number; precio: number }[];
  expect(list).toHaveLength(PRODUCTOS);
  const ids = list.map((p) => p.id);
  expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
  expect(ids[PRODUCTOS - 1]! - ids[0]!).toBe(PRODUCTOS - 1);
}

/** GET /actuator/health/liveness back to back (10 ms apart) until stopped. */
function probeLiveness() {
  return startLoad({ concurrency: 1, pauseMs: 10, send: () => fetch(`${stack.baseUrl}/actuator/health/liveness`) });
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;
const maxOf = (values: number[]) => Math.max(...values);

/** 4 full lists at once, bodies kept raw; resolves with them and the time it took. */
async function fourLists(): Promise<{ lists: { status: number; body: Buffer }[]; ms: number }> {
  const startedAt = performance.now();
  const lists = await Promise.all(Array.from({ length: 4 }, () => getRaw('/api/productos')));
  return { lists, ms: performance.now() - startedAt };
}

test(`GET /api/productos answers all ${PRODUCTOS} products in id order; 4 at once grow RSS by < 64 MiB, liveness p99 < 100 ms`, async () => {
  const fresh = bffRssMiB();
  const startedAt = performance.now();
  const one = await getRaw('/api/productos');
  const oneMs = performance.now() - startedAt;
  expect(one.status).toBe(200);
  expect(one.body.toString('utf8', 0, 200)).toMatch(
    /^\[\{"id":\d+,"nombre":"Producto 0","descripcion":null,"precio":19\.90,/,
  );
  expectComplete(one.body);

  // Warm-up with the same load: the first round sizes V8's young generation
  // and the old generation's room for garbage to this allocation rate (about
  // 70 MiB once, whatever the lists' length); the measured round shows what
  // 4 lists hold beyond that. The code before streaming held every list:
  // +460 MiB in that same measured round, after its own warm-up.
  const warmUpRss = sampleRss();
  const warmUp = await fourLists();
  const warmUpPeak = maxOf(warmUpRss.stop());
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const baseline = bffRssMiB();
  const rss = sampleRss();
  const liveness = probeLiveness();
  const four = await fourLists();
  const probes = await liveness.stop();
  const peak = maxOf(rss.stop());

  const probeMs = probes.map((p: LoadSample) => p.ms);
  process.stdout.write(
    `list-streaming: one list of ${PRODUCTOS} products, ${(one.body.length / MIB).toFixed(1)} MiB, in ${oneMs.toFixed(0)} ms; ` +
      `BFF RSS ${fresh.toFixed(1)} MiB fresh, warm-up round of 4 lists in ${warmUp.ms.toFixed(0)} ms peaking at ${warmUpPeak.toFixed(1)} MiB; ` +
      `measured round of 4 in ${four.ms.toFixed(0)} ms: RSS ${baseline.toFixed(1)} MiB at rest, peak ${peak.toFixed(1)} MiB ` +
      `(+${(peak - baseline).toFixed(1)}); liveness ${probes.length} probes, p50 ${percentile(probeMs, 50)} ms, ` +
      `p99 ${percentile(probeMs, 99)} ms, max ${maxOf(probeMs)} ms\n`,
  );

  for (const list of [...warmUp.lists, ...four.lists]) {
    expect(list.status).toBe(200);
    expect(list.body.equals(one.body)).toBe(true);
  }
  expect(peak - baseline).toBeLessThan(64);
  expect(probes.filter((p) => p.status !== 200).map((p) => `${p.status ?? p.networkError} in ${p.ms} ms`)).toEqual([]);
  expect(probes.length).toBeGreaterThan(10);
  expect(percentile(probeMs, 99)).toBeLessThan(100);
});

test(`30 clients that never read are cut off after HTTP_WRITE_TIMEOUT_MS (${WRITE_TIMEOUT_MS} ms) and pin no memory`, async () => {
  const bff = stack.process('bff');
  const cutsBefore = bff.lines.filter(
    (l) => l.msg === 'list stream: the client took nothing in time, connection cut',
  ).length;
  const baseline = bffRssMiB();
  const rss = sampleRss();
  const port = Number(new URL(stack.baseUrl).port);
  const sockets: Socket[] = await Promise.all(
    Array.from(
      { length: 30 },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => {
            socket.write(`GET /api/productos HTTP/1.1\r\nHost: bff\r\nAuthorization: ${stack.auth}\r\n\r\n`);
            // Never read: the kernel's buffers fill, then every write of the BFF waits.
            socket.pause();
            resolve(socket);
          });
          socket.once('error', reject);
        }),
    ),
  );
  const sentAt = performance.now();
  await waitFor(
    () =>
      bff.lines.filter((l) => l.msg === 'list stream: the client took nothing in time, connection cut').length -
        cutsBefore >=
      30,
    'the BFF to cut off all 30 clients',
    WRITE_TIMEOUT_MS * 10,
  );
  const cutMs = performance.now() - sentAt;
  const readings = rss.stop();
  // Nothing of theirs is left: the BFF returns to its resting size (V8 shrinks an idle heap within seconds).
  const returnedAt = performance.now();
  const after = await waitFor(
    () => {
      const now = bffRssMiB();
      return now - baseline < 32 ? now : undefined;
    },
    'the BFF RSS to return within 32 MiB of its size before the 30 clients',
    60_000,
  ).catch(() => bffRssMiB());
  const returnMs = performance.now() - returnedAt;

  // What each client did receive ends without the body's last chunk: a truncated response.
  const received = await Promise.all(
    sockets.map(
      (socket) =>
        new Promise<string>((resolve) => {
          let tail = '';
          let head = '';
          socket.on('data', (chunk: Buffer) => {
            if (head.length < 20) head += chunk.toString('latin1', 0, 20);
            tail = (tail + chunk.toString('latin1')).slice(-16);
          });
          socket.once('close', () =>
            resolve(`${head.slice(0, 15)}|${tail.endsWith('\r\n0\r\n\r\n') ? 'complete' : 'truncated'}`),
          );
          socket.once('error', () => undefined);
          socket.resume();
        }),
    ),
  );
  const peak = maxOf(readings);
  process.stdout.write(
    `list-streaming: 30 never-reading clients cut off within ${cutMs.toFixed(0)} ms of their requests; ` +
      `BFF RSS ${baseline.toFixed(1)} MiB before, peak ${peak.toFixed(1)} MiB (+${(peak - baseline).toFixed(1)}), ` +
      `${after.toFixed(1)} MiB ${returnMs.toFixed(0)} ms after the cut\n`,
  );
  expect(received).toEqual(Array.from({ length: 30 }, () => 'HTTP/1.1 200 OK|truncated'));
  // Each first fills the kernel's socket buffers, then waits out the timeout: without it they would stay forever.
  expect(cutMs).toBeLessThan(WRITE_TIMEOUT_MS + 10_000);
  // A stalled client holds one page (1000 products, ~220 KB, as producto-svc wrote it) until it is cut off; the rest is garbage V8 has not collected yet.
  expect(peak - baseline).toBeLessThan(96);
  expect(after - baseline).toBeLessThan(32);
  // And the BFF still answers lists in full.
  const list = await getRaw('/api/productos');
  expect(list.status).toBe(200);
  expectComplete(list.body);
});
