/**
 * A keyed POST caught by a paused database (built services, a private
 * nats-server and a private mariadbd of this file's own, which it
 * SIGSTOPs: the server keeps its connections and answers nothing). The BFF
 * gives up at its deadline (504) while the service's transaction may still
 * be open; the client retries with the same Idempotency-Key once the
 * database is back (SIGCONT). Whether the first attempt committed or not,
 * the retry ends as a 201 for the one product: a replay of the committed
 * one, or its only execution. One row, one ProductoCreado event.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createDb, type Knex } from '@inventario/platform';
import { startPrivateNatsServer, waitFor, type PrivateNatsServer } from '@inventario/testkit';
import type { StackResponse } from '@inventario/testkit';
import { startPrivateMariaDb, type PrivateMariaDb } from './support/private-mariadb';
import { killAllServiceProcesses, startProcessStack, type ProcessStack } from './support/processes';

const DEADLINE_MS = 1500;
/** How long the database stays paused: past the deadline, with a retry answered inside it. */
const PAUSE_MS = DEADLINE_MS * 2 + 1000;

let mariadb: PrivateMariaDb;
let nats: PrivateNatsServer;
let stack: ProcessStack;
let db: Knex;
let paused = false;

beforeAll(async () => {
  [mariadb, nats] = await Promise.all([startPrivateMariaDb(), startPrivateNatsServer()]);
  stack = await startProcessStack({
    label: 'f_idem',
    natsUrl: nats.url,
    mysqlServer: mariadb.url,
    // A breaker opened by the 504s lets a trial call through after 1 s, so the retries need not wait long.
    env: { bff: { GRPC_DEADLINE_MS: String(DEADLINE_MS), BREAKER_RESET_MS: '1000' } },
  });
  db = createDb(stack.databaseUrls['producto-svc'], { poolMax: 1 });
  const warm = await stack.request('POST', '/api/productos', {
    body: { nombre: 'Antes de la pausa', precio: 1, cantidadEnStock: 1 },
  });
  expect(warm.status).toBe(201);
}, 120_000);

afterAll(async () => {
  if (paused) mariadb?.signal('SIGCONT');
  await db?.destroy();
  await stack?.close();
  await killAllServiceProcesses();
  await Promise.all([mariadb?.dispose(), nats?.dispose()]);
});

async function idsNamed(nombre: string): Promise<number[]> {
  const rows = (await db('productos').select('id').where({ nombre }).orderBy('id')) as { id: number }[];
  return rows.map((r) => Number(r.id));
}

/**
 * The database paused `stopAfterMs` after the keyed POST was sent (before it
 * when negative), for PAUSE_MS; then retries with the key until one is
 * answered 201. Returns the answers.
 */
async function pausedKeyedPost(label: string, stopAfterMs: number) {
  const nombre = `Pausa ${label} ${Date.now().toString(36)}`;
  const key = `fault-${label}-${Date.now().toString(36)}`;
  const post = () =>
    stack.request('POST', '/api/productos', {
      body: { nombre, precio: 4.5, cantidadEnStock: 2 },
      headers: { 'idempotency-key': key },
    });

  const pause = () => {
    mariadb.signal('SIGSTOP');
    paused = true;
  };
  if (stopAfterMs < 0) pause();
  const started = Date.now();
  const firstAnswer = post();
  if (stopAfterMs >= 0) {
    await sleep(stopAfterMs);
    pause();
  }
  const first = await firstAnswer;
  const firstMs = Date.now() - started;
  // A retry while the database is still paused: the BFF's deadline again (or the breaker's 503), never a second product.
  const during = first.status === 201 ? undefined : await post();
  await sleep(Math.max(0, started + PAUSE_MS - Date.now()));
  mariadb.signal('SIGCONT');
  paused = false;

  const retries: StackResponse[] = [];
  const final = await waitFor(
    async () => {
      const res = await post();
      retries.push(res);
      if (res.status === 201) return res;
      // The first attempt still in its transaction (409), or the BFF waiting out its breaker (503).
      expect([409, 503, 504]).toContain(res.status);
      await sleep(200);
      return undefined;
    },
    `a 201 for the retried key ${key}`,
    60_000,
  );
  return { nombre, first, firstMs, during, retries, final };
}

test('a keyed POST whose database paused (before it, and a few ms into it): 504, then the retry gets the one product', async () => {
  const summary: string[] = [];
  for (const [label, stopAfterMs] of [
    ['antes', -1],
    ['en-vuelo', 3],
    ['en-vuelo-tarde', 15],
  ] as const) {
    const { nombre, first, firstMs, during, retries, final } = await pausedKeyedPost(label, stopAfterMs);
    if (stopAfterMs < 0) {
      // Paused before it was sent: nothing could answer it in time.
      expect(first.status).toBe(504);
      expect(first.body.error).toBe('GATEWAY_TIMEOUT');
      expect(firstMs).toBeLessThan(DEADLINE_MS + 1000);
    } else {
      expect([201, 504]).toContain(first.status);
    }
    if (during) expect([409, 503, 504]).toContain(during.status);

    // Once back, the first attempt has committed or rolled back, never both nor twice.
    const ids = await idsNamed(nombre);
    expect(ids).toHaveLength(1);
    expect(final.body).toMatchObject({ id: ids[0], nombre, version: 1 });
    const replayed = final.headers.get('idempotent-replayed') === 'true';
    if (first.status === 201) {
      expect(first.body.id).toBe(ids[0]);
      expect(replayed).toBe(true);
    }
    summary.push(
      `${label}: first ${first.status} after ${firstMs} ms, during ${during?.status ?? '-'}, retries ${retries.map((r) => r.status).join(',')} (last ${replayed ? 'replayed' : 'executed'})`,
    );

    const created = (await stack.settledEvents()).filter(
      (e) => e.body.eventType.endsWith('ProductoCreado') && e.body.data.nombre === nombre,
    );
    expect(created.map((e) => e.body.subject)).toEqual([`/productos/${ids[0]}`]);
  }
  process.stdout.write(`idempotent-retry: ${summary.join('; ')}\n`);
}, 180_000);
