/**
 * The identity routes (issue 26 phase 2, docs/contract.md §12.8) through the
 * BFF to identidad-svc: /api/yo, users, bindings, tokens and the audit
 * trail, against the real services, MariaDB and NATS.
 */
import { waitFor, crearBodega } from '@inventario/testkit';
import { createOpenApiValidator } from './support/openapi-validator';
import {
  basicAuth,
  startTestStack,
  TEST_PASSWORD,
  TEST_USER,
  type StackRequestOptions,
  type StackResponse,
  type TestStack,
} from './support/stack';

jest.setTimeout(120_000);

const PASSWORD = 'password-de-la-clara-1';

describe('identity routes', () => {
  let stack: TestStack;
  let bodega: number;
  let claraId: number;
  const clara = basicAuth('clara', PASSWORD);
  const validator = createOpenApiValidator();
  /** Every answer is checked against the OpenAPI document (status, headers, body). */
  async function request(method: string, path: string, options?: StackRequestOptions): Promise<StackResponse> {
    const res = await stack.request(method, path, options);
    validator.assertResponse({
      method,
      path,
      status: res.status,
      headers: res.headers,
      body: res.body,
      text: res.text,
    });
    return res;
  }

  beforeAll(async () => {
    stack = await startTestStack('bff_idroutes', { identidad: true, env: { AUTH_FAILURES_PER_15_MIN: '0' } });
    bodega = await crearBodega(stack);
  });

  afterAll(() => stack?.close());

  it('GET /api/yo answers the caller, its bindings and its effective permissions', async () => {
    const res = await request('GET', '/api/v1/yo');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      usuario: TEST_USER,
      tipo: 'HUMANO',
      asignaciones: [{ rol: 'ADMIN', bodegaId: null }],
      metodoAuth: 'password',
    });
    expect(res.body.permisos).toContainEqual({ permiso: 'usuarios:administrar', todasLasBodegas: true, bodegaIds: [] });
  });

  it('POST /api/usuarios creates a user with a scoped binding, who then logs in with its own password', async () => {
    const res = await request('POST', '/api/usuarios', {
      body: { usuario: 'clara', password: PASSWORD, asignaciones: [{ rol: 'OPERADOR', bodegaId: bodega }] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      usuario: 'clara',
      tipo: 'HUMANO',
      estado: 'ACTIVO',
      asignaciones: [{ rol: 'OPERADOR', bodegaId: bodega }],
      version: 1,
    });
    expect(res.headers.get('etag')).toBe('"1"');
    expect(res.headers.get('location')).toBe(`/api/usuarios/${res.body.id}`);
    expect(res.text).not.toContain(PASSWORD);
    claraId = res.body.id as number;

    const yo = await request('GET', '/api/yo', { auth: clara });
    expect(yo.status).toBe(200);
    expect(yo.body.permisos).toContainEqual({
      permiso: 'existencias:mover',
      todasLasBodegas: false,
      bodegaIds: [bodega],
    });
    expect((yo.body.permisos as { permiso: string }[]).map((p) => p.permiso)).not.toContain('productos:escribir');
  });

  it('refuses bad input with a 400 naming every field, and a non-admin with 403 naming the permission', async () => {
    const bad = await request('POST', '/api/usuarios', { body: { asignaciones: [{ rol: 'JEFE' }], extra: 1 } });
    expect(bad.status).toBe(400);
    expect((bad.body.detalles as { campo: string }[]).map((d) => d.campo).sort()).toEqual([
      'asignaciones[0].rol',
      'extra',
      'usuario',
    ]);
    const forbidden = await request('POST', '/api/usuarios', {
      auth: clara,
      body: { usuario: 'otro', password: 'otro-password-123' },
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ error: 'FORBIDDEN', permiso: 'usuarios:administrar' });
  });

  it('PUT /api/usuarios/{id}/asignaciones replaces the set under If-Match', async () => {
    const stale = await request('PUT', `/api/usuarios/${claraId}/asignaciones`, {
      headers: { 'if-match': '"7"' },
      body: { asignaciones: [{ rol: 'LECTOR', bodegaId: bodega }] },
    });
    expect(stale.status).toBe(412);
    const current = await request('GET', `/api/usuarios/${claraId}/asignaciones`);
    expect(current.body).toEqual({ asignaciones: [{ rol: 'OPERADOR', bodegaId: bodega }] });
    const res = await request('PUT', `/api/usuarios/${claraId}/asignaciones`, {
      headers: { 'if-match': current.headers.get('etag')! },
      body: { asignaciones: [{ rol: 'SUPERVISOR', bodegaId: bodega }] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ asignaciones: [{ rol: 'SUPERVISOR', bodegaId: bodega }] });
    // A removed binding takes effect at once, cached credentials included.
    await waitFor(
      async () =>
        ((await request('GET', '/api/yo', { auth: clara })).body.permisos as { permiso: string }[]).some(
          (p) => p.permiso === 'umbrales:configurar',
        ),
      'the new binding to apply',
      2000,
      20,
    );
  });

  it("a service account's token is shown once, works as Bearer within its scope, is listed without its secret and stops when revoked", async () => {
    const cuenta = await request('POST', '/api/usuarios', {
      body: { usuario: 'escaner-1', tipo: 'SERVICIO', asignaciones: [{ rol: 'OPERADOR', bodegaId: bodega }] },
    });
    expect(cuenta.status).toBe(201);
    expect(cuenta.body).toMatchObject({ tipo: 'SERVICIO', tienePassword: false });
    const created = await request('POST', `/api/usuarios/${cuenta.body.id}/tokens`, {
      body: { nombre: 'escaner', permisos: [{ permiso: 'existencias:leer', bodegaIds: [bodega] }] },
    });
    expect(created.status).toBe(201);
    const token = created.body.token as string;
    expect(token).toMatch(/^inv_\d+_/);
    expect(created.body.permisos).toEqual([
      { permiso: 'existencias:leer', todasLasBodegas: false, bodegaIds: [bodega] },
    ]);

    const bearer = `Bearer ${token}`;
    const yo = await request('GET', '/api/yo', { auth: bearer });
    expect(yo.status).toBe(200);
    expect(yo.body).toMatchObject({ usuario: 'escaner-1', tipo: 'SERVICIO', metodoAuth: 'token' });
    // Its scope, within its owner's rights: reading stock there, not moving it (which the owner could).
    expect((await request('GET', `/api/bodegas/${bodega}/existencias`, { auth: bearer })).status).toBe(200);
    const move = await request('POST', `/api/bodegas/${bodega}/movimientos`, {
      auth: bearer,
      body: { productoId: 1, tipo: 'ENTRADA', cantidad: 1 },
    });
    expect(move.status).toBe(403);
    expect(move.body.permiso).toBe('existencias:mover');

    const list = await request('GET', `/api/tokens?usuarioId=${cuenta.body.id}`);
    expect(list.status).toBe(200);
    expect(list.body.tokens).toHaveLength(1);
    // inv_<id>_<secret>: the secret is 43 base64url characters, which may themselves hold '_'.
    const secreto = /^inv_\d+_([A-Za-z0-9_-]{43})$/.exec(token)?.[1];
    expect(secreto).toHaveLength(43);
    expect(list.text).not.toContain(secreto);

    expect((await request('DELETE', `/api/tokens/${created.body.id}`)).status).toBe(204);
    await waitFor(
      async () => (await request('GET', '/api/yo', { auth: bearer })).status === 401,
      'the revoked token to be refused',
      1000,
      20,
    );
  });

  it('the last ADMIN cannot suspend itself', async () => {
    const me = await request('GET', '/api/yo');
    const res = await request('POST', `/api/usuarios/${me.body.id}/suspension`);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('ULTIMO_ADMIN');
    expect((await request('GET', '/api/yo', { auth: basicAuth(TEST_USER, TEST_PASSWORD) })).status).toBe(200);
  });

  it('GET /api/auditoria pages the trail and /verificacion recomputes it', async () => {
    const registros = await waitFor(
      async () => {
        const res = await request('GET', '/api/auditoria?accion=UsuarioCreado');
        const rows =
          res.status === 200 ? (res.body.registros as { accion: string; usuario: string; recurso: string }[]) : [];
        const deClara = rows.filter((r) => r.recurso === `/usuarios/${claraId}`);
        return deClara.length > 0 ? deClara : undefined;
      },
      'the audit row of the user created',
      15_000,
      200,
    );
    expect(registros[0]).toMatchObject({ accion: 'UsuarioCreado', usuario: TEST_USER });
    expect(JSON.stringify(registros)).not.toContain(PASSWORD);
    const verificacion = await request('GET', '/api/auditoria/verificacion');
    expect(verificacion.status).toBe(200);
    expect(verificacion.body.consistente).toBe(true);
    expect((await request('GET', '/api/auditoria', { auth: clara })).status).toBe(403);
    expect((await request('GET', '/api/auditoria?desconocido=1')).status).toBe(400);
  });

  it('GraphQL mirrors them: yo, users, a scoped binding, a refused mutation, a token created and revoked', async () => {
    const gql = async (query: string, auth?: string) => {
      const res = await request('POST', '/api/graphql', { body: { query }, ...(auth ? { auth } : {}) });
      // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- GraphQL answers are read as arbitrary JSON, like StackResponse.body
      return res.body;
    };
    const yo = await gql('{ yo { usuario asignaciones { rol bodegaId } permisos { permiso todasLasBodegas } } }');
    expect(yo.data.yo).toMatchObject({ usuario: TEST_USER, asignaciones: [{ rol: 'ADMIN', bodegaId: null }] });
    const creado = await gql(
      `mutation { crearUsuario(usuario: "gql.user", password: "gql-user-password-1", asignaciones: [{ rol: "LECTOR", bodegaId: "${bodega}" }]) { success error usuario { id usuario asignaciones { rol bodegaId } } } }`,
    );
    expect(creado.data.crearUsuario).toMatchObject({
      success: true,
      error: null,
      usuario: { usuario: 'gql.user', asignaciones: [{ rol: 'LECTOR', bodegaId: String(bodega) }] },
    });
    const refused = await gql(
      'mutation { crearUsuario(usuario: "x.y", password: "x-y-password-12") { success error usuario { id } } }',
      clara,
    );
    expect(refused.data.crearUsuario).toMatchObject({ success: false, usuario: null });
    expect(refused.data.crearUsuario.error).toMatch(/^FORBIDDEN: /);
    const invalid = await gql(
      'mutation { crearUsuario(usuario: "z", asignaciones: [{ rol: "JEFE" }]) { success error } }',
    );
    expect(invalid.data.crearUsuario).toMatchObject({
      success: false,
      error: 'asignaciones[0].rol: debe ser LECTOR, OPERADOR, SUPERVISOR, AUDITOR o ADMIN',
    });
    const lista = await gql('{ usuarios { usuarios { usuario } siguienteCursor } }');
    expect((lista.data.usuarios.usuarios as { usuario: string }[]).map((u) => u.usuario)).toEqual(
      expect.arrayContaining([TEST_USER, 'clara', 'gql.user']),
    );

    const cuenta = await gql(
      'mutation { crearUsuario(usuario: "gql.servicio", tipo: "SERVICIO", asignaciones: [{ rol: "LECTOR" }]) { usuario { id } } }',
    );
    const servicioId = cuenta.data.crearUsuario.usuario.id as string;
    const token = await gql(
      `mutation { crearToken(nombre: "gql", usuarioId: "${servicioId}") { success error secreto token { id permisos { permiso } } } }`,
    );
    expect(token.data.crearToken).toMatchObject({ success: true, error: null, token: { permisos: null } });
    const bearer = `Bearer ${token.data.crearToken.secreto as string}`;
    expect((await gql('{ yo { usuario } }', bearer)).data.yo.usuario).toBe('gql.servicio');
    const revocado = await gql(
      `mutation { revocarToken(id: "${token.data.crearToken.token.id as string}") { success error } }`,
    );
    expect(revocado.data.revocarToken).toEqual({ success: true, error: null });
    await waitFor(
      async () =>
        (await stack.request('POST', '/api/graphql', { auth: bearer, body: { query: '{ yo { usuario } }' } }))
          .status === 401,
      'the revoked token to be refused',
      1000,
      20,
    );
  });
});
