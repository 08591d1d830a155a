/**
 * A gRPC service that dies or hangs under load, as the BFF sees it (built
 * processes, a private nats-server, the shared MariaDB):
 * - producto-svc SIGKILLed under load: every product request answers 503
 *   within the deadline, the breaker opens, and once producto-svc runs
 *   again on its port the same BFF process serves 200s again;
 * - producto-svc SIGSTOPped (it holds the connection and never answers):
 *   requests end at GRPC_DEADLINE_MS with 504; once the breaker opens they
 *   answer 503 long before the deadline, so no call waited on the service;
 * - many requests ending at the deadline leave the BFF's memory flat.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, startPrivateNatsServer, waitFor, type PrivateNatsServer } from '@inventario/testkit';
import { startLoad, tally, type LoadSample } from './support/load';
import { bffEnv, killAllServiceProcesses, startProcessStack, startServiceProcess, type ProcessStack } from './support/processes';

const DEADLINE_MS = 2000;
const RESET_MS = 2000;

let nats: PrivateNatsServer;
let stack: ProcessStack;
let productoId: number;

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  stack = await startProcessStack({
    label: 'f_grpc',
    natsUrl: nats.url,
    env: {
      bff: { GRPC_DEADLINE_MS: String(DEADLINE_MS), BREAKER_RESET_MS: String(RESET_MS), BREAKER_VOLUME_THRESHOLD: '5' },
    },
  });
  const res = await stack.request('POST', '/api/productos', { body: { nombre: 'Carga', precio: 9.99, cantidadEnStock: 10 } });
  expect(res.status).toBe(201);
  productoId = res.body.id as number;
});

afterAll(async () => {
  stack?.process('producto-svc').signal('SIGCONT');
  await stack?.close();
  await killAllServiceProcesses();
  await nats?.dispose();
});

/** GETs of one product through a BFF, on keep-alive connections. */
function productLoad(baseUrl: string, concurrency: number, pauseMs = 5) {
  return startLoad({
    concurrency,
    pauseMs,
    send: () => fetch(`${baseUrl}/api/productos/${productoId}`, { headers: { authorization: stack.auth } }),
  });
}

async function productoBreaker(): Promise<string> {
  const res = await stack.request('GET', '/actuator/health', { auth: false });
  return res.body.components.productoSvc.details.breaker as string;
}

const after = (samples: LoadSample[], at: number) => samples.filter((s) => s.startedAt >= at);

test('producto-svc killed under load: 503 within the deadline, breaker opens, recovery after restart without restarting the BFF', async () => {
  const bff = stack.process('bff');
  const load = productLoad(stack.baseUrl, 8);
  try {
    await waitFor(() => load.samples.filter((s) => s.status === 200).length >= 100, 'load to be served', 30_000);

    const killedAt = Date.now();
    await stack.process('producto-svc').kill();
    await waitFor(async () => (await productoBreaker()) === 'open', 'the producto-svc breaker to open', 30_000);
    // Load goes on against the open breaker for a while.
    await sleep(RESET_MS);

    await stack.restart('producto-svc');
    const restartedAt = Date.now();
    await waitFor(() => {
      const recent = after(load.samples, restartedAt);
      return recent.length >= 50 && recent.slice(-50).every((s) => s.status === 200);
    }, '200s again after the restart', 60_000);

    const samples = await load.stop();
    const outage = samples.filter((s) => s.endedAt >= killedAt && s.startedAt < restartedAt);
    // No connection of the client to the BFF failed; only 200 or 503 came back.
    expect(tally(samples)).toEqual({ '200': expect.any(Number), '503': expect.any(Number) });
    expect(outage.filter((s) => s.status === 503).length).toBeGreaterThan(0);
    // Every 503 is the documented body, answered within the deadline.
    const unavailable = samples.filter((s) => s.status === 503);
    expect(unavailable.filter((s) => s.error !== 'SERVICE_UNAVAILABLE' || s.ms > DEADLINE_MS + 500)).toEqual([]);
    // Same BFF process all along.
    expect(bff.running()).toBe(true);
    expect(stack.process('bff').pid).toBe(bff.pid);
  } finally {
    await load.stop();
  }
});

test('producto-svc hung (SIGSTOP): 504 at the deadline until the breaker opens, then 503 without waiting on it; recovery after SIGCONT', async () => {
  await waitFor(async () => (await productoBreaker()) === 'closed', 'the breaker closed after the previous test', 30_000);
  const producto = stack.process('producto-svc');
  const load = productLoad(stack.baseUrl, 4);
  try {
    await waitFor(() => load.samples.filter((s) => s.status === 200).length >= 20, 'load to be served', 30_000);
    const stoppedAt = Date.now();
    producto.signal('SIGSTOP');
    await waitFor(async () => (await productoBreaker()) === 'open', 'the producto-svc breaker to open', 30_000);
    const openAt = Date.now();
    // Fail-fast while open: at least a few requests refused by the open breaker.
    await waitFor(() => after(load.samples, openAt).filter((s) => s.status === 503).length >= 20, '503s from the open breaker', 30_000);
    const continuedAt = Date.now();
    producto.signal('SIGCONT');
    await waitFor(() => {
      const recent = after(load.samples, continuedAt);
      return recent.length >= 30 && recent.slice(-30).every((s) => s.status === 200);
    }, '200s again after SIGCONT', 60_000);
    const samples = await load.stop();

    const hung = samples.filter((s) => s.startedAt >= stoppedAt && s.endedAt < continuedAt);
    expect(tally(hung)).toEqual({ '503': expect.any(Number), '504': expect.any(Number) });
    // A call that reached the hung service ends at its deadline: 504, not sooner, not much later.
    for (const s of hung.filter((h) => h.status === 504)) {
      expect(s.error).toBe('GATEWAY_TIMEOUT');
      expect(s.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
      expect(s.ms).toBeLessThan(DEADLINE_MS + 1500);
    }
    // A request refused by the open breaker never waited on the service: far less than a deadline.
    const refused = hung.filter((s) => s.status === 503 && s.startedAt >= openAt);
    expect(refused.length).toBeGreaterThanOrEqual(20);
    expect(refused.filter((s) => s.error !== 'SERVICE_UNAVAILABLE' || s.ms >= DEADLINE_MS / 2)).toEqual([]);
  } finally {
    producto.signal('SIGCONT');
    await load.stop();
  }
});

/** Resident set size of a process, in bytes (Linux /proc). */
function rssOf(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

test('many requests ending at the deadline leave the BFF memory flat', async () => {
  const deadlineMs = 300;
  // A BFF of its own whose breaker never opens, so every request waits for the hung service.
  const port = await freePort();
  const bff = await startServiceProcess('bff', {
    ...bffEnv({ port, productoSvcAddr: `127.0.0.1:${stack.ports['producto-svc']}`, bodegaSvcAddr: `127.0.0.1:${stack.ports['bodega-svc']}` }),
    GRPC_DEADLINE_MS: String(deadlineMs),
    BREAKER_VOLUME_THRESHOLD: '1000000',
  });
  const producto = stack.process('producto-svc');
  const baseUrl = `http://127.0.0.1:${port}`;
  /** One round: 50 concurrent clients for `ms`; every answer must be the 504. */
  const round = async (ms: number) => {
    const load = productLoad(baseUrl, 50, 0);
    await sleep(ms);
    const samples = await load.stop();
    expect(tally(samples)).toEqual({ '504': samples.length });
    await sleep(500);
    return samples.length;
  };
  try {
    producto.signal('SIGSTOP');
    let requests = await round(5000); // warm-up: JIT, pools, buffers
    const baseline = rssOf(bff.pid);
    const readings: number[] = [];
    for (let i = 0; i < 5; i++) {
      requests += await round(5000);
      readings.push(rssOf(bff.pid));
    }
    expect(requests).toBeGreaterThan(2000);
    // Generous: a leak of even a few kB per timed-out call would pass 64 MiB over ~3,000 calls.
    expect(Math.max(...readings) - baseline).toBeLessThan(64 * 1024 * 1024);
    // And no steady climb: the last reading is not far above the first after warm-up.
    expect(readings.at(-1) as number).toBeLessThan((readings[0] as number) * 1.25);
  } finally {
    producto.signal('SIGCONT');
    await bff.stop();
  }
});
