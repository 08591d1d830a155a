/**
 * A burst of requests with one credential that misses the verified-credential cache (a new client, or
 * every client at an entry's expiry) shares one verification by identidad-svc: one argon2id, not one per
 * request. What is never shared: a refusal (each request is verified on its own, so identidad-svc counts
 * every failure by address), a verification begun before an identity event, and anything while the cache
 * is bypassed. identity-auth.test.ts drives the same middleware over HTTP against the real services.
 */
import { UnauthenticatedError as CredencialRechazada } from '@inventario/platform';
import type { NextFunction, Request, Response } from 'express';
import { Registry } from 'prom-client';
import { createCredentialCache, type Credencial } from '../src/auth/credential-cache';
import { createAuthMetrics, createIdentityAuth } from '../src/auth/identity-auth';
import type { Autenticacion, IdentidadClient } from '../src/downstream/identidad-client';
import { CALLER_KEY } from '../src/http/auth';
import { UnauthenticatedError } from '../src/http/http-errors';

const basic = (usuario: string, password: string) =>
  `Basic ${Buffer.from(`${usuario}:${password}`).toString('base64')}`;

function autenticacionDe(usuario: string): Autenticacion {
  return {
    principal: { usuario },
    firmado: `firmado-${usuario}`,
    firmadoExpiraEn: new Date(Date.now() + 10 * 60_000),
  } as unknown as Autenticacion;
}

interface Pendiente {
  credencial: Credencial;
  direccion: string;
  resolve(value: Autenticacion): void;
  reject(err: unknown): void;
}

/** identidad-svc as a list of verifications the test answers one by one. */
function fakeIdentidad() {
  const pendientes: Pendiente[] = [];
  const client = {
    autenticar: (credencial: Credencial, direccion: string) =>
      new Promise<Autenticacion>((resolve, reject) => pendientes.push({ credencial, direccion, resolve, reject })),
  } as unknown as IdentidadClient;
  const pendiente = (i: number): Pendiente => {
    const p = pendientes[i];
    if (!p) throw new Error(`no verification #${i} was asked`);
    return p;
  };
  return { client, pendientes, pendiente };
}

function setup(options: { bypassed?: boolean } = {}) {
  const identidad = fakeIdentidad();
  const cache = createCredentialCache({ ttlMs: 60_000, maxEntries: 100 });
  if (!options.bypassed) cache.resume(cache.epoch);
  const registry = new Registry();
  const auth = createIdentityAuth({ identidad: identidad.client, cache, metrics: createAuthMetrics(registry) });
  /** One request; resolves with what it passed to next() and the caller it was given. */
  const request = (authorization: string, ip = '10.0.0.1') =>
    new Promise<{ err: unknown; usuario?: string }>((resolve) => {
      const req = { headers: { authorization }, ip, socket: {} } as unknown as Request;
      const res = { locals: {} } as unknown as Response;
      const next: NextFunction = (err?: unknown) =>
        resolve({ err, usuario: (res.locals[CALLER_KEY] as { usuario?: string } | undefined)?.usuario });
      auth(req, res, next);
    });
  const verificaciones = async () =>
    (await registry.getSingleMetric('bff_auth_verificaciones_total')!.get()).values
      .filter((v) => v.value > 0)
      .map((v) => `${v.labels.metodo}/${v.labels.resultado}=${v.value}`);
  return { identidad, cache, request, verificaciones };
}

/** Lets the middleware's continuations run. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('one verification for a burst with one credential', () => {
  it('20 concurrent requests with one password that the cache does not hold ask identidad-svc once', async () => {
    const { identidad, request, verificaciones } = setup();
    const answers = Array.from({ length: 20 }, () => request(basic('ana', 'clave-ana-1')));
    await tick();
    expect(identidad.pendientes).toHaveLength(1);
    identidad.pendiente(0).resolve(autenticacionDe('ana'));
    const results = await Promise.all(answers);
    expect(results.map((r) => [r.err, r.usuario])).toEqual(Array.from({ length: 20 }, () => [undefined, 'ana']));
    expect(await verificaciones()).toEqual(['password/ok=1']);
    // Then the cache answers: no second verification.
    expect(await request(basic('ana', 'clave-ana-1'))).toEqual({ err: undefined, usuario: 'ana' });
    expect(identidad.pendientes).toHaveLength(1);
  });

  it('the same for a token', async () => {
    const { identidad, request } = setup();
    const answers = Array.from({ length: 5 }, () => request('Bearer inv_7_secreto'));
    await tick();
    expect(identidad.pendientes).toHaveLength(1);
    expect(identidad.pendiente(0).credencial).toEqual({ bearer: 'inv_7_secreto' });
    identidad.pendiente(0).resolve(autenticacionDe('integracion'));
    expect((await Promise.all(answers)).every((r) => r.err === undefined && r.usuario === 'integracion')).toBe(true);
  });

  it('different credentials are verified apart, a wrong password of the same user included', async () => {
    const { identidad, request } = setup();
    const right = request(basic('ana', 'clave-ana-1'));
    const wrong = request(basic('ana', 'otra-clave'));
    const other = request(basic('luis', 'clave-luis-1'));
    await tick();
    expect(identidad.pendientes.map((p) => p.credencial)).toEqual([
      { basica: { usuario: 'ana', password: 'clave-ana-1' } },
      { basica: { usuario: 'ana', password: 'otra-clave' } },
      { basica: { usuario: 'luis', password: 'clave-luis-1' } },
    ]);
    identidad.pendiente(0).resolve(autenticacionDe('ana'));
    identidad.pendiente(1).reject(new CredencialRechazada('no'));
    identidad.pendiente(2).resolve(autenticacionDe('luis'));
    expect((await right).usuario).toBe('ana');
    expect((await wrong).err).toBeInstanceOf(UnauthenticatedError);
    expect((await other).usuario).toBe('luis');
  });

  it('a refusal is not shared: each waiting request is then verified with its own address, and each is refused', async () => {
    const { identidad, request, verificaciones } = setup();
    const answers = [request(basic('ana', 'mala'), '10.0.0.1'), request(basic('ana', 'mala'), '10.0.0.2')];
    answers.push(request(basic('ana', 'mala'), '10.0.0.3'));
    await tick();
    expect(identidad.pendientes).toHaveLength(1);
    identidad.pendiente(0).reject(new CredencialRechazada('no'));
    await tick();
    expect(identidad.pendientes.map((p) => p.direccion)).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3']);
    for (const p of identidad.pendientes.slice(1)) p.reject(new CredencialRechazada('no'));
    const results = await Promise.all(answers);
    expect(results.every((r) => r.err instanceof UnauthenticatedError)).toBe(true);
    expect(await verificaciones()).toEqual(['password/rechazada=3']);
  });

  it('identidad-svc unable to answer is shared: the burst gets its error, asked once', async () => {
    const { identidad, request } = setup();
    const unavailable = Object.assign(new Error('identidad-svc no disponible'), { status: 503 });
    const answers = Array.from({ length: 4 }, () => request(basic('ana', 'clave-ana-1')));
    await tick();
    identidad.pendiente(0).reject(unavailable);
    expect((await Promise.all(answers)).map((r) => r.err)).toEqual([
      unavailable,
      unavailable,
      unavailable,
      unavailable,
    ]);
    expect(identidad.pendientes).toHaveLength(1);
  });

  it('a request that arrives after an identity event does not take a verification begun before it', async () => {
    const { identidad, cache, request } = setup();
    const before = request(basic('ana', 'clave-vieja'));
    await tick();
    cache.invalidate(); // e.g. ana's password changed while the first verification ran
    const after = request(basic('ana', 'clave-vieja'));
    await tick();
    expect(identidad.pendientes).toHaveLength(2);
    identidad.pendiente(0).resolve(autenticacionDe('ana'));
    identidad.pendiente(1).reject(new CredencialRechazada('no'));
    expect((await before).usuario).toBe('ana');
    expect((await after).err).toBeInstanceOf(UnauthenticatedError);
  });

  it('while the cache is bypassed (the event stream in doubt) every request is verified on its own', async () => {
    const { identidad, request } = setup({ bypassed: true });
    const answers = Array.from({ length: 3 }, () => request(basic('ana', 'clave-ana-1')));
    await tick();
    expect(identidad.pendientes).toHaveLength(3);
    for (const p of identidad.pendientes) p.resolve(autenticacionDe('ana'));
    expect((await Promise.all(answers)).every((r) => r.usuario === 'ana')).toBe(true);
  });

  it('once a verification has ended, the next miss asks again (nothing is kept outside the cache)', async () => {
    const { identidad, cache, request } = setup();
    const first = request(basic('ana', 'clave-ana-1'));
    await tick();
    identidad.pendiente(0).resolve(autenticacionDe('ana'));
    await first;
    cache.invalidate();
    const second = request(basic('ana', 'clave-ana-1'));
    await tick();
    expect(identidad.pendientes).toHaveLength(2);
    identidad.pendiente(1).resolve(autenticacionDe('ana'));
    expect((await second).usuario).toBe('ana');
  });
});
