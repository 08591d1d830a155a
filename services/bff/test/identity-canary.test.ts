/**
 * Canary secrets (issue 26, "never a password, hash or secret in any event,
 * log line, error or audit row"): a password and an API token go through
 * every path that handles them (creation, Basic logins right and wrong, a
 * password change by its owner, GraphQL with the secrets in variables,
 * refused input, a token created, used, revoked and used again), and then
 * no HTTP answer (but the one creation answer that shows the token, once),
 * no event of the JetStream stream, no log line of any service at debug
 * level (the BFF, producto-svc, bodega-svc, identidad-svc) and no row of
 * any table of the four databases (the audit trail and the outboxes
 * included) holds them, in plain text or in the Basic header's base64.
 */
import { createDb, createLogger } from '@inventario/platform';
import { readStream, logTextSink } from '@inventario/testkit';
import { basicAuth, startTestStack, type StackResponse, type TestStack } from './support/stack';

jest.setTimeout(120_000);

const USUARIO = 'canario';
const PASSWORD = 'CANARIO-pw-7f3a9c1e';
const PASSWORD_NUEVA = 'CANARIO-nueva-2b8d4e60';
const PASSWORD_MALA = 'CANARIO-mala-51c0aa9d';
const PASSWORD_GQL = 'CANARIO-gql-0d94be7a';

describe('canary secrets', () => {
  let stack: TestStack;
  const lines: string[] = [];
  const answers: { what: string; res: StackResponse }[] = [];
  let token = '';

  const sink = logTextSink(lines);

  beforeAll(async () => {
    stack = await startTestStack('bff_idcanary', {
      identidad: true,
      env: { AUTH_FAILURES_PER_15_MIN: '0', LOG_LEVEL: 'debug' },
      logger: createLogger('bff', 'debug', sink),
      serviceLogger: (service) => createLogger(service, 'debug', sink),
    });
  });

  afterAll(() => stack?.close());

  async function call(what: string, method: string, path: string, options: Parameters<TestStack['request']>[2] = {}) {
    const res = await stack.request(method, path, options);
    answers.push({ what, res });
    return res;
  }

  it('goes through every path that handles the secrets', async () => {
    const creado = await call('create', 'POST', '/api/usuarios', {
      body: { usuario: USUARIO, password: PASSWORD, asignaciones: [{ rol: 'OPERADOR' }] },
    });
    expect(creado.status).toBe(201);
    const id = creado.body.id as number;
    // Refused input carrying the secret: a bad name, a duplicate name.
    expect(
      (await call('bad name', 'POST', '/api/usuarios', { body: { usuario: 'a:b', password: PASSWORD } })).status,
    ).toBe(400);
    expect(
      (await call('duplicate', 'POST', '/api/usuarios', { body: { usuario: USUARIO, password: PASSWORD } })).status,
    ).toBe(409);

    const auth = basicAuth(USUARIO, PASSWORD);
    expect((await call('login', 'GET', '/api/productos', { auth })).status).toBe(200);
    expect((await call('login cached', 'GET', '/api/yo', { auth })).status).toBe(200);
    expect(
      (await call('wrong password', 'GET', '/api/productos', { auth: basicAuth(USUARIO, PASSWORD_MALA) })).status,
    ).toBe(401);
    expect(
      (await call('unknown user', 'GET', '/api/productos', { auth: basicAuth('nadie.canario', PASSWORD_MALA) })).status,
    ).toBe(401);

    const creadoToken = await call('token', 'POST', '/api/tokens', { auth, body: { nombre: 'canario-token' } });
    expect(creadoToken.status).toBe(201);
    token = creadoToken.body.token as string;
    expect(token).toMatch(/^inv_\d+_/);
    answers.pop(); // The one answer that shows the token, once, by contract.
    const bearer = `Bearer ${token}`;
    expect((await call('token use', 'GET', '/api/bodegas', { auth: bearer })).status).toBe(200);
    const tokenId = Number(token.split('_')[1]);
    expect((await call('revoke', 'DELETE', `/api/tokens/${tokenId}`, { auth })).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect((await call('revoked use', 'GET', '/api/bodegas', { auth: bearer })).status).toBe(401);

    const changed = await call('password change', 'PUT', `/api/usuarios/${id}/password`, {
      auth,
      headers: { 'if-match': `"${creado.body.version as number}"` },
      body: { password: PASSWORD_NUEVA, passwordActual: PASSWORD },
    });
    expect(changed.status).toBe(200);
    expect(
      (
        await call('wrong current', 'PUT', `/api/usuarios/${id}/password`, {
          auth: basicAuth(USUARIO, PASSWORD_NUEVA),
          body: { password: PASSWORD, passwordActual: PASSWORD_MALA },
        })
      ).status,
    ).not.toBe(200);

    const gql = await call('graphql', 'POST', '/api/graphql', {
      body: {
        query:
          'mutation($u: String!, $p: String!) { crearUsuario(usuario: $u, password: $p) { success error usuario { id } } }',
        variables: { u: 'canario.gql', p: PASSWORD_GQL },
      },
    });
    expect(gql.body.data.crearUsuario.success).toBe(true);
    const gqlBad = await call('graphql refused', 'POST', '/api/graphql', {
      auth: basicAuth(USUARIO, PASSWORD_NUEVA),
      body: {
        query: 'mutation($p: String!) { crearUsuario(usuario: "x.canario", password: $p) { success error } }',
        variables: { p: PASSWORD_GQL },
      },
    });
    expect(gqlBad.body.data.crearUsuario.success).toBe(false);
    // A write by the canary user, so its events and audit rows exist.
    expect(
      (
        await call('write', 'POST', '/api/productos', {
          body: { nombre: 'Canario', precio: 1, cantidadEnStock: 0 },
        })
      ).status,
    ).toBe(201);
  });

  it('finds them in no answer, event, log line or database row', async () => {
    // inv_<id>_<secret>: the secret is all after the second '_' (base64url may hold '_' itself).
    const secretSecret = token.slice(token.indexOf('_', 'inv_'.length) + 1);
    const canaries = [PASSWORD, PASSWORD_NUEVA, PASSWORD_MALA, PASSWORD_GQL, token, secretSecret];
    const forms = canaries.flatMap((c) => [c, Buffer.from(`${USUARIO}:${c}`).toString('base64')]);
    const leaks = (where: string, text: string) => forms.filter((f) => text.includes(f)).map((f) => `${where}: ${f}`);
    const found: string[] = [];

    for (const { what, res } of answers)
      found.push(...leaks(`answer ${what}`, `${JSON.stringify([...res.headers.entries()])}${res.text}`));

    // Events: the stream holds every service's events (identity events included).
    await stack.settledEvents();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = await readStream(stack.nc, stack.namespace.stream);
    expect(events.some((e) => e.subject.includes('identidad.usuario'))).toBe(true);
    for (const e of events) found.push(...leaks(`event ${e.subject}`, JSON.stringify(e)));

    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) found.push(...leaks('log line', line));

    const urls = { ...stack.databaseUrls, identidad: stack.identidad!.databaseUrl };
    let auditRows = 0;
    for (const [name, url] of Object.entries(urls)) {
      const db = createDb(url);
      try {
        const [tables] = (await db.raw('SHOW TABLES')) as [Record<string, string>[]];
        for (const table of tables.map((t) => Object.values(t)[0]!)) {
          const rows = (await db(table).select('*')) as Record<string, unknown>[];
          if (table === 'auditoria') auditRows = rows.length;
          const text = JSON.stringify(rows, (_k, v: unknown) =>
            Buffer.isBuffer(v) ? v.toString('latin1') : typeof v === 'bigint' ? String(v) : v,
          );
          found.push(...leaks(`${name}.${table}`, text));
        }
      } finally {
        await db.destroy();
      }
    }
    expect(auditRows).toBeGreaterThan(3);
    expect(found).toEqual([]);
  });
});
