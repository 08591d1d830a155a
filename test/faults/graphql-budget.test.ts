/**
 * Issue 21, item 1 (built processes, a private nats-server, the suite's
 * private mariadbd): one GraphQL request's memory and downstream work are
 * bounded before any read starts. With 100,000 products seeded by SQL, each
 * with a 400-byte description, fifteen aliases of `productos { id }` took
 * the BFF from 248 to 1,775 MiB (the chart's limit is 512 Mi) and kept
 * reading after the client had its DEADLINE_EXCEEDED. Now sibling lists
 * share the node cap before they read (the first takes what it may yield,
 * the others wait and then find nothing left), lists read no `descripcion`
 * unless a field asks for it, and the request answers the node cap's
 * ValidationError with the BFF's peak RSS far below the chart's limit while
 * `/actuator/health/liveness` answers throughout. A client that disconnects
 * stops the list's paging: producto-svc sees no page asked after it left.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createDb } from '@inventario/platform';
import {
  freePort,
  metricSample,
  scrapeMetrics,
  startPrivateNatsServer,
  waitFor,
  type PrivateNatsServer,
} from '@inventario/testkit';
import { startLoad } from './support/load';
import { killAllServiceProcesses, startProcessStack, type ProcessStack } from './support/processes';

const PRODUCTOS = 100_000;
const ALIASES = 15;
/** Far below the chart's 512 Mi limit; before the fix the BFF passed 1,700 MiB. */
const MAX_PEAK_RSS_MIB = 300;
const DESCRIPCION = 'Descripción larga de inventario con ñandú 🍎. '.repeat(9).slice(0, 400);

let nats: PrivateNatsServer;
let stack: ProcessStack;
let productoMetricsPort: number;

beforeAll(async () => {
  nats = await startPrivateNatsServer();
  productoMetricsPort = await freePort();
  stack = await startProcessStack({
    label: 'f_gqlbudget',
    natsUrl: nats.url,
    env: { 'producto-svc': { METRICS_PORT: String(productoMetricsPort) } },
  });
  // As producto-svc writes them, in batches: 100,000 creates through the API would take minutes.
  const db = createDb(stack.databaseUrls['producto-svc'], { poolMax: 1 });
  try {
    const at = new Date('2026-05-06T07:08:09Z');
    for (let start = 0; start < PRODUCTOS; start += 2000) {
      const rows = Array.from({ length: 2000 }, (_, k) => ({
        nombre: `Producto ${start + k}`,
        descripcion: DESCRIPCION,
        precio: '19.90',
        cantidad_en_stock: (start + k) % 100,
        bodega_id: null,
        fecha_creacion: at,
        fecha_actualizacion: at,
        version: 1,
      }));
      await db('productos').insert(rows);
    }
    const [{ n }] = (await db('productos').count({ n: '*' })) as [{ n: number }];
    expect(Number(n)).toBe(PRODUCTOS);
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

/** ListProductos calls producto-svc has answered. */
async function listCalls(): Promise<number> {
  const text = await scrapeMetrics(productoMetricsPort);
  return metricSample(text, 'grpc_server_handled_total', { grpc_method: 'ListProductos', grpc_code: 'OK' }) ?? 0;
}

async function postGraphql(
  query: string,
): Promise<{ status: number; body: { data?: unknown; errors?: { message: string; extensions: unknown }[] } }> {
  const res = await fetch(`${stack.baseUrl}/api/graphql`, {
    method: 'POST',
    headers: { authorization: stack.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: (await res.json()) as never };
}

test(`${ALIASES} aliases of productos { id } over ${PRODUCTOS} products: the node cap answers, peak RSS < ${MAX_PEAK_RSS_MIB} MiB, liveness throughout`, async () => {
  const before = bffRssMiB();
  const readings: number[] = [before];
  const sampler = setInterval(() => readings.push(bffRssMiB()), 20);
  const liveness = startLoad({
    concurrency: 1,
    pauseMs: 10,
    send: () => fetch(`${stack.baseUrl}/actuator/health/liveness`),
  });
  const query = `{ ${Array.from({ length: ALIASES }, (_, i) => `a${i}: productos { id }`).join(' ')} }`;
  let response: Awaited<ReturnType<typeof postGraphql>>;
  try {
    response = await postGraphql(query);
    // Some time after the answer, so reads left running (before the fix) would show.
    await new Promise((resolve) => setTimeout(resolve, 2000));
  } finally {
    clearInterval(sampler);
  }
  readings.push(bffRssMiB());
  const probes = await liveness.stop();

  expect(response.status).toBe(200);
  // The node cap, or on a loaded machine the deadline first: either way one limit's error and no data.
  expect(response.body).toEqual({ data: null, errors: [expect.objectContaining({ extensions: expect.anything() })] });
  expect([
    'La consulta supera el máximo de 100000 nodos de resultado: pida menos elementos con first y after',
    'La consulta superó su tiempo máximo de ejecución (10000 ms)',
  ]).toContain(response.body.errors?.[0]?.message);
  const peak = Math.max(...readings);
  process.stdout.write(
    `BFF RSS before ${before.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB; ${probes.length} liveness probes\n`,
  );
  expect(peak).toBeLessThan(MAX_PEAK_RSS_MIB);
  expect(probes.length).toBeGreaterThan(10);
  expect(probes.filter((probe) => probe.status !== 200)).toEqual([]);
}, 120_000);

test('one full list answers whole, without reading descriptions it was not asked for', async () => {
  const { body } = await postGraphql('{ productos { id nombre } }');
  const productos = (body.data as { productos: { id: string; nombre: string }[] }).productos;
  expect(productos).toHaveLength(PRODUCTOS);
  expect(productos[0]).toEqual({ id: expect.any(String), nombre: 'Producto 0' });
  const conDescripcion = await postGraphql('{ productos(first: 2) { id descripcion } }');
  expect(
    (conDescripcion.body.data as { productos: { descripcion: string }[] }).productos.map((p) => p.descripcion),
  ).toEqual([DESCRIPCION, DESCRIPCION]);
}, 120_000);

test('a client that disconnects stops the paging of its list', async () => {
  const callsBefore = await listCalls();
  await new Promise<void>((resolve, reject) => {
    const req = httpRequest(`${stack.baseUrl}/api/graphql`, {
      method: 'POST',
      headers: { authorization: stack.auth, 'content-type': 'application/json' },
    });
    req.on('error', () => resolve());
    req.end(JSON.stringify({ query: '{ productos { id nombre descripcion } }' }));
    // Gone once the paging has started, long before its 100 pages.
    waitFor(async () => (await listCalls()) > callsBefore + 2, 'the paging to start', 20_000, 10).then(() => {
      req.destroy();
      resolve();
    }, reject);
  });
  const atDisconnect = await listCalls();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const after = await listCalls();
  process.stdout.write(
    `ListProductos calls: ${atDisconnect - callsBefore} before the disconnect, ${after - atDisconnect} after\n`,
  );
  // The call in flight when the client left may finish; no other page is asked for.
  expect(after - atDisconnect).toBeLessThanOrEqual(1);
  expect(after - callsBefore).toBeLessThan(PRODUCTOS / 1000);
}, 60_000);
