/**
 * Galera writes from different nodes (issue 27): two bodega-svc processes on
 * one database of a private three-node Galera cluster, each given the nodes
 * in another order (one g1 first, the other g2 first: what replicas with
 * differently ordered lists, or each pointed at "its" node, would do), run
 * the stock concurrency scenarios of services/bodega-svc/test/
 * existencia-concurrency.test.ts with half the clients on each: 50 exits
 * against 10 units, a warehouse filled past its capacity, opposite
 * transfers, one request_id sent to both. Writes through two nodes at once
 * broke the ledger here (a line committed whose level update was lost, an
 * exit answered OK that wrote only its occupancy), so the platform enforces
 * one writer node per database (db.ts, claimGaleraWriter): the replica that
 * names g2 first is refused there and fails over to g1, the writer. Checked:
 * g2 and g3 commit nothing of their own while the scenarios run, a pool
 * given g2 alone is refused naming the writer, and in SQL on every node
 * afterwards: no lost update (the level is what the successes left), never
 * negative, capacity never passed, versions gap-free, one operation per key,
 * and the ledger's invariants (ledgerProblems). Prints each scenario's
 * answers.
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import { TIPO_MOVIMIENTO_NAMES, BodegaServiceClient, type CreateBodegaResponse } from '@inventario/proto';
import { createDb, ensureDatabase, type Knex } from '@inventario/platform';
import {
  freePort,
  startPrivateNatsServer,
  testEventNamespace,
  uniqueName,
  type PrivateNatsServer,
} from '@inventario/testkit';
import {
  type Answer,
  answerOf,
  asUser,
  type CatalogoAbierto,
  startCatalogoAbierto,
  stockClients,
  type StockClients,
  tally,
} from '@inventario/testkit/grpc';
import { ledgerProblems, lineVersions, ocupacionExacta } from '@inventario/testkit';
import { startGaleraCluster, type GaleraCluster } from './support/galera-cluster';
import { grpcServiceEnv, killAllServiceProcesses, startServiceProcess } from './support/processes';

const ENTRADA = TIPO_MOVIMIENTO_NAMES.value('ENTRADA');
const SALIDA = TIPO_MOVIMIENTO_NAMES.value('SALIDA');
const CLIENTS = 50;

let galera: GaleraCluster;
let nats: PrivateNatsServer;
/** bodega-svc asks producto-svc about products it has not seen (one home): here every id exists. */
let catalogo: CatalogoAbierto;
let many: StockClients[];
let bodegas: BodegaServiceClient;
let dbs: Knex[];
/** Each node's wsrep_local_commits once both replicas run: only the writer's may grow. */
let commitsAtStart: number[];
const hostOf = (url: string) => new URL(url).host;

async function localCommits(db: Knex): Promise<number> {
  const [rows] = (await db.raw("SHOW GLOBAL STATUS LIKE 'wsrep_local_commits'")) as [{ Value: string }[]];
  return Number(rows[0]?.Value);
}
const database = uniqueName('t_galeraw_b');
const report: Record<string, Record<string, number>> = {};

beforeAll(async () => {
  galera = await startGaleraCluster(3);
  nats = await startPrivateNatsServer();
  catalogo = await startCatalogoAbierto();
  const namespace = testEventNamespace();
  const [g1, g2] = galera.nodes;
  if (!g1 || !g2) throw new Error('no nodes');
  await ensureDatabase(`${g1.url}/${database}`);
  const addresses: string[] = [];
  // One after the other: the second finds the migrations applied (GET_LOCK does not cross nodes), and the
  // first has claimed g1 as the writer.
  for (const nodes of [
    [g1, g2],
    [g2, g1],
  ]) {
    const port = await freePort();
    const databaseUrl = `mysql://root@${nodes.map((n) => hostOf(n.url)).join(',')}/${database}`;
    await startServiceProcess('bodega-svc', {
      ...grpcServiceEnv({ databaseUrl, grpcPort: port, natsUrl: nats.url, namespace }),
      PRODUCTO_SVC_ADDR: catalogo.address,
      // Calls queue behind row locks here: the default 4 s limit could end a queued call on a slow machine.
      DB_STATEMENT_TIMEOUT_MS: '120000',
    });
    addresses.push(`127.0.0.1:${port}`);
  }
  many = addresses.map((address) => stockClients(address, CLIENTS / 2));
  bodegas = new BodegaServiceClient(addresses[0] ?? '', credentials.createInsecure());
  dbs = galera.nodes.map((node) => createDb(`${node.url}/${database}`, { poolMax: 2, readOnly: true }));
  commitsAtStart = await Promise.all(dbs.map(localCommits));
}, 300_000);

afterAll(async () => {
  process.stdout.write(`galera-writers: ${JSON.stringify(report)}\n`);
  many?.forEach((m) => m.close());
  bodegas?.close();
  await Promise.all((dbs ?? []).map((db) => db.destroy()));
  await killAllServiceProcesses();
  await nats?.dispose();
  await catalogo?.close();
  await galera?.dispose();
});

afterEach(async () => {
  // Every node holds the same, and the ledger's invariants hold on each (the scenario's last commit has reached all).
  for (const db of dbs) expect(await ledgerProblems(db)).toEqual([]);
});

/** Client i: the even ones on g1's service, the odd ones on g2's. */
const client = (i: number) => many[i % 2]!.clients[Math.floor(i / 2) % (CLIENTS / 2)]!;

let seq = 0;
async function bodega(capacidad: number): Promise<number> {
  seq += 1;
  const res = await new Promise<CreateBodegaResponse>((resolve, reject) =>
    bodegas.createBodega({ nombre: `Galera ${seq}`, capacidad }, new Metadata(), (err, r) =>
      err ? reject(err) : resolve(r),
    ),
  );
  return res.bodega!.id;
}

function producto(): number {
  seq += 1;
  return 7000 + seq;
}

/** What every node says, once they agree (Galera applies a commit on the others a moment later). */
async function onEveryNode<T>(read: (db: Knex) => Promise<T>): Promise<T> {
  const until = Date.now() + 30_000;
  for (;;) {
    const seen = await Promise.all(dbs.map(read));
    if (seen.every((v) => JSON.stringify(v) === JSON.stringify(seen[0])) || Date.now() > until) {
      expect(seen.map((v) => JSON.stringify(v))).toEqual(seen.map(() => JSON.stringify(seen[0])));
      return seen[0] as T;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const nivel = (bodegaId: number, productoId: number) =>
  onEveryNode(async (db) => {
    const row = await db('existencias')
      .where({ bodega_id: bodegaId, producto_id: productoId })
      .first<{ cantidad: number } | undefined>('cantidad');
    return row?.cantidad;
  });

describe('two bodega-svc replicas given the Galera nodes in different orders', () => {
  it('50 exits of 1 unit against 10: no lost update, never negative, versions gap-free on every node', async () => {
    const bodegaId = await bodega(100);
    const productoId = producto();
    await many[0]!.clients[0]!.asignarExistencia({ bodegaId, productoId, cantidad: 10 });
    const answers = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        answerOf(
          client(i).registrarMovimiento(
            { bodegaId, productoId, tipo: SALIDA, cantidad: 1, motivo: 0 },
            asUser(`c${i}`),
          ),
        ),
      ),
    );
    report.exits = tally(answers);
    const ok = answers.filter((a) => a.ok).length;
    expect(ok).toBeLessThanOrEqual(10);
    expect(await nivel(bodegaId, productoId)).toBe(10 - ok);
    expect(await onEveryNode((db) => lineVersions(db, bodegaId, productoId))).toEqual(
      Array.from({ length: ok + 1 }, (_, i) => i + 1),
    );
    // What the clients that failed were told: no stock left, or a conflict to retry; nothing else.
    expect(
      Object.keys(report.exits).filter(
        (k) => !['ok', 'FAILED_PRECONDITION STOCK_INSUFICIENTE', 'ABORTED LOCK_CONFLICT'].includes(k),
      ),
    ).toEqual([]);
  });

  it('20 clients filling one warehouse across 5 products never pass its capacity', async () => {
    const capacidad = 60;
    const unidad = 3;
    const bodegaId = await bodega(capacidad);
    const productos = Array.from({ length: 5 }, producto);
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, c) => {
        const mine: Answer<unknown>[] = [];
        for (let k = 0; k < 3; k++) {
          const productoId = productos[(c + k) % productos.length]!;
          mine.push(
            await answerOf(
              client(c).registrarMovimiento({ bodegaId, productoId, tipo: ENTRADA, cantidad: unidad, motivo: 0 }),
            ),
          );
        }
        return mine;
      }),
    );
    report.capacity = tally(answers.flat());
    const ok = answers.flat().filter((a) => a.ok).length;
    // The exact occupancy: the row less the exits' stripes (bodega-svc's ocupacion.ts).
    const row = await onEveryNode((db) =>
      db('bodegas')
        .where({ id: bodegaId })
        .first<{ capacidad: number; ocupacion: number }>('capacidad', ocupacionExacta(db)),
    );
    expect(row.ocupacion).toBeLessThanOrEqual(capacidad);
    expect(row.ocupacion).toBe(ok * unidad);
    const suma = await onEveryNode(async (db) =>
      Number(
        ((await db('existencias').where({ bodega_id: bodegaId }).sum({ s: 'cantidad' }).first()) as { s: string }).s,
      ),
    );
    expect(suma).toBe(row.ocupacion);
  });

  it('opposite transfers between two warehouses from 40 clients: units conserved on every node', async () => {
    const [a, b] = [await bodega(1000), await bodega(1000)];
    const [p1, p2] = [producto(), producto()];
    for (const bodegaId of [a, b])
      for (const productoId of [p1, p2])
        await many[0]!.clients[0]!.asignarExistencia({ bodegaId, productoId, cantidad: 100 });
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, c) => {
        const mine: Answer<unknown>[] = [];
        for (let k = 0; k < 5; k++) {
          const [origenId, destinoId] = (c + k) % 2 === 0 ? [a, b] : [b, a];
          mine.push(
            await answerOf(
              client(c).transferir({ productoId: c % 4 < 2 ? p1 : p2, origenId, destinoId, cantidad: 1 + (c % 3) }),
            ),
          );
        }
        return mine;
      }),
    );
    report.transfers = tally(answers.flat());
    for (const productoId of [p1, p2]) expect((await nivel(a, productoId))! + (await nivel(b, productoId))!).toBe(200);
    // The exact occupancy: an origin that only loses units records them in its exit stripes, not its row.
    const ocupacion = await onEveryNode(async (db) => {
      const rows = await db('bodegas')
        .whereIn('id', [a, b])
        .select<{ ocupacion: number | string }[]>(ocupacionExacta(db));
      return rows.reduce((sum, r) => sum + Number(r.ocupacion), 0);
    });
    expect(ocupacion).toBe(400);
  });

  it('one request_id sent to both replicas at once: one operation', async () => {
    const bodegaId = await bodega(100);
    const productoId = producto();
    await many[0]!.clients[0]!.asignarExistencia({ bodegaId, productoId, cantidad: 10 });
    const requestId = `galera-${productoId}`;
    const request = { bodegaId, productoId, tipo: ENTRADA, cantidad: 5, motivo: 0, requestId };
    const user = asUser('una-clave');
    const first = await Promise.all(
      Array.from({ length: 20 }, (_, i) => answerOf(client(i).registrarMovimiento(request, user))),
    );
    report.keyed = tally(first);
    const answers = await Promise.all(
      first.map(async (a, i) => {
        let got = a;
        for (let n = 0; !got.ok && n < 100; n++) {
          await new Promise((r) => setTimeout(r, 50));
          got = await answerOf(client(i).registrarMovimiento(request, user));
        }
        if (!got.ok) throw new Error(`still ${got.code} ${got.reason ?? ''}`);
        return got.res;
      }),
    );
    expect(new Set(answers.map((x) => JSON.stringify(x))).size).toBe(1);
    expect(
      await onEveryNode(async (db) =>
        (await db('operaciones').where({ clave_idempotencia: requestId }).pluck('id')).map(Number),
      ),
    ).toEqual([answers[0]!.operacion!.id]);
    expect(await nivel(bodegaId, productoId)).toBe(15);
  });

  it('one writer node: g2 and g3 committed nothing, and a pool given g2 alone is refused naming the writer', async () => {
    const commits = await Promise.all(dbs.map(localCommits));
    expect(commits[0]).toBeGreaterThan(commitsAtStart[0]!);
    expect(commits.slice(1)).toEqual(commitsAtStart.slice(1));
    const alone = createDb(`${galera.nodes[1]!.url}/${database}`, { poolMax: 1 });
    try {
      await expect(alone.raw('SELECT 1')).rejects.toThrow(/writer node of .* is g1/);
    } finally {
      await alone.destroy();
    }
  });
});
