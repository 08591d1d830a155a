/**
 * MySQL stopped for 30 s under the built services (a private mariadbd, a
 * private nats-server): every gRPC call answers UNAVAILABLE well before the
 * BFF's deadline (the knex acquire timeout is below it), so REST answers 503
 * and never 504; grpc.health.v1 says NOT_SERVING and the BFF's
 * /actuator/health DOWN; once mariadbd is back on the same port and data
 * dir, everything works again with the same processes (same pids).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceError } from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { startPrivateNatsServer, waitFor, type PrivateNatsServer } from '@inventario/testkit';
import { createHealthClient, createProductoClient, type HealthClient, productoApi } from '@inventario/testkit/grpc';
import { startPrivateMariaDb, type PrivateMariaDb } from './support/private-mariadb';
import { killAllServiceProcesses, startProcessStack, type ProcessStack } from './support/processes';

const DEADLINE_MS = 5000;
const OUTAGE_MS = 30_000;

let mariadb: PrivateMariaDb;
let nats: PrivateNatsServer;
let stack: ProcessStack;
const healthClients: HealthClient[] = [];

beforeAll(async () => {
  [mariadb, nats] = await Promise.all([startPrivateMariaDb(), startPrivateNatsServer()]);
  stack = await startProcessStack({
    label: 'f_mysql',
    natsUrl: nats.url,
    mysqlServer: mariadb.url,
    env: { bff: { GRPC_DEADLINE_MS: String(DEADLINE_MS) } },
  });
});

afterAll(async () => {
  for (const client of healthClients) client.close();
  await stack?.close();
  await killAllServiceProcesses();
  await Promise.all([mariadb?.dispose(), nats?.dispose()]);
});

/** One REST call, timed. */
async function timed(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; ms: number; error?: string }> {
  const started = performance.now();
  const res = await stack.request(method, path, body === undefined ? {} : { body });
  return { status: res.status, ms: performance.now() - started, error: res.body?.error };
}

test('MySQL down 30 s: fast UNAVAILABLE / 503, health DOWN, full recovery without restarting a process', async () => {
  const names = ['producto-svc', 'bodega-svc', 'bff'] as const;
  const pids = names.map((name) => stack.process(name).pid);
  const health = [createHealthClient(stack.ports['producto-svc']), createHealthClient(stack.ports['bodega-svc'])];
  healthClients.push(...health);
  const client = createProductoClient(stack.ports['producto-svc']);
  const producto = productoApi(client, { usuario: 'fault' });

  const before = await stack.request('POST', '/api/productos', {
    body: { nombre: 'Antes del corte', precio: 2.5, cantidadEnStock: 4 },
  });
  expect(before.status).toBe(201);
  expect((await stack.request('GET', '/actuator/health', { auth: false })).status).toBe(200);

  await mariadb.stop();
  const outageEnds = Date.now() + OUTAGE_MS;

  // The services notice (periodic ping every 200 ms) and report it.
  await waitFor(
    async () => (await Promise.all(health.map((h) => h.check('')))).every((s) => s === 'NOT_SERVING'),
    'both services NOT_SERVING',
    15_000,
  );
  await waitFor(
    async () => {
      const res = await stack.request('GET', '/actuator/health', { auth: false });
      return res.status === 503 && res.body?.status === 'DOWN';
    },
    'the BFF health DOWN',
    15_000,
  );

  // The service itself: UNAVAILABLE, well before the BFF's deadline, for reads and writes.
  for (const call of [
    () => producto.get(Number(before.body.id)),
    () => producto.create({ nombre: 'Durante', precio: '1.00', cantidadEnStock: 1 }),
  ]) {
    const started = performance.now();
    const err = (await call().then(
      () => undefined,
      (e: unknown) => e,
    )) as ServiceError | undefined;
    expect(err?.code).toBe(status.UNAVAILABLE);
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS);
  }

  // REST, for the rest of the outage: 503 every time, never 504, never a hang.
  const answers: Awaited<ReturnType<typeof timed>>[] = [];
  while (Date.now() < outageEnds - 1000) {
    answers.push(
      ...(await Promise.all([
        timed('GET', `/api/productos/${before.body.id}`),
        timed('POST', '/api/productos', { nombre: 'Durante el corte', precio: 1, cantidadEnStock: 1 }),
        timed('GET', '/api/bodegas'),
      ])),
    );
    await sleep(250);
  }
  expect(answers.length).toBeGreaterThan(10);
  expect(answers.filter((a) => a.status !== 503 || a.error !== 'SERVICE_UNAVAILABLE' || a.ms >= DEADLINE_MS)).toEqual(
    [],
  );
  await sleep(Math.max(0, outageEnds - Date.now()));

  await mariadb.start();

  // Recovery: health first, then traffic (the breaker's reset time may still have to pass).
  await waitFor(
    async () => (await Promise.all(health.map((h) => h.check('')))).every((s) => s === 'SERVING'),
    'both services SERVING again',
    30_000,
  );
  await waitFor(
    async () => (await stack.request('GET', '/actuator/health', { auth: false })).status === 200,
    'the BFF health UP again',
    30_000,
  );
  // Each breaker lets a trial call through after BREAKER_RESET_MS (10 s).
  await waitFor(
    async () => (await stack.request('GET', `/api/productos/${before.body.id}`)).status === 200,
    'producto reads through the BFF again',
    30_000,
  );
  await waitFor(
    async () => (await stack.request('GET', '/api/bodegas')).status === 200,
    'bodega reads through the BFF again',
    30_000,
  );
  const after = await stack.request('POST', '/api/productos', {
    body: { nombre: 'Después del corte', precio: 3, cantidadEnStock: 2 },
  });
  expect(after.status).toBe(201);
  expect((await producto.get(Number(after.body.id))).producto?.nombre).toBe('Después del corte');

  // Same processes throughout.
  expect(names.map((name) => stack.process(name).pid)).toEqual(pids);
  expect(names.every((name) => stack.process(name).running())).toBe(true);

  // Nothing written during the outage reached the stream; both real writes did, once.
  const created = (await stack.settledEvents()).filter(
    (e) => e.subject === `${stack.namespace.prefix}.producto.creado`,
  );
  expect(created.map((e) => e.body.data.nombre)).toEqual(['Antes del corte', 'Después del corte']);
  client.close();
});
