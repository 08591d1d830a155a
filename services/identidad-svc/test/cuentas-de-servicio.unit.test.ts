/**
 * The declaration pass's answer to what replicas starting together do to each other (docs/decisions.md, "Declared
 * service tokens under concurrent start"): a lost race is read back, contention and a database away are waited out,
 * and only a refusal is skipped. The stores are fakes here; cuentas-de-servicio-replicas.test.ts runs the real ones.
 */
import { Writable } from 'node:stream';
import {
  AlreadyExistsError,
  createLogger,
  FailedPreconditionError,
  LockConflictError,
  UnavailableError,
} from '@inventario/platform';
import type { CuentaDeServicio } from '../src/config';
import { asegurarCuentasDeServicio } from '../src/cuentas-de-servicio';
import type { TokenStore } from '../src/store/token-store';
import type { UsuarioStore } from '../src/store/usuario-store';

const SECRETO = 'c2VjcmV0by1kZS1wcnVlYmEtcXVlLW5vLWRlYmUtc2FsaXI';
const CUENTA: CuentaDeServicio = { usuario: 'producto-svc', rol: 'ADMIN', tokenId: 1_000_000_001, secreto: SECRETO };

type Paso<T> = T | Error;

/** Fakes whose calls answer the given steps in order (the last one repeats), counting the calls. */
function escenario(pasos: {
  existente?: Paso<{ id: number; tipo: 'SERVICIO' | 'HUMANO' } | undefined>[];
  crear?: Paso<{ id: number }>[];
  declarar?: Paso<'creado' | 'renovado' | 'revocado' | 'retirado'>[];
  retiro?: Paso<'REVOCADO' | 'USUARIO_ELIMINADO' | undefined>[];
}) {
  const llamadas = { existente: 0, crear: 0, declarar: 0, retiro: 0 };
  const responder = <T>(lista: Paso<T>[] | undefined, n: number, defecto: T): Promise<T> => {
    const paso = lista ? lista[Math.min(n, lista.length - 1)]! : defecto;
    return paso instanceof Error ? Promise.reject(paso) : Promise.resolve(paso);
  };
  const usuarios = {
    paraAutenticar: () => responder(pasos.existente, llamadas.existente++, undefined),
    crear: () => responder(pasos.crear, llamadas.crear++, { id: 7 }),
  } as unknown as UsuarioStore;
  const tokens = {
    asegurarDeclarado: () => responder(pasos.declarar, llamadas.declarar++, 'creado' as const),
    retiro: () => responder(pasos.retiro, llamadas.retiro++, undefined),
  } as unknown as TokenStore;
  const lines: { level: number; msg: string; resultado?: string }[] = [];
  let texto = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      texto += chunk.toString('utf8');
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as never);
      done();
    },
  });
  const logger = createLogger('identidad-svc', 'info', sink);
  const correr = () =>
    asegurarCuentasDeServicio([CUENTA], {
      usuarios,
      tokens,
      vigenciaMaxDias: 90,
      logger,
      signal: new AbortController().signal,
    });
  return { llamadas, lines, correr, texto: () => texto };
}

const duplicado = () =>
  Object.assign(new Error("Duplicate entry '1000000001' for key 'PRIMARY'"), { code: 'ER_DUP_ENTRY' });

describe('declared service tokens when replicas race', () => {
  it.each([
    ['a deadlock or lock wait past the write retries', { declarar: [new LockConflictError(), 'creado' as const] }],
    ['the database away while the account is looked up', { existente: [new UnavailableError('x'), undefined] }],
    ['the database away while the account is created', { crear: [new UnavailableError('x'), { id: 7 }] }],
  ])('%s is waited out, not skipped', async (_caso, pasos) => {
    const s = escenario(pasos);
    await s.correr();
    expect(s.lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(s.lines.filter((l) => l.msg.endsWith('failed; will retry'))).toHaveLength(1);
    expect(s.lines.find((l) => l.msg === 'declared service token')?.resultado).toBe('creado');
  });

  it('an account another replica created first is read back and given the token', async () => {
    const s = escenario({
      existente: [undefined, { id: 9, tipo: 'SERVICIO' }],
      crear: [new AlreadyExistsError('ya existe')],
      declarar: ['renovado'],
    });
    await s.correr();
    expect(s.llamadas).toEqual({ existente: 2, crear: 1, declarar: 1, retiro: 1 });
    expect(s.lines.filter((l) => l.level >= 40)).toEqual([]);
  });

  it('an insert another replica won is read back at once, as a renewal', async () => {
    const s = escenario({ declarar: [duplicado(), 'renovado'] });
    await s.correr();
    expect(s.llamadas.declarar).toBe(2);
    expect(s.lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(s.lines.find((l) => l.msg === 'declared service token')?.resultado).toBe('renovado');
  });

  it.each([
    ['an id holding another secret', { declarar: [new FailedPreconditionError('otro secreto')] }, 1, 'not applied'],
    ['a revoked token', { declarar: ['revocado' as const] }, 1, 'was revoked'],
    ['a human name', { existente: [{ id: 1, tipo: 'HUMANO' as const }] }, 0, 'names a human user'],
    ['an id retired when revoked', { retiro: ['REVOCADO' as const] }, 0, 'was revoked'],
    [
      'an id retired with its deleted account',
      { retiro: ['USUARIO_ELIMINADO' as const] },
      0,
      'retired with its deleted',
    ],
    ['an id retired while the account was made', { declarar: ['retirado' as const] }, 1, 'retired with its deleted'],
  ])('%s is refused once in the log, without the secret, and not retried', async (_caso, pasos, declarar, msg) => {
    const s = escenario(pasos);
    await s.correr();
    expect(s.llamadas.declarar).toBe(declarar);
    expect(s.lines.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([expect.stringContaining(msg)]);
    expect(s.lines.filter((l) => l.msg.endsWith('failed; will retry'))).toEqual([]);
    expect(s.texto()).not.toContain(SECRETO);
  });

  it('a retired id is refused before its account is looked up, so a deleted account is not made again', async () => {
    const s = escenario({ retiro: ['USUARIO_ELIMINADO'] });
    await s.correr();
    expect(s.llamadas).toEqual({ existente: 0, crear: 0, declarar: 0, retiro: 1 });
  });
});
