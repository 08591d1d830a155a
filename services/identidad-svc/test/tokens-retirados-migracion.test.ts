/**
 * Migration 0004 (tokens_retirados) on a database the previous release wrote, through the migration runner the
 * service starts with: tokens already revoked, and tokens already deleted with their account (known only from the
 * audit trail), are retired, so a declaration of one of them is not made again at the first start after the upgrade.
 * Real MariaDB and NATS.
 */
import {
  createDb,
  createLogger,
  enqueueEvent,
  nowToSecond,
  runMigrationJob,
  type Knex,
  type NatsConnection,
} from '@inventario/platform';
import {
  connectTestNats,
  createTestDatabase,
  deleteStream,
  testEventNamespace,
  type EventNamespace,
  type TestDatabase,
  logLineSink,
} from '@inventario/testkit';
import { startApp, type App } from '../src/app';
import { loadConfig } from '../src/config';
import { hashDeSecreto, nuevoSecreto, textoDeToken } from '../src/domain/token';
import { hechoDeEvento, type SobreEvento } from '../src/events/hecho';
import { createIdentidadEvents } from '../src/events/identidad-events';
import { anexar } from '../src/store/auditoria-store';
import { migrations } from '../src/store/migrations';
import { createTokenStore } from '../src/store/token-store';
import { createUsuarioStore, type Escritura } from '../src/store/usuario-store';
import { testServiceEnv, type LogLine } from './support/test-service';

const SISTEMA: Escritura = {
  caller: { usuario: 'system' },
  autor: { principalId: null, usuario: 'system', metodoAuth: 'system', tokenId: null },
};
const ERROR = 50;

let testDb: TestDatabase;
let ns: EventNamespace;
let db: Knex;
let nc: NatsConnection;
let app: App | undefined;

beforeAll(async () => {
  testDb = await createTestDatabase('ret_migr');
  ns = testEventNamespace();
  db = createDb(testDb.url);
  nc = await connectTestNats();
});

afterAll(async () => {
  await app?.stop();
  await deleteStream(nc, ns.stream);
  await nc.close();
  await db.destroy();
  await testDb.drop();
});

/**
 * What the previous release's schema and writes leave: every migration before 0004, then its users and tokens. Users
 * are created, deleted and tokens revoked through today's stores, whose statements for those are the previous
 * release's; a token is created as the previous `TokenStore.crear` did (row, outbox, audit row), since today's also
 * reads the record this migration adds.
 */
async function datosPrevios(env: Record<string, string>) {
  const previas = Object.fromEntries(Object.entries(migrations).filter(([nombre]) => nombre < '0004'));
  expect(await runMigrationJob('identidad-svc', previas, { DATABASE_URL: testDb.url, LOG_LEVEL: 'silent' })).toBe(0);
  const config = loadConfig(env);
  const events = createIdentidadEvents({ namespace: config.eventTypeNamespace, subjectPrefix: ns.prefix });
  const deps = { events, idempotencyTtlSeconds: config.idempotencyTtlSeconds };
  const usuarios = createUsuarioStore(db, deps);
  const tokens = createTokenStore(db, deps);
  const cuenta = async (usuario: string) => {
    const nueva = { usuario, tipo: 'SERVICIO' as const, passwordHash: null };
    const { id } = await usuarios.crear({ ...nueva, asignaciones: [{ rol: 'LECTOR', bodegaId: null }] }, SISTEMA);
    const secreto = nuevoSecreto();
    const at = nowToSecond();
    const expiraEn = new Date(at.getTime() + 30 * 86_400_000);
    const tokenId = await db.transaction(async (trx) => {
      const fila = { usuario_id: id, nombre: usuario, hash_secreto: hashDeSecreto(secreto), expira_en: expiraEn };
      const [insertId] = await trx('tokens').insert({ ...fila, alcance: null, fecha_creacion: at });
      const token = { id: Number(insertId), usuarioId: id, nombre: usuario, expiraEn, alcance: null };
      const creado = { ...token, fechaCreacion: at, revocadoEn: null, ultimoUso: null };
      const event = events.token('TokenCreado', creado, { autor: SISTEMA.autor, at });
      await enqueueEvent(trx, event);
      await anexar(trx, hechoDeEvento(event.envelope as unknown as SobreEvento));
      return token.id;
    });
    return { usuarioId: id, tokenId, secreto: textoDeToken(tokenId, secreto) };
  };
  const eliminada = await cuenta('producto-svc');
  await usuarios.eliminar(eliminada.usuarioId, SISTEMA);
  const revocada = await cuenta('notifier');
  await tokens.revocar(revocada.tokenId, SISTEMA, () => undefined);
  const viva = await cuenta('bodega-svc');
  return { eliminada, revocada, viva };
}

it('retires the tokens revoked or deleted before it; the first start after it does not make them again', async () => {
  const env = testServiceEnv(testDb.url, ns, { LOG_LEVEL: 'info' });
  const { eliminada, revocada, viva } = await datosPrevios(env);

  const lines: LogLine[] = [];
  const sink = logLineSink(lines);
  const declarados = [
    `producto-svc:ADMIN=${eliminada.secreto}`,
    `notifier:LECTOR=${revocada.secreto}`,
    `bodega-svc:ADMIN=${viva.secreto}`,
  ].join(',');
  const config = loadConfig({ ...env, TOKENS_DE_SERVICIO: declarados });
  app = await startApp(config, createLogger('identidad-svc', config.logLevel, sink));
  await app.ready;

  const retirados = (await db('tokens_retirados').orderBy('token_id')) as {
    token_id: number;
    usuario_id: number;
    retirado_en: Date;
    motivo: string;
  }[];
  expect(retirados.map(({ token_id, usuario_id, motivo }) => ({ token_id, usuario_id, motivo }))).toEqual([
    { token_id: eliminada.tokenId, usuario_id: eliminada.usuarioId, motivo: 'USUARIO_ELIMINADO' },
    { token_id: revocada.tokenId, usuario_id: revocada.usuarioId, motivo: 'REVOCADO' },
  ]);
  // When: the owner's deletion as the audit trail dated it, and the revocation.
  const borrado = (await db('auditoria').where({ accion: 'UsuarioEliminado' }).first()) as { ocurrido_en: Date };
  const revocado = (await db('tokens').where({ id: revocada.tokenId }).first()) as { revocado_en: Date };
  expect(retirados.map((r) => r.retirado_en)).toEqual([borrado.ocurrido_en, revocado.revocado_en]);

  expect(await db('usuarios').where({ usuario: 'producto-svc' }).first()).toBeUndefined();
  expect(await db('tokens').where({ id: eliminada.tokenId }).first()).toBeUndefined();
  expect(lines.filter((l) => l.level >= ERROR).map((l) => ({ entrada: l.entrada, msg: l.msg }))).toEqual([
    { entrada: 1, msg: 'declared service token was retired with its deleted account: declare a new one' },
    { entrada: 2, msg: 'declared service token was revoked: declare a new one' },
  ]);
  expect(lines.find((l) => l.msg === 'declared service token')).toMatchObject({
    tokenId: viva.tokenId,
    resultado: 'renovado',
  });
});
