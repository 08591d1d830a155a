/**
 * Authentication through identidad-svc (issue 26 phase 2, docs/contract.md §3.3):
 * the BFF, producto-svc, bodega-svc and identidad-svc on ephemeral ports,
 * MariaDB and NATS. Each user's own password, Bearer tokens, the
 * verified-credential cache and its revocation by events, the exact failure
 * limit with asynchronous checks, the per-name throttle, and identidad-svc
 * down.
 */
import { type Metadata } from '@grpc/grpc-js';
import { createLogger } from '@inventario/platform';
import { metricSample, scrapeMetrics, waitFor } from '@inventario/testkit';
import { startApp as startBffApp } from '../src/app';
import { loadConfig as loadBffConfig } from '../src/config';
import { LOG_LEVEL } from './support/stack';
import {
  basicAuth,
  httpRequest,
  startTestStack,
  TEST_BFF_ENV,
  TEST_PASSWORD,
  TEST_USER,
  type TestStack,
} from './support/stack';
import type { TestIdentidad } from './support/stack';

jest.setTimeout(120_000);

const LECTOR = 'lectora.ana';
const LECTOR_PASSWORD = 'lectora-ana-password-1';

async function metric(stack: TestStack, name: string, labels: Record<string, string>): Promise<number> {
  return metricSample(await scrapeMetrics(stack.metricsPort), name, labels) ?? 0;
}

const verificaciones = (stack: TestStack, metodo: string, resultado: string) =>
  metric(stack, 'bff_auth_verificaciones_total', { metodo, resultado });

describe('authentication through identidad-svc', () => {
  let stack: TestStack;
  let identidad: TestIdentidad;
  let admin: Metadata;
  let lectorId: number;

  beforeAll(async () => {
    stack = await startTestStack('bff_idauth', { identidad: true, env: { AUTH_FAILURES_PER_15_MIN: '0' } });
    identidad = stack.identidad!;
    admin = await identidad.como(TEST_USER, TEST_PASSWORD);
    const creado = await identidad.rpc.createUsuario(
      { usuario: LECTOR, password: LECTOR_PASSWORD, tipo: 1, asignaciones: [{ rol: 'LECTOR' }], requestId: undefined },
      admin,
    );
    lectorId = creado.usuario!.id;
    // The credential cache serves once its subscription to the identity events is confirmed.
    await waitFor(async () => {
      await stack.request('GET', '/api/productos');
      return (await metric(stack, 'bff_auth_cache_total', { resultado: 'hit' })) > 0;
    }, 'the credential cache to serve');
  });

  afterAll(() => stack?.close());

  it('keeps the bootstrap credentials (BFF_USER/BFF_PASSWORD) working as the first ADMIN', async () => {
    const created = await stack.request('POST', '/api/productos', {
      body: { nombre: 'Tornillo', precio: 1.5, cantidadEnStock: 0 },
    });
    expect(created.status).toBe(201);
  });

  it("puts the real user's name on what it writes, not the shared one", async () => {
    const usuario = 'admin.dos';
    const password = 'admin-dos-password-1';
    await identidad.rpc.createUsuario({ usuario, password, tipo: 1, asignaciones: [{ rol: 'ADMIN' }] }, admin);
    const created = await stack.request('POST', '/api/productos', {
      auth: basicAuth(usuario, password),
      body: { nombre: 'Arandela', precio: 0.5, cantidadEnStock: 0 },
    });
    expect(created.status).toBe(201);
    const events = await stack.settledEvents();
    const evento = events.find(
      (e) =>
        e.subject.endsWith('producto.creado') && (e.body as { data?: { nombre?: string } }).data?.nombre === 'Arandela',
    );
    expect((evento?.body as { data?: { usuario?: string } } | undefined)?.data?.usuario).toBe(usuario);
  });

  it("accepts each user's own password and refuses a wrong one with the usual 401", async () => {
    const ok = await stack.request('GET', '/api/productos', { auth: basicAuth(LECTOR, LECTOR_PASSWORD) });
    expect(ok.status).toBe(200);
    const wrong = await stack.request('GET', '/api/productos', { auth: basicAuth(LECTOR, 'not-her-password') });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'UNAUTHORIZED', mensaje: 'Usuario o contraseña incorrectos' });
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="inventario", charset="UTF-8"');
    const unknown = await stack.request('GET', '/api/productos', { auth: basicAuth('nadie', 'not-a-password') });
    expect(unknown.status).toBe(401);
    expect(unknown.text).toBe(wrong.text);
  });

  it('verifies a credential once, then answers from the cache; failures are never cached', async () => {
    const auth = basicAuth(LECTOR, LECTOR_PASSWORD);
    await stack.request('GET', '/api/productos', { auth });
    const okBefore = await verificaciones(stack, 'password', 'ok');
    const hitsBefore = await metric(stack, 'bff_auth_cache_total', { resultado: 'hit' });
    for (let i = 0; i < 5; i++) expect((await stack.request('GET', '/api/productos', { auth })).status).toBe(200);
    expect(await verificaciones(stack, 'password', 'ok')).toBe(okBefore);
    expect(await metric(stack, 'bff_auth_cache_total', { resultado: 'hit' })).toBe(hitsBefore + 5);

    const rejectedBefore = await verificaciones(stack, 'password', 'rechazada');
    for (let i = 0; i < 3; i++)
      expect(
        (await stack.request('GET', '/api/productos', { auth: basicAuth(LECTOR, 'wrong-wrong-wrong') })).status,
      ).toBe(401);
    expect(await verificaciones(stack, 'password', 'rechazada')).toBe(rejectedBefore + 3);
  });

  it('accepts Bearer inv_ tokens, refuses malformed ones, and a revoked token stops within 1 s', async () => {
    const lector = await identidad.como(LECTOR, LECTOR_PASSWORD);
    const { secreto, token } = await identidad.rpc.createToken(
      { usuarioId: 0, nombre: 'integracion', permisos: [] },
      lector,
    );
    const auth = `Bearer ${secreto}`;
    expect((await stack.request('GET', '/api/productos', { auth })).status).toBe(200);
    // Cached now.
    expect((await stack.request('GET', '/api/productos', { auth })).status).toBe(200);

    const malformed = await stack.request('GET', '/api/productos', { auth: 'Bearer not a token' });
    expect(malformed.status).toBe(401);
    expect(malformed.body.error).toBe('UNAUTHORIZED');
    const forged = await stack.request('GET', '/api/productos', { auth: `Bearer inv_${token!.id}_${'A'.repeat(43)}` });
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({ error: 'UNAUTHORIZED', mensaje: 'Token no válido, caducado o revocado' });

    await identidad.rpc.revokeToken({ id: token!.id }, lector);
    const revokedAt = Date.now();
    // Requests that begin more than 1 s after the revocation's answer are refused.
    await waitFor(
      async () => (await stack.request('GET', '/api/productos', { auth })).status === 401,
      'the revoked token to be refused',
      1000,
      20,
    );
    expect(Date.now() - revokedAt).toBeLessThan(1500);
    expect((await stack.request('GET', '/api/productos', { auth })).status).toBe(401);
  });

  it('a password change voids the cached old password within 1 s', async () => {
    const usuario = 'cambia.clave';
    const viejo = 'la-clave-vieja-123';
    const nuevo = 'la-clave-nueva-456';
    const creado = await identidad.rpc.createUsuario(
      { usuario, password: viejo, tipo: 1, asignaciones: [{ rol: 'LECTOR' }] },
      admin,
    );
    const auth = basicAuth(usuario, viejo);
    expect((await stack.request('GET', '/api/bodegas', { auth })).status).toBe(200);
    expect((await stack.request('GET', '/api/bodegas', { auth })).status).toBe(200);
    await identidad.rpc.cambiarPassword({ id: creado.usuario!.id, password: nuevo }, admin);
    const changedAt = Date.now();
    await waitFor(
      async () => (await stack.request('GET', '/api/bodegas', { auth })).status === 401,
      'the old password to be refused',
      1000,
      20,
    );
    expect(Date.now() - changedAt).toBeLessThan(1500);
    expect((await stack.request('GET', '/api/bodegas', { auth: basicAuth(usuario, nuevo) })).status).toBe(200);
  });

  it('a suspended user is refused within 1 s, also from the cache', async () => {
    const usuario = 'suspendible';
    const password = 'suspendible-password-1';
    const creado = await identidad.rpc.createUsuario(
      { usuario, password, tipo: 1, asignaciones: [{ rol: 'LECTOR' }] },
      admin,
    );
    const auth = basicAuth(usuario, password);
    expect((await stack.request('GET', '/api/productos', { auth })).status).toBe(200);
    await identidad.rpc.suspenderUsuario({ id: creado.usuario!.id }, admin);
    await waitFor(
      async () => (await stack.request('GET', '/api/productos', { auth })).status === 401,
      'the suspended user to be refused',
      1000,
      20,
    );
  });

  it('no plaintext password or token secret appears in what the BFF answers', async () => {
    const res = await stack.request('GET', '/api/productos', { auth: basicAuth(LECTOR, LECTOR_PASSWORD) });
    expect(res.text).not.toContain(LECTOR_PASSWORD);
    expect(lectorId).toBeGreaterThan(0);
  });
});

describe('the failure limit with asynchronous checks, and the per-name throttle', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack('bff_idlimit', {
      identidad: true,
      env: { AUTH_FAILURES_PER_15_MIN: '5', AUTH_FAILURES_PER_USUARIO_15_MIN: '0' },
    });
  });

  afterAll(() => stack?.close());

  it('runs at most the limit of argon2id verifications for 500 concurrent wrong passwords from one address; the rest, the right password inside the burst and the one after get 429', async () => {
    const kdf = async () =>
      metricSample(await scrapeMetrics(stack.identidad!.app.metricsPort), 'identidad_kdf_operaciones_total', {
        tipo: 'verify',
      }) ?? 0;
    const before = await verificaciones(stack, 'password', 'rechazada');
    const kdfBefore = await kdf();
    // The owner's right password sits in the middle of the burst: the limit is per address, not per password.
    const RIGHT = 250;
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        stack.request('GET', '/api/productos', {
          auth: i === RIGHT ? basicAuth(TEST_USER, TEST_PASSWORD) : basicAuth(TEST_USER, `wrong-password-${i}`),
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(495);
    expect(statuses[RIGHT]).toBe(429);
    expect((await verificaciones(stack, 'password', 'rechazada')) - before).toBe(5);
    // In identidad-svc, where the hashing runs: exactly the 5 reserved slots were verified, no more.
    expect((await kdf()) - kdfBefore).toBe(5);
    const right = await stack.request('GET', '/api/productos');
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('the per-user-name throttle', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack('bff_idthrottle', {
      identidad: true,
      env: { AUTH_FAILURES_PER_15_MIN: '0', AUTH_FAILURES_PER_USUARIO_15_MIN: '3', AUTH_USUARIO_THROTTLE_MS: '2000' },
    });
  });

  afterAll(() => stack?.close());

  it('after the failures for one name, lets one attempt through per interval (right password included) and not a lock-out', async () => {
    for (let i = 0; i < 3; i++)
      expect(
        (await stack.request('GET', '/api/productos', { auth: basicAuth(TEST_USER, `stuffed-${i}`) })).status,
      ).toBe(401);
    // Throttled now: the first attempt takes the interval's slot, the next within it is 429 whatever its password.
    expect((await stack.request('GET', '/api/productos', { auth: basicAuth(TEST_USER, 'stuffed-x') })).status).toBe(
      401,
    );
    const throttled = await stack.request('GET', '/api/productos');
    expect(throttled.status).toBe(429);
    expect(throttled.body.error).toBe('TOO_MANY_REQUESTS');
    // Other names are untouched.
    expect((await stack.request('GET', '/api/productos', { auth: basicAuth('otro', 'otro-password') })).status).toBe(
      401,
    );
    // The owner still gets in once the interval passed.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect((await stack.request('GET', '/api/productos')).status).toBe(200);
  });
});

describe('identidad-svc unavailable', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack('bff_iddown', { identidad: true });
  });

  afterAll(() => stack?.close());

  it('answers 503 SERVICE_UNAVAILABLE naming identidad-svc with Retry-After, and counts no failure', async () => {
    expect((await stack.request('GET', '/api/productos')).status).toBe(200);
    await stack.identidad!.app.stop();
    const uncached = basicAuth('alguien', 'alguna-password-1');
    for (let i = 0; i < 25; i++) {
      const res = await stack.request('GET', '/api/productos', { auth: uncached });
      expect(res.status).toBe(503);
      expect(res.body.error).toBe('SERVICE_UNAVAILABLE');
      expect(res.body.mensaje).toContain('identidad-svc');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // 25 > AUTH_FAILURES_PER_15_MIN (20): none of them counted as a failure.
    expect((await stack.request('GET', '/api/productos', { auth: uncached })).status).toBe(503);
  });
});

describe('revocation through two BFF replicas', () => {
  let stack: TestStack;
  let second: Awaited<ReturnType<typeof startBffApp>>;

  beforeAll(async () => {
    stack = await startTestStack('bff_idreplicas', { identidad: true, env: { AUTH_FAILURES_PER_15_MIN: '0' } });
    second = await startBffApp(
      loadBffConfig({
        ...TEST_BFF_ENV,
        PRODUCTO_SVC_ADDR: stack.serviceAddrs.producto,
        BODEGA_SVC_ADDR: stack.serviceAddrs.bodega,
        NATS_STREAM: stack.namespace.stream,
        NATS_SUBJECT_PREFIX: stack.namespace.prefix,
        IDENTIDAD_SVC_ADDR: stack.identidad!.addr,
        AUTH_FAILURES_PER_15_MIN: '0',
      }),
      createLogger('bff', LOG_LEVEL),
    );
  });

  afterAll(async () => {
    await second?.stop();
    await stack?.close();
  });

  const replicas = () => [stack.baseUrl, `http://127.0.0.1:${second.httpPort}`];

  /**
   * `auth` on `path` through both replicas at a steady rate (every 20 ms each) from before `revoke` until 2.5 s after
   * its answer and six requests on each replica past its first second; every request that began more than 1 s after
   * that answer must not succeed, on either replica.
   */
  async function revokedWithinOneSecond(auth: string, path: string, revoke: () => Promise<unknown>): Promise<void> {
    // Both replicas serve the credential from their caches (each following the identity events) before the revoke.
    const hitsBefore =
      metricSample(await scrapeMetrics(second.metricsPort), 'bff_auth_cache_total', { resultado: 'hit' }) ?? 0;
    await waitFor(async () => {
      for (const url of replicas()) if ((await httpRequest(url, auth, 'GET', path, {})).status !== 200) return false;
      return (
        (metricSample(await scrapeMetrics(second.metricsPort), 'bff_auth_cache_total', { resultado: 'hit' }) ?? 0) >
        hitsBefore
      );
    }, 'both replicas to serve the credential from their caches');

    let revokedAt = Number.POSITIVE_INFINITY;
    const late: { replica: number; startedAfterMs: number; status: number }[] = [];
    let before = 0;
    let stop = false;
    const load = replicas().map(async (url, replica) => {
      while (!stop) {
        const startedAt = Date.now();
        const res = await httpRequest(url, auth, 'GET', path, {});
        if (startedAt - revokedAt > 1000)
          late.push({ replica, startedAfterMs: startedAt - revokedAt, status: res.status });
        else if (revokedAt === Number.POSITIVE_INFINITY && res.status === 200) before += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await revoke();
    revokedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    // At least six requests on each replica that began past the second: on a loaded machine a refused credential's
    // verification can take long enough that 1.5 s holds only a few.
    await waitFor(
      () => [0, 1].every((replica) => late.filter((r) => r.replica === replica).length >= 6),
      'six requests on each replica more than 1 s after the revoke',
      30_000,
    ).finally(() => (stop = true));
    await Promise.all(load);
    // It did succeed at the steady rate before, and requests ran on both replicas after the second.
    expect(before).toBeGreaterThan(4);
    expect(late.length).toBeGreaterThan(10);
    expect(new Set(late.map((r) => r.replica))).toEqual(new Set([0, 1]));
    expect(late.filter((r) => r.status === 200)).toEqual([]);
  }

  it('no request that begins more than 1 s after the revoke answered succeeds, on either replica', async () => {
    const admin = await stack.identidad!.como(TEST_USER, TEST_PASSWORD);
    const cuenta = await stack.identidad!.rpc.createUsuario(
      { usuario: 'integracion', tipo: 2, asignaciones: [{ rol: 'LECTOR' }] },
      admin,
    );
    const { secreto, token } = await stack.identidad!.rpc.createToken(
      { usuarioId: cuenta.usuario!.id, nombre: 'steady', permisos: [] },
      admin,
    );
    await revokedWithinOneSecond(`Bearer ${secreto}`, '/api/bodegas', () =>
      stack.identidad!.rpc.revokeToken({ id: token!.id }, admin),
    );
    expect((await httpRequest(stack.baseUrl, `Bearer ${secreto}`, 'GET', '/api/bodegas', {})).status).toBe(401);
  });

  it('the same for a password change: the old password stops within 1 s on both replicas', async () => {
    const admin = await stack.identidad!.como(TEST_USER, TEST_PASSWORD);
    const password = 'replicas-vieja-123';
    const creado = await stack.identidad!.rpc.createUsuario(
      { usuario: 'cambia.en.replicas', password, tipo: 1, asignaciones: [{ rol: 'LECTOR' }] },
      admin,
    );
    await revokedWithinOneSecond(basicAuth('cambia.en.replicas', password), '/api/bodegas', () =>
      stack.identidad!.rpc.cambiarPassword({ id: creado.usuario!.id, password: 'replicas-nueva-456' }, admin),
    );
  });

  it('the same for a removed binding: the warehouse it granted reads as missing within 1 s on both replicas', async () => {
    const admin = await stack.identidad!.como(TEST_USER, TEST_PASSWORD);
    const bodega = await stack.request('POST', '/api/bodegas', {
      body: { nombre: 'Replicas', ubicacion: 'Lugo', capacidad: 10 },
    });
    expect(bodega.status).toBe(201);
    const password = 'replicas-binding-123';
    const creado = await stack.identidad!.rpc.createUsuario(
      {
        usuario: 'pierde.bodega',
        password,
        tipo: 1,
        asignaciones: [{ rol: 'LECTOR', bodegaId: bodega.body.id as number }],
      },
      admin,
    );
    await revokedWithinOneSecond(basicAuth('pierde.bodega', password), `/api/bodegas/${bodega.body.id as number}`, () =>
      stack.identidad!.rpc.setAsignaciones(
        { id: creado.usuario!.id, asignaciones: [], expectedVersion: creado.usuario!.version },
        admin,
      ),
    );
  });
});
