/**
 * Declared service tokens (TOKENS_DE_SERVICIO) when the chart's replicas of identidad-svc start at the same moment
 * against one database (docs/decisions.md, "Declared service tokens under concurrent start"): every replica comes up
 * serving without refusing its own declaration, each account, token and creation event exists once, and a restart
 * of them all renews without duplicating, on real MariaDB and NATS.
 */
import { randomBytes } from 'node:crypto';
import { credentials, status } from '@grpc/grpc-js';
import { createDb, createLogger, type Knex, type NatsConnection } from '@inventario/platform';
import { IdentidadServiceClient } from '@inventario/proto';
import {
  connectTestNats,
  createTestDatabase,
  deleteStream,
  readStream,
  testEventNamespace,
  waitForOutboxesDrained,
  type EventNamespace,
  type TestDatabase,
  logLineSink,
} from '@inventario/testkit';
import { identidadRpcOf, type IdentidadRpc } from '@inventario/testkit/stack';
import { startApp, type App } from '../src/app';
import { loadConfig } from '../src/config';
import { ADMIN, ADMIN_PASSWORD, como, grpcError, testServiceEnv } from './support/test-service';

/** The chart's autoscaler runs identidad-svc on 2 to 6 replicas; four start together here. */
const REPLICAS = 4;
const VIGENCIA_MAX_DIAS = 90;
const DIA_MS = 86_400_000;

const secreto = () => randomBytes(32).toString('base64url');
const DECLARADOS = [
  { usuario: 'producto-svc', rol: 'ADMIN', token: `inv_1000000001_${secreto()}` },
  { usuario: 'bodega-svc', rol: 'ADMIN', token: `inv_1000000002_${secreto()}` },
  { usuario: 'notifier', rol: 'LECTOR', token: `inv_1000000003_${secreto()}` },
  { usuario: 'inventario-seed', rol: 'ADMIN', token: `inv_1000000004_${secreto()}` },
];
const TOKEN_IDS = [1_000_000_001, 1_000_000_002, 1_000_000_003, 1_000_000_004];
const NOMBRES = DECLARADOS.map((d) => d.usuario);

interface LogLine {
  level: number;
  msg: string;
  tokenId?: number;
  resultado?: string;
}

interface Replica {
  app: App;
  rpc: IdentidadRpc;
  client: IdentidadServiceClient;
  lines: LogLine[];
}

let testDb: TestDatabase;
let ns: EventNamespace;
let env: Record<string, string>;
let db: Knex;
let nc: NatsConnection;
let replicas: Replica[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase('cuentas_rep');
  ns = testEventNamespace();
  env = testServiceEnv(testDb.url, ns, {
    TOKENS_DE_SERVICIO: DECLARADOS.map((d) => `${d.usuario}:${d.rol}=${d.token}`).join(','),
    VIGENCIA_MAX_DIAS: String(VIGENCIA_MAX_DIAS),
    LOG_LEVEL: 'info',
  });
  db = createDb(testDb.url);
  nc = await connectTestNats();
});

afterAll(async () => {
  await stopAll();
  await deleteStream(nc, ns.stream);
  await nc.close();
  await db.destroy();
  await testDb.drop();
});

/** One replica, on its own pool and logger, as a pod of the Deployment would be. */
async function startReplica(): Promise<Replica> {
  const lines: LogLine[] = [];
  const sink = logLineSink(lines);
  const config = loadConfig(env);
  const app = await startApp(config, createLogger('identidad-svc', config.logLevel, sink));
  await app.ready.catch(async (err: unknown) => {
    await app.stop();
    throw err;
  });
  const client = new IdentidadServiceClient(`127.0.0.1:${app.grpcPort}`, credentials.createInsecure());
  return { app, rpc: identidadRpcOf(client), client, lines };
}

/** Starts every replica at once; all must come up (the ones that did are stopped before a failure is reported). */
async function startAll(): Promise<void> {
  const started = await Promise.allSettled(Array.from({ length: REPLICAS }, () => startReplica()));
  replicas = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = started.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failed.length > 0) throw failed[0];
}

async function stopAll(): Promise<void> {
  const stopping = replicas;
  replicas = [];
  await Promise.all(
    stopping.map(async (r) => {
      r.client.close();
      await r.app.stop();
    }),
  );
}

/** The outcome each replica logged per declared token id ('creado', 'renovado'). */
const resultados = () =>
  replicas.map((r) =>
    Object.fromEntries(
      r.lines.filter((l) => l.msg === 'declared service token').map((l) => [l.tokenId!, l.resultado!] as const),
    ),
  );

const errores = (r: Replica) => r.lines.filter((l) => l.level >= 50).map((l) => ({ msg: l.msg, tokenId: l.tokenId }));

async function cuentas(): Promise<{ usuario: string; tipo: string; asignaciones: string }[]> {
  const [rows] = (await db.raw(
    `SELECT u.usuario, u.tipo, GROUP_CONCAT(CONCAT(a.rol, '@', COALESCE(a.bodega_id, '*'))) AS asignaciones
       FROM usuarios u LEFT JOIN asignaciones a ON a.usuario_id = u.id
      WHERE u.tipo = 'SERVICIO' GROUP BY u.id ORDER BY u.usuario`,
  )) as [{ usuario: string; tipo: string; asignaciones: string }[]];
  return rows;
}

async function tokens(): Promise<{ id: number; usuario: string; revocado: number; expira: Date }[]> {
  const [rows] = (await db.raw(
    `SELECT t.id, u.usuario, t.revocado_en IS NOT NULL AS revocado, t.expira_en AS expira
       FROM tokens t JOIN usuarios u ON u.id = t.usuario_id WHERE u.tipo = 'SERVICIO' ORDER BY t.id`,
  )) as [{ id: number; usuario: string; revocado: number; expira: Date }[]];
  return rows.map((r) => ({ ...r, revocado: Number(r.revocado) }));
}

async function idsDeUsuario(nombres: string[]): Promise<Record<string, number>> {
  const rows = await db<{ id: number; usuario: string }>('usuarios')
    .whereIn('usuario', nombres)
    .select('id', 'usuario');
  return Object.fromEntries(rows.map((u) => [u.usuario, u.id]));
}

/**
 * Outbox rows per (type, record): each write's event, whether or not it has been published yet. The chain's anchors
 * (each replica's periodic task, one per head) are no creation's.
 */
async function outbox(): Promise<Record<string, number>> {
  const [rows] = (await db.raw(
    `SELECT CONCAT(JSON_VALUE(payload, '$.eventType'), ' ', JSON_VALUE(payload, '$.subject')) AS clave, COUNT(*) AS n
       FROM outbox WHERE JSON_VALUE(payload, '$.eventType') NOT LIKE '%.AuditoriaAnclada' GROUP BY clave`,
  )) as [{ clave: string; n: number | string }[]];
  return Object.fromEntries(rows.map((r) => [r.clave.replace(/^.*\.Inventario\./, ''), Number(r.n)]));
}

/** Audit rows per (action, record), the trail the writes append in their own transaction. */
async function auditoria(): Promise<Record<string, number>> {
  const [rows] = (await db.raw(
    `SELECT CONCAT(accion, ' ', recurso) AS clave, COUNT(*) AS n FROM auditoria
      WHERE accion <> 'AuditoriaAnclada' GROUP BY clave`,
  )) as [{ clave: string; n: number | string }[]];
  return Object.fromEntries(rows.map((r) => [r.clave, Number(r.n)]));
}

/** Events on the stream per (type, record). */
async function publicados(): Promise<Record<string, number>> {
  await waitForOutboxesDrained([db]);
  const cuenta: Record<string, number> = {};
  for (const e of await readStream(nc, ns.stream)) {
    if (String(e.body.eventType).endsWith('.AuditoriaAnclada')) continue;
    const clave = `${String(e.body.eventType).replace(/^.*\.Inventario\./, '')} ${String(e.body.subject)}`;
    cuenta[clave] = (cuenta[clave] ?? 0) + 1;
  }
  return cuenta;
}

describe('declared service tokens, replicas starting at once', () => {
  let creacion: Record<string, number>;
  let conRevocacion: Record<string, number>;

  it('come up serving, each declaration made once: one account, one token, one event and audit row each', async () => {
    const desde = Date.now();
    await startAll();
    const hasta = Date.now();

    expect(replicas.map(errores)).toEqual(replicas.map(() => []));
    // Each token was created by exactly one replica and found (renewed) by the others.
    for (const id of TOKEN_IDS) {
      const porReplica = resultados().map((r) => r[id]);
      expect(porReplica.filter((r) => r === 'creado')).toHaveLength(1);
      expect(porReplica.filter((r) => r === 'renovado')).toHaveLength(REPLICAS - 1);
    }

    expect(await cuentas()).toEqual(
      [...DECLARADOS]
        .sort((a, b) => a.usuario.localeCompare(b.usuario))
        .map((d) => ({ usuario: d.usuario, tipo: 'SERVICIO', asignaciones: `${d.rol}@*` })),
    );
    const hechos = await tokens();
    expect(hechos.map(({ id, usuario, revocado }) => ({ id, usuario, revocado }))).toEqual(
      DECLARADOS.map((d, i) => ({ id: TOKEN_IDS[i], usuario: d.usuario, revocado: 0 })),
    );
    // Expiry: the cap from the start that wrote it last (DATETIME keeps whole seconds).
    for (const t of hechos) {
      expect(t.expira.getTime()).toBeGreaterThanOrEqual(desde + VIGENCIA_MAX_DIAS * DIA_MS - 1000);
      expect(t.expira.getTime()).toBeLessThanOrEqual(hasta + VIGENCIA_MAX_DIAS * DIA_MS + 1000);
    }

    // Every replica serves, and every declared token authenticates on each of them.
    for (const replica of replicas) {
      for (const [i, d] of DECLARADOS.entries()) {
        const res = await replica.rpc.autenticar({ bearer: d.token, direccion: '' });
        expect(res.principal).toMatchObject({ usuario: d.usuario, tokenId: TOKEN_IDS[i] });
      }
    }

    const usuarioIds = await idsDeUsuario([ADMIN, ...NOMBRES]);
    creacion = Object.fromEntries([
      ...[ADMIN, ...NOMBRES].map((n) => [`UsuarioCreado /usuarios/${usuarioIds[n]}`, 1] as const),
      ...TOKEN_IDS.map((id) => [`TokenCreado /tokens/${id}`, 1] as const),
    ]);
    expect(await outbox()).toEqual(creacion);
    expect(await auditoria()).toEqual(creacion);
    expect(await publicados()).toEqual(creacion);
    expect(JSON.stringify(await readStream(nc, ns.stream))).not.toContain(DECLARADOS[0]!.token.slice(15));
  });

  it('restarted all at once: renewed to the cap, a revoked one left revoked, nothing created twice', async () => {
    // An administrator revokes the notifier's token, and every expiry is an hour away, before the rollout.
    const admin = await replicas[0]!.rpc.autenticar({
      basica: { usuario: ADMIN, password: ADMIN_PASSWORD },
      direccion: '127.0.0.1',
    });
    await replicas[0]!.rpc.revokeToken({ id: TOKEN_IDS[2]! }, como(admin));
    await db('tokens')
      .whereIn('id', TOKEN_IDS)
      .update({ expira_en: new Date(Date.now() + 3_600_000) });
    await stopAll();

    const desde = Date.now();
    await startAll();

    // The revoked declaration is reported by every replica (declare a new id), and nothing else is.
    expect(replicas.map(errores)).toEqual(
      replicas.map(() => [{ msg: 'declared service token was revoked: declare a new one', tokenId: TOKEN_IDS[2] }]),
    );
    for (const r of resultados()) {
      expect(r).toEqual({ [TOKEN_IDS[0]!]: 'renovado', [TOKEN_IDS[1]!]: 'renovado', [TOKEN_IDS[3]!]: 'renovado' });
    }
    const hechos = await tokens();
    expect(hechos.map((t) => [t.id, t.revocado])).toEqual(TOKEN_IDS.map((id) => [id, id === TOKEN_IDS[2] ? 1 : 0]));
    for (const t of hechos.filter((h) => h.id !== TOKEN_IDS[2])) {
      expect(t.expira.getTime()).toBeGreaterThanOrEqual(desde + VIGENCIA_MAX_DIAS * DIA_MS - 1000);
    }
    expect(hechos.find((h) => h.id === TOKEN_IDS[2])!.expira.getTime()).toBeLessThan(desde + 2 * 3_600_000);
    expect((await cuentas()).map((c) => c.usuario)).toEqual([...NOMBRES].sort());

    for (const replica of replicas) {
      for (const [i, d] of DECLARADOS.entries()) {
        const res = replica.rpc.autenticar({ bearer: d.token, direccion: '' });
        if (i === 2) expect((await grpcError(res)).code).toBe(status.UNAUTHENTICATED);
        else expect((await res).principal).toMatchObject({ usuario: d.usuario, tokenId: TOKEN_IDS[i] });
      }
    }

    // The only new event is the administrator's revocation.
    conRevocacion = { ...creacion, [`TokenRevocado /tokens/${TOKEN_IDS[2]}`]: 1 };
    expect(await outbox()).toEqual(conRevocacion);
    expect(await auditoria()).toEqual(conRevocacion);
    expect(await publicados()).toEqual(conRevocacion);
  });

  it('a rollout that declares new callers: each made once by the replicas starting together', async () => {
    // The guard of the first ADMIN no longer staggers the replicas: the new declarations race from the first call.
    const nuevos = [
      { usuario: 'informes', rol: 'LECTOR', id: 1_000_000_005, token: `inv_1000000005_${secreto()}` },
      { usuario: 'exportador', rol: 'LECTOR', id: 1_000_000_006, token: `inv_1000000006_${secreto()}` },
    ];
    env = {
      ...env,
      TOKENS_DE_SERVICIO: [env.TOKENS_DE_SERVICIO, ...nuevos.map((d) => `${d.usuario}:${d.rol}=${d.token}`)].join(','),
    };
    await stopAll();
    await startAll();

    expect(replicas.map(errores)).toEqual(
      replicas.map(() => [{ msg: 'declared service token was revoked: declare a new one', tokenId: TOKEN_IDS[2] }]),
    );
    for (const { id } of nuevos) {
      expect(resultados().filter((r) => r[id] === 'creado')).toHaveLength(1);
      expect(resultados().filter((r) => r[id] === 'renovado')).toHaveLength(REPLICAS - 1);
    }
    expect((await tokens()).map((t) => [t.id, t.usuario])).toEqual([
      ...DECLARADOS.map((d, i) => [TOKEN_IDS[i], d.usuario]),
      ...nuevos.map((d) => [d.id, d.usuario]),
    ]);
    expect((await cuentas()).map((c) => `${c.usuario} ${c.asignaciones}`)).toEqual(
      [...DECLARADOS, ...nuevos].map((d) => `${d.usuario} ${d.rol}@*`).sort(),
    );
    for (const replica of replicas) {
      for (const d of nuevos) {
        const res = await replica.rpc.autenticar({ bearer: d.token, direccion: '' });
        expect(res.principal).toMatchObject({ usuario: d.usuario, tokenId: d.id });
      }
    }

    const ids = await idsDeUsuario(nuevos.map((d) => d.usuario));
    const conNuevos = {
      ...conRevocacion,
      ...Object.fromEntries(nuevos.map((d) => [`UsuarioCreado /usuarios/${ids[d.usuario]}`, 1])),
      ...Object.fromEntries(nuevos.map((d) => [`TokenCreado /tokens/${d.id}`, 1])),
    };
    expect(await outbox()).toEqual(conNuevos);
    expect(await auditoria()).toEqual(conNuevos);
    expect(await publicados()).toEqual(conNuevos);
  });
});
