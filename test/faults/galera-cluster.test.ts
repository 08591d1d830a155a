/**
 * Beyond one MariaDB (issue 27): producto-svc and bodega-svc on a private
 * three-node MariaDB Galera cluster on loopback, DATABASE_URL naming the
 * three nodes (`mysql://root@g1,g2,g3/db`). Clients write continuously
 * through the BFF (products, warehouses, stock entries, each with an
 * Idempotency-Key, retried with it as a client does); the node both services
 * write to (the first of the list: every replica writes through one node
 * while it is up) is SIGKILLed. The services move to the next host, in-flight
 * keyed writes are retried, and afterwards, on every surviving node and on
 * the killed one once it has rejoined: every committed write is there
 * exactly once (nothing lost, nothing twice), the stock level equals its
 * entries, each outbox drained with one event per committed write, and no
 * service restarted. Prints the figures (writes, client retries, the
 * longest write, how long writes failed).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDb, type Knex } from '@inventario/platform';
import {
  readStream,
  startPrivateNatsServer,
  connectTestNats,
  testEventNamespace,
  waitFor,
  type PrivateNatsServer,
} from '@inventario/testkit';
import { startGaleraCluster, type GaleraCluster } from './support/galera-cluster';
import { killAllServiceProcesses, startProcessStack, type ProcessStack } from './support/processes';

/** How long the clients write; the first node is killed 10 s in. */
const LOAD_MS = 40_000;
const WRITERS = 3;

interface Committed {
  kind: 'producto' | 'bodega' | 'operacion';
  id: number;
  nombre?: string;
  ms: number;
}

let galera: GaleraCluster;
let nats: PrivateNatsServer;
let stack: ProcessStack;
const namespace = testEventNamespace();

beforeAll(async () => {
  galera = await startGaleraCluster(3);
  nats = await startPrivateNatsServer();
  stack = await startProcessStack({
    label: 'galera',
    natsUrl: nats.url,
    namespace,
    mysqlServer: `mysql://root@${galera.hosts}`,
  });
}, 300_000);

afterAll(async () => {
  await killAllServiceProcesses();
  await stack?.close().catch(() => undefined);
  await nats?.dispose();
  await galera?.dispose();
});

/** One write as a client makes it: its own Idempotency-Key, retried with the same key on a 5xx, a lost connection or IDEMPOTENCY_KEY_IN_USE. */
async function write(
  method: string,
  path: string,
  body: unknown,
  retries: { n: number },
): Promise<{ status: number; body: Record<string, unknown> } | undefined> {
  const key = randomUUID();
  for (let attempt = 0; attempt < 40; attempt++) {
    try {
      const res = await stack.request(method, path, { body, headers: { 'idempotency-key': key } });
      // IDEMPOTENCY_KEY_IN_USE: the same key is still being written (a retry overtook its first attempt): again in a moment, as the contract says.
      const inUse =
        res.status === 409 && (res.body as { error?: string } | undefined)?.error === 'IDEMPOTENCY_KEY_IN_USE';
      if (res.status < 500 && !inUse) return { status: res.status, body: res.body as Record<string, unknown> };
    } catch {
      // A lost connection: the outcome is unknown, the key makes the retry safe.
    }
    retries.n++;
    await sleep(250);
  }
  return undefined;
}

/** The database name of a service's URL. */
const dbName = (url: string) => url.slice(url.lastIndexOf('/') + 1);

describe('the services on a three-node Galera cluster, the node they write to lost under load', () => {
  it('keeps writing through the next host, loses nothing committed and writes nothing twice', async () => {
    const pids = (['producto-svc', 'bodega-svc', 'bff'] as const).map((name) => stack.process(name).pid);
    const central = await stack.request('POST', '/api/bodegas', {
      body: { nombre: 'Central', capacidad: 100_000_000 },
    });
    expect(central.status).toBe(201);
    const bodegaId = (central.body as { id: number }).id;
    const productos: number[] = [];
    for (let w = 0; w < WRITERS; w++) {
      const p = await stack.request('POST', '/api/productos', {
        body: { nombre: `Base ${w}`, precio: 1, cantidadEnStock: 0 },
      });
      productos.push((p.body as { id: number }).id);
      expect(
        (
          await stack.request('POST', `/api/bodegas/${bodegaId}/productos`, {
            body: { productoId: productos[w], cantidad: 0 },
          })
        ).status,
      ).toBe(200);
    }

    const committed: Committed[] = [];
    const refused: string[] = [];
    const retries = { n: 0 };
    let running = true;
    const writer = async (w: number) => {
      for (let i = 0; running; i++) {
        const op = i % 3;
        const t = Date.now();
        if (op === 0) {
          const nombre = `Carga ${w}-${i}`;
          const r = await write('POST', '/api/productos', { nombre, precio: 2.5, cantidadEnStock: 1 }, retries);
          if (r?.status === 201)
            committed.push({ kind: 'producto', id: r.body.id as number, nombre, ms: Date.now() - t });
          else refused.push(`producto ${r?.status ?? 'no answer'} ${JSON.stringify(r?.body)}`);
        } else if (op === 1) {
          const nombre = `Carga ${w}-${i}`;
          const r = await write('POST', '/api/bodegas', { nombre, capacidad: 1000 }, retries);
          if (r?.status === 201)
            committed.push({ kind: 'bodega', id: r.body.id as number, nombre, ms: Date.now() - t });
          else refused.push(`bodega ${r?.status ?? 'no answer'} ${JSON.stringify(r?.body)}`);
        } else {
          const r = await write(
            'POST',
            `/api/bodegas/${bodegaId}/movimientos`,
            { productoId: productos[w], tipo: 'ENTRADA', cantidad: 1 },
            retries,
          );
          if (r?.status === 201) committed.push({ kind: 'operacion', id: r.body.id as number, ms: Date.now() - t });
          else refused.push(`movimiento ${r?.status ?? 'no answer'} ${JSON.stringify(r?.body)}`);
        }
      }
    };
    const startedAt = Date.now();
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    await sleep(10_000);
    const [first] = galera.nodes;
    if (!first) throw new Error('no node');
    const killedAt = Date.now();
    await first.kill();
    await sleep(Math.max(0, LOAD_MS - (Date.now() - startedAt)));
    running = false;
    await Promise.all(writers);
    const loadMs = Date.now() - startedAt;
    // The killed node rejoins (IST from a survivor) and must hold the same.
    await first.restart();

    expect(refused).toEqual([]);
    expect(committed.length).toBeGreaterThan(0);

    const entries = committed.filter((c) => c.kind === 'operacion').length;
    const urls = stack.databaseUrls;
    for (const node of galera.nodes) {
      const producto: Knex = createDb(`${node.url}/${dbName(urls['producto-svc'])}`, { poolMax: 1, readOnly: true });
      const bodega: Knex = createDb(`${node.url}/${dbName(urls['bodega-svc'])}`, { poolMax: 1, readOnly: true });
      try {
        // Nothing lost, nothing twice: each committed write's row, once, on every node.
        const nombres = await waitFor(
          async () => {
            const rows = await producto<{ id: number; nombre: string }>('productos').select('id', 'nombre');
            return rows.length >= committed.filter((c) => c.kind === 'producto').length + WRITERS ? rows : undefined;
          },
          `${node.name} to hold every product`,
          60_000,
          500,
        );
        for (const c of committed.filter((x) => x.kind === 'producto')) {
          expect(nombres.filter((r) => r.nombre === c.nombre).map((r) => Number(r.id))).toEqual([c.id]);
        }
        expect(new Set(nombres.map((r) => r.nombre)).size).toBe(nombres.length);
        const bodegas = await bodega<{ id: number; nombre: string }>('bodegas').select('id', 'nombre');
        for (const c of committed.filter((x) => x.kind === 'bodega')) {
          expect(bodegas.filter((r) => r.nombre === c.nombre).map((r) => Number(r.id))).toEqual([c.id]);
        }
        // The level holds exactly the committed entries.
        const [level] = (await bodega.raw(
          'SELECT COALESCE(SUM(cantidad), 0) AS total FROM existencias WHERE bodega_id = ?',
          [bodegaId],
        )) as [{ total: number | string }[]];
        expect(Number(level[0]?.total)).toBe(entries);
      } finally {
        await producto.destroy();
        await bodega.destroy();
      }
    }

    // Every outbox drained, one event per committed write.
    const pools = Object.values(urls).map((url) => createDb(url, { poolMax: 1 }));
    let outboxIds: string[];
    try {
      await waitFor(
        async () => {
          for (const pool of pools)
            if (Number((await pool('outbox').whereNull('published_at').count({ n: '*' }))[0]?.n) > 0) return false;
          return true;
        },
        'both outboxes to drain',
        120_000,
        250,
      );
      outboxIds = (await Promise.all(pools.map((pool) => pool('outbox').pluck('event_id')))).flat() as string[];
    } finally {
      await Promise.all(pools.map((pool) => pool.destroy()));
    }
    const nc = await connectTestNats(nats.url);
    const events = await readStream(nc, namespace.stream);
    await nc.close();
    const ids = events.map((e) => e.body.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(outboxIds));
    for (const c of committed) {
      const n = events.filter((e) =>
        c.kind === 'producto'
          ? e.body.eventType.endsWith('ProductoCreado') && e.body.data.productoId === c.id
          : c.kind === 'bodega'
            ? e.body.eventType.endsWith('BodegaCreada') && e.body.data.bodegaId === c.id
            : e.body.data.operacionId === c.id,
      ).length;
      if (n !== 1) throw new Error(`${c.kind} ${c.id} has ${n} events`);
    }

    expect((['producto-svc', 'bodega-svc', 'bff'] as const).map((name) => stack.process(name).pid)).toEqual(pids);
    for (const name of ['producto-svc', 'bodega-svc', 'bff'] as const) expect(stack.process(name).running()).toBe(true);

    const duringKill = committed.filter((c) => c.ms > 0);
    process.stdout.write(
      `galera-cluster: ${JSON.stringify({
        loadMs,
        killed: first.name,
        committed: {
          productos: committed.filter((c) => c.kind === 'producto').length,
          bodegas: committed.filter((c) => c.kind === 'bodega').length,
          operaciones: entries,
        },
        clientRetries: retries.n,
        longestWriteMs: Math.max(...duringKill.map((c) => c.ms)),
        killedAtMs: killedAt - startedAt,
        events: events.length,
      })}\n`,
    );
  });
});
