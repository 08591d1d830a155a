/**
 * One of two producto-svc replicas dies without closing its connection
 * (SIGSTOP: the kernel keeps the TCP connection, nothing answers), under
 * read load through a BFF whose channel balances round-robin over both
 * (`ipv4:127.0.0.1:<a>,127.0.0.1:<b>`), with its default deadline,
 * keepalive and breaker settings. Proves: the BFF's keepalive pings find
 * the dead connection within keepalive time + timeout (3 s + 5 s), after
 * which every request succeeds on the other replica; the breaker never
 * opens on the way; after SIGCONT the replica rejoins the rotation.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  freePort,
  metricSample,
  scrapeMetrics,
  startPrivateNatsServer,
  waitFor,
  type PrivateNatsServer,
} from '@inventario/testkit';
import { startLoad, tally } from './support/load';
import {
  bffEnv,
  killAllServiceProcesses,
  startProcessStack,
  startServiceProcess,
  type ProcessStack,
  type ServiceProcess,
} from './support/processes';

/** The BFF's defaults: GRPC_DEADLINE_MS, GRPC_KEEPALIVE_TIME_MS + GRPC_KEEPALIVE_TIMEOUT_MS. */
const DEADLINE_MS = 5000;
const DETECTION_MS = 3000 + 5000;

let nats: PrivateNatsServer;
let stack: ProcessStack;
let replicaB: ServiceProcess;
let bff: ServiceProcess;
const metricsPorts = { a: 0, b: 0, bff: 0 };
let baseUrl: string;
let productoId: number;

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  metricsPorts.a = await freePort();
  stack = await startProcessStack({
    label: 'f_dead',
    natsUrl: nats.url,
    env: { 'producto-svc': { METRICS_PORT: String(metricsPorts.a) } },
  });
  // A second replica of producto-svc on the same database and stream.
  const portB = await freePort();
  metricsPorts.b = await freePort();
  replicaB = await startServiceProcess('producto-svc', {
    ...stack.process('producto-svc').env,
    GRPC_PORT: String(portB),
    METRICS_PORT: String(metricsPorts.b),
  });
  const port = await freePort();
  metricsPorts.bff = await freePort();
  bff = await startServiceProcess('bff', {
    ...bffEnv({
      port,
      productoSvcAddr: `ipv4:127.0.0.1:${stack.ports['producto-svc']},127.0.0.1:${portB}`,
      bodegaSvcAddr: `127.0.0.1:${stack.ports['bodega-svc']}`,
    }),
    METRICS_PORT: String(metricsPorts.bff),
  });
  baseUrl = `http://127.0.0.1:${port}`;
  const res = await stack.request('POST', '/api/productos', {
    body: { nombre: 'Dos réplicas', precio: 4.5, cantidadEnStock: 3 },
  });
  expect(res.status).toBe(201);
  productoId = res.body.id as number;
}, 120_000);

afterAll(async () => {
  replicaB?.signal('SIGCONT');
  await bff?.stop();
  await replicaB?.kill();
  await stack?.close();
  await killAllServiceProcesses();
  await nats?.dispose();
});

/** GetProducto calls a replica has answered OK. */
async function served(metricsPort: number): Promise<number> {
  const text = await scrapeMetrics(metricsPort);
  return metricSample(text, 'grpc_server_handled_total', { grpc_method: 'GetProducto', grpc_code: 'OK' }) ?? 0;
}

test('a replica frozen under load leaves the rotation within keepalive time + timeout; the breaker stays closed; it rejoins after SIGCONT', async () => {
  const load = startLoad({
    concurrency: 8,
    pauseMs: 5,
    send: () => fetch(`${baseUrl}/api/productos/${productoId}`, { headers: { authorization: stack.auth } }),
  });
  let stoppedAt = 0;
  let continuedAt = 0;
  try {
    await waitFor(() => load.samples.filter((s) => s.status === 200).length >= 200, 'load to be served', 60_000);
    // Round-robin: both replicas take calls.
    expect(await served(metricsPorts.a)).toBeGreaterThan(0);
    expect(await served(metricsPorts.b)).toBeGreaterThan(0);

    // Read before the freeze: a frozen process answers no scrape either.
    const servedByB = await served(metricsPorts.b);
    replicaB.signal('SIGSTOP');
    stoppedAt = Date.now();
    // The detection window, then as long again of load that must all succeed.
    await sleep(2 * DETECTION_MS + 2000);
    replicaB.signal('SIGCONT');
    continuedAt = Date.now();
    // Back in the rotation: the BFF's reconnection completes once it answers again.
    await waitFor(
      async () => (await served(metricsPorts.b)) > servedByB + 20,
      'the replica to take calls again after SIGCONT',
      60_000,
    );
  } finally {
    replicaB.signal('SIGCONT');
    await load.stop();
  }
  const samples = load.samples;
  const failures = samples.filter((s) => s.status !== 200);
  const detectedBy = stoppedAt + DETECTION_MS + 1000;

  // Only the calls that were sent to the frozen replica before its connection was dropped failed:
  // a 504 at the deadline, or a 503 when the keepalive dropped the connection under them.
  expect(failures.filter((s) => s.endedAt < stoppedAt)).toEqual([]);
  expect(
    failures.filter(
      (s) =>
        !(s.status === 504 && s.error === 'GATEWAY_TIMEOUT') &&
        !(s.status === 503 && s.error === 'SERVICE_UNAVAILABLE'),
    ),
  ).toEqual([]);
  expect(failures.filter((s) => s.endedAt > detectedBy || s.ms > DEADLINE_MS + 1500)).toEqual([]);
  // After the detection window, everything succeeds on the other replica.
  const afterDetection = samples.filter((s) => s.startedAt > detectedBy && s.endedAt < continuedAt);
  expect(afterDetection.length).toBeGreaterThan(100);
  expect(tally(afterDetection)).toEqual({ '200': afterDetection.length });

  // The breaker never opened: the dead replica's failures never outweighed the calls that succeeded.
  const metrics = await scrapeMetrics(metricsPorts.bff);
  expect(
    metricSample(metrics, 'inventario_circuit_breaker_events_total', { breaker: 'producto-svc', event: 'open' }),
  ).toBe(0);
  expect(metricSample(metrics, 'inventario_circuit_breaker_state', { breaker: 'producto-svc' })).toBe(0);
  expect(bff.running()).toBe(true);

  const lastFailure = Math.max(stoppedAt, ...failures.map((s) => s.endedAt));
  process.stdout.write(
    `dead-replica: ${samples.length} requests ${JSON.stringify(tally(samples))}; failures ${JSON.stringify(tally(failures))}, ` +
      `the last one ${lastFailure - stoppedAt} ms after SIGSTOP; ${afterDetection.length} requests after the window, all 200\n`,
  );
}, 300_000);
