/**
 * HTTP Basic on everything but the health probes, over the real stack. The
 * BFF user here is outside ASCII and the password holds colons, so the
 * test also shows that both survive the header and that the user name
 * reaches the events (gRPC `-bin` metadata).
 */
import { basicAuth, startTestStack, type TestStack } from './support/stack';

const USUARIO = 'josé-ñandú';
const PASSWORD = 'clave:con:dos-puntos ü';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('bff_auth', { env: { BFF_USER: USUARIO, BFF_PASSWORD: PASSWORD } });
});

afterAll(async () => {
  await stack?.close();
});

function expect401(res: { status: number; headers: Headers; body: unknown; text: string }): void {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="inventario"/);
  expect(res.body).toEqual({ error: 'UNAUTHORIZED', mensaje: expect.any(String) });
  expect(res.text).not.toContain(PASSWORD);
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('rejected credentials: 401 with the Basic challenge and a JSON body', () => {
  test('no Authorization header', async () => {
    expect401(await stack.request('GET', '/api/productos', { auth: false }));
  });

  test.each([
    ['a wrong password', basicAuth(USUARIO, 'otra')],
    ['a wrong user', basicAuth('admin', PASSWORD)],
    ['the user in another case', basicAuth(USUARIO.toUpperCase(), PASSWORD)],
    ['the password without its last character', basicAuth(USUARIO, PASSWORD.slice(0, -1))],
    ['the password with an extra character', basicAuth(USUARIO, `${PASSWORD}x`)],
    ['empty credentials', basicAuth('', '')],
  ])('%s', async (_case, auth) => {
    expect401(await stack.request('GET', '/api/bodegas', { auth }));
  });

  test.each([
    ['another scheme', `Bearer ${b64(`${USUARIO}:${PASSWORD}`)}`],
    ['the scheme alone', 'Basic'],
    ['not base64', 'Basic !!!not-base64!!!'],
    ['base64 without a colon', `Basic ${b64('sin-dos-puntos')}`],
    ['base64 with bad padding', `Basic ${b64(`${USUARIO}:${PASSWORD}`).replace(/=+$/, '')}=`],
    ['two tokens', `Basic ${b64('a:b')} ${b64('c:d')}`],
  ])('a malformed header: %s', async (_case, auth) => {
    expect401(await stack.request('GET', '/api/productos', { auth }));
  });

  test('every surface is protected: REST under both prefixes, GraphQL and the API docs', async () => {
    for (const path of ['/api/productos', '/api/v1/bodegas', '/api/graphql', '/api/v1/graphql', '/api/openapi.json']) {
      expect401(await stack.request('GET', path, { auth: false }));
    }
    expect401(await stack.request('POST', '/api/graphql', { auth: false, body: { query: '{ productos { id } }' } }));
  });

  test('a rejected write changes nothing', async () => {
    const before = ((await stack.request('GET', '/api/bodegas')).body as unknown[]).length;
    expect401(
      await stack.request('POST', '/api/bodegas', {
        auth: basicAuth(USUARIO, 'mala'),
        body: { nombre: 'Intrusa', capacidad: 1 },
      }),
    );
    expect((await stack.request('GET', '/api/bodegas')).body).toHaveLength(before);
  });
});

describe('accepted credentials', () => {
  test('the right user and password, with the scheme in any case', async () => {
    expect((await stack.request('GET', '/api/productos')).status).toBe(200);
    expect(
      (await stack.request('GET', '/api/productos', { auth: `basic ${b64(`${USUARIO}:${PASSWORD}`)}` })).status,
    ).toBe(200);
  });

  test('the user name reaches the events, even outside ASCII', async () => {
    const res = await stack.request('POST', '/api/bodegas', {
      body: { nombre: `Bodega de ${USUARIO} ${Date.now()}`, capacidad: 1 },
    });
    expect(res.status).toBe(201);
    const event = (await stack.settledEvents()).find((e) => e.body.subject === `/bodegas/${res.body.id}`);
    expect(event?.body.data.usuario).toBe(USUARIO);
  });

  test('a well-formed traceparent travels to the event headers', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const res = await stack.request('POST', '/api/bodegas', {
      body: { nombre: `Trazada ${Date.now()}`, capacidad: 1 },
      headers: { traceparent },
    });
    const event = (await stack.settledEvents()).find((e) => e.body.subject === `/bodegas/${res.body.id}`);
    expect(event?.headers.traceparent).toBe(traceparent);
  });
});

describe('health is public', () => {
  test.each(['/actuator/health', '/actuator/health/liveness', '/actuator/health/readiness'])(
    '%s answers 200 without credentials',
    async (path) => {
      const res = await stack.request('GET', path, { auth: false });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('UP');
    },
  );

  test('/actuator/health lists a component per downstream', async () => {
    const res = await stack.request('GET', '/actuator/health', { auth: false });
    expect(res.body).toEqual({
      status: 'UP',
      components: {
        productoSvc: { status: 'UP', details: { grpc: 'SERVING', breaker: 'closed' } },
        bodegaSvc: { status: 'UP', details: { grpc: 'SERVING', breaker: 'closed' } },
      },
    });
  });
});
