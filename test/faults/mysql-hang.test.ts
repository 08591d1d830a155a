/**
 * MySQL hung under write load (a private mariadbd SIGSTOPped for 20 s: it
 * keeps its connections and answers nothing), under the built services and
 * BFF with their default deadline, statement limit and acquire timeout.
 * Proves: the BFF answers every write 503 or 504 within its deadline while
 * it lasts; a write answered as failed is found committed only if its
 * COMMIT was already under way when the database froze, and then a keyed
 * retry returns it (a replay), otherwise the retry executes it, so every
 * key ends as exactly one product and one event; a write whose deadline
 * passed while the database was frozen is never committed afterwards (its
 * transaction rolls back instead); and after SIGCONT everything recovers
 * with the same processes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createDb, type Knex } from '@inventario/platform';
import { startPrivateNatsServer, waitFor, type PrivateNatsServer } from '@inventario/testkit';
import type { StackResponse } from '@inventario/testkit';
import { startPrivateMariaDb, type PrivateMariaDb } from './support/private-mariadb';
import { killAllServiceProcesses, startProcessStack, type ProcessStack } from './support/processes';

/** The BFF's default GRPC_DEADLINE_MS; the services keep their defaults (4 s statement limit, 3 s acquire timeout). */
const DEADLINE_MS = 5000;
const PAUSE_MS = 20_000;
const WRITERS = 6;

let mariadb: PrivateMariaDb;
let nats: PrivateNatsServer;
let stack: ProcessStack;
let db: Knex;
let paused = false;

beforeAll(async () => {
  [mariadb, nats] = await Promise.all([startPrivateMariaDb(), startPrivateNatsServer()]);
  stack = await startProcessStack({
    label: 'f_hang',
    natsUrl: nats.url,
    mysqlServer: mariadb.url,
    // A breaker that never opens: every write reaches producto-svc, so its database limits (acquire
    // timeout, statement limit, rollback of abandoned calls), not the breaker, decide each answer.
    env: { bff: { BREAKER_VOLUME_THRESHOLD: '1000000' } },
  });
  db = createDb(stack.databaseUrls['producto-svc'], { poolMax: 2 });
}, 120_000);

afterAll(async () => {
  if (paused) mariadb?.signal('SIGCONT');
  await db?.destroy();
  await stack?.close();
  await killAllServiceProcesses();
  await Promise.all([mariadb?.dispose(), nats?.dispose()]);
});

/** One keyed POST of the load: its key is also the product's name. */
interface Write {
  key: string;
  startedAt: number;
  endedAt: number;
  ms: number;
  status?: number;
  error?: string;
  networkError?: string;
}

const body = (key: string) => ({ nombre: key, precio: 1.5, cantidadEnStock: 1 });
const post = (key: string): Promise<StackResponse> =>
  stack.request('POST', '/api/productos', { body: body(key), headers: { 'idempotency-key': key } });

/** `WRITERS` clients posting new keyed products back to back until stopped. */
function writeLoad(run: string) {
  const writes: Write[] = [];
  let stopping = false;
  const worker = async (w: number) => {
    for (let n = 0; !stopping; n++) {
      const key = `${run}-${w}-${n}`;
      const write: Write = { key, startedAt: Date.now(), endedAt: 0, ms: 0 };
      try {
        const res = await post(key);
        write.status = res.status;
        if (res.status !== 201) write.error = res.body?.error as string | undefined;
      } catch (err) {
        write.networkError = String((err as { cause?: { code?: string } }).cause?.code ?? err);
      }
      write.endedAt = Date.now();
      write.ms = write.endedAt - write.startedAt;
      writes.push(write);
      // A client backs off a little after a failure (503s come fast once the pool is exhausted).
      if (write.status !== 201) await sleep(100);
    }
  };
  const running = Promise.all(Array.from({ length: WRITERS }, (_, w) => worker(w)));
  return {
    writes,
    async stop() {
      stopping = true;
      await running;
      return writes;
    },
  };
}

/** The ids of the products named `key`, one query for many keys. */
async function rowsByKey(keys: string[]): Promise<Map<string, number[]>> {
  const found = new Map<string, number[]>();
  for (let i = 0; i < keys.length; i += 500) {
    const rows = (await db('productos')
      .select('id', 'nombre')
      .whereIn('nombre', keys.slice(i, i + 500))
      .orderBy('id')) as { id: number; nombre: string }[];
    for (const row of rows) found.set(row.nombre, [...(found.get(row.nombre) ?? []), Number(row.id)]);
  }
  return found;
}

test('MySQL hung 20 s under keyed write load: 503/504 within the deadline, no write committed behind a failure but those a keyed retry returns, full recovery', async () => {
  const run = `hang${Date.now().toString(36)}`;
  const names = ['producto-svc', 'bodega-svc', 'bff'] as const;
  const pids = names.map((name) => stack.process(name).pid);
  const load = writeLoad(run);
  let frozenAt = 0;
  let continuedAt = 0;
  try {
    await waitFor(
      () => load.writes.filter((w) => w.status === 201).length >= 100,
      'the write load to be served',
      60_000,
    );
    mariadb.signal('SIGSTOP');
    paused = true;
    frozenAt = Date.now();
    await sleep(PAUSE_MS);
    mariadb.signal('SIGCONT');
    paused = false;
    continuedAt = Date.now();
    // Full recovery: the breaker lets a trial through after its reset time, then every write succeeds again.
    await waitFor(
      () => {
        const recent = load.writes.filter((w) => w.startedAt > continuedAt);
        return recent.length >= 50 && recent.slice(-30).every((w) => w.status === 201);
      },
      'writes to succeed again after SIGCONT',
      90_000,
    );
  } finally {
    if (paused) mariadb.signal('SIGCONT');
    paused = false;
    await load.stop();
  }
  const writes = load.writes;

  // Only 201, 503 and 504 at all: no 500, no broken connection.
  const outcomes = (w: Write) => String(w.status ?? w.networkError);
  expect(writes.filter((w) => ![201, 503, 504].includes(w.status ?? 0))).toEqual([]);
  // While it was frozen: every answer a 503 or 504 with its documented body, within the deadline.
  const frozen = writes.filter((w) => w.startedAt >= frozenAt && w.endedAt <= continuedAt);
  expect(frozen.length).toBeGreaterThan(WRITERS);
  expect(frozen.filter((w) => w.status === 201)).toEqual([]);
  const failed = writes.filter((w) => w.status !== 201);
  expect(
    failed.filter((w) => (w.status === 503 ? w.error !== 'SERVICE_UNAVAILABLE' : w.error !== 'GATEWAY_TIMEOUT')),
  ).toEqual([]);
  expect(failed.filter((w) => w.ms > DEADLINE_MS + 1500)).toEqual([]);

  // What a failed write left behind, before anyone retries it.
  const before = await rowsByKey(failed.map((w) => w.key));
  const committedBehindFailure = failed.filter((w) => before.has(w.key));
  // A write whose deadline passed while the database was frozen never ran a statement before its
  // caller was gone: its transaction must roll back, not commit once the database answers again.
  const abandonedWhileFrozen = failed.filter(
    (w) => w.startedAt >= frozenAt && w.startedAt + DEADLINE_MS + 500 < continuedAt,
  );
  expect(abandonedWhileFrozen.length).toBeGreaterThan(0);
  expect(abandonedWhileFrozen.filter((w) => before.has(w.key)).map((w) => w.key)).toEqual([]);

  // Every failed write retried with its key: a replay of what committed, or its first execution.
  const replays: string[] = [];
  for (const w of failed) {
    const retry = await waitFor(
      async () => {
        const res = await post(w.key);
        return res.status === 201 ? res : undefined;
      },
      `a 201 for the retried key ${w.key}`,
      30_000,
    );
    const committed = before.get(w.key);
    if (committed) {
      expect({ key: w.key, replayed: retry.headers.get('idempotent-replayed'), id: retry.body.id }).toEqual({
        key: w.key,
        replayed: 'true',
        id: committed[0],
      });
      replays.push(w.key);
    } else {
      expect({ key: w.key, replayed: retry.headers.get('idempotent-replayed') }).toEqual({
        key: w.key,
        replayed: null,
      });
    }
  }

  // Every key of the run is exactly one product, with exactly one ProductoCreado.
  const keys = writes.map((w) => w.key);
  const after = await rowsByKey(keys);
  expect(keys.filter((k) => after.get(k)?.length !== 1)).toEqual([]);
  const created = (await stack.settledEvents(120_000)).filter(
    (e) => e.body.eventType.endsWith('ProductoCreado') && String(e.body.data.nombre).startsWith(`${run}-`),
  );
  expect(created.map((e) => e.body.subject).sort()).toEqual(keys.map((k) => `/productos/${after.get(k)?.[0]}`).sort());

  // Same processes throughout, serving again.
  expect(names.map((name) => stack.process(name).pid)).toEqual(pids);
  expect((await stack.request('GET', '/actuator/health', { auth: false })).status).toBe(200);

  const tally = (list: Write[]) =>
    Object.entries(
      list.reduce<Record<string, number>>((t, w) => ({ ...t, [outcomes(w)]: (t[outcomes(w)] ?? 0) + 1 }), {}),
    );
  process.stdout.write(
    `mysql-hang: ${writes.length} writes ${JSON.stringify(tally(writes))}; while frozen ${JSON.stringify(tally(frozen))}, ` +
      `slowest failure ${Math.max(...failed.map((w) => w.ms))} ms; committed behind a failure ${committedBehindFailure.length} ` +
      `(all returned by their keyed retry: ${replays.length}), abandoned while frozen ${abandonedWhileFrozen.length} (none committed); ` +
      `recovered ${((writes.find((w) => w.startedAt > continuedAt && w.status === 201)?.endedAt ?? NaN) - continuedAt).toFixed(0)} ms after SIGCONT\n`,
  );
}, 300_000);
