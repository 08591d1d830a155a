/**
 * identidad-svc over gRPC on real MariaDB and NATS: authentication by
 * password and by token, the signed principal, users and bindings with
 * their rules, tokens, and no secret anywhere but where it is shown once.
 */
import { hash } from '@node-rs/argon2';
import { Metadata, status } from '@grpc/grpc-js';
import {
  clavePublicaDeJwk,
  crearVerificador,
  deLista,
  PRINCIPAL_METADATA_KEY,
  type PermisoEfectivo,
} from '@inventario/contract';
import { errorDataOf, errorReasonOf } from '@inventario/platform';
import { EstadoUsuario, TipoUsuario, type AutenticarResponse } from '@inventario/proto';
import { ADMIN, ADMIN_PASSWORD, como, grpcError, startTestService, type TestService } from './support/test-service';

let svc: TestService;
let admin: AutenticarResponse;

const CANARIO = 'canario-clave-4b1d7e2a';

beforeAll(async () => {
  svc = await startTestService('ident');
  admin = await svc.admin();
});

afterAll(async () => {
  await svc.close();
});

async function crear(
  usuario: string,
  asignaciones: { rol: string; bodegaId?: number }[],
  password: string | null = CANARIO,
  tipo = TipoUsuario.TIPO_USUARIO_HUMANO,
) {
  return (await svc.rpc.createUsuario({ usuario, password: password ?? undefined, tipo, asignaciones }, como(admin)))
    .usuario!;
}

/** The wire's permissions (strings) as the policy reads them. */
function permisos(lista: { permiso: string; todasLasBodegas: boolean; bodegaIds: number[] }[]) {
  return [...deLista(lista as PermisoEfectivo[])].map(([p, donde]) => [p, donde === '*' ? '*' : [...donde].sort()]);
}

describe('Autenticar', () => {
  it('logs the first ADMIN (BFF_USER) in, with every permission everywhere, and signs a principal the published key verifies', async () => {
    expect(admin.principal).toMatchObject({ usuario: ADMIN, credencialVersion: 1 });
    expect(admin.permisos.every((p) => p.todasLasBodegas)).toBe(true);
    expect(admin.permisos.map((p) => p.permiso)).toContain('usuarios:administrar');
    const { claves } = await svc.rpc.getClavesPublicas({});
    const clave = claves[0]!;
    const verificador = crearVerificador(new Map([[clave.kid, clavePublicaDeJwk(clave)]]), 900);
    expect(verificador.verificar(admin.principalFirmado).id).toBe(admin.principal!.id);
    expect(admin.principalFirmadoExpiraEn!.getTime()).toBeGreaterThan(Date.now());
  });

  it('answers a wrong password and an unknown user alike: UNAUTHENTICATED, same message', async () => {
    const wrong = await grpcError(svc.login(ADMIN, 'no-es-la-clave'));
    const unknown = await grpcError(svc.login('nadie-con-este-nombre', 'no-es-la-clave'));
    expect(wrong.code).toBe(status.UNAUTHENTICATED);
    expect(unknown.code).toBe(status.UNAUTHENTICATED);
    expect(wrong.details).toBe(unknown.details);
  });

  it('compares names case-insensitively after NFC, so "ADMIN" logs in as admin', async () => {
    expect((await svc.login('ADMIN', ADMIN_PASSWORD)).principal!.id).toBe(admin.principal!.id);
  });

  it('re-hashes a password stored with older (weaker) parameters at the next successful login', async () => {
    const u = await crear('rehash-me', [{ rol: 'LECTOR' }]);
    const weak = await hash(CANARIO, { algorithm: 2, memoryCost: 8192, timeCost: 1, parallelism: 1 });
    await svc.db('usuarios').where({ id: u.id }).update({ password_hash: weak });
    await svc.login('rehash-me', CANARIO);
    const stored = async () =>
      ((await svc.db('usuarios').where({ id: u.id }).first()) as { password_hash: string }).password_hash;
    for (let i = 0; i < 100 && (await stored()) === weak; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await stored()).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect((await svc.login('rehash-me', CANARIO)).principal!.id).toBe(u.id);
  });
});

describe('users', () => {
  it('creates a user with scoped bindings, reads it back, and refuses the same name in another case or normal form', async () => {
    const u = await crear('Ana Núñez', [{ rol: 'OPERADOR', bodegaId: 3 }, { rol: 'LECTOR' }]);
    expect(u).toMatchObject({
      usuario: 'Ana Núñez',
      estado: EstadoUsuario.ESTADO_USUARIO_ACTIVO,
      version: 1,
      credencialVersion: 1,
      tienePassword: true,
    });
    expect(u.asignaciones).toEqual([{ rol: 'LECTOR' }, { rol: 'OPERADOR', bodegaId: 3 }]);
    expect((await svc.rpc.getUsuario({ id: u.id }, como(admin))).usuario).toEqual(u);
    // "Núñez" decomposed (U + combining acute, N + combining tilde), upper case: the same name.
    const again = await grpcError(crear('ANA NU\u0301N\u0303EZ', []));
    expect(again.code).toBe(status.ALREADY_EXISTS);
    const session = await svc.login('ana núñez', CANARIO);
    expect(permisos(session.permisos)).toEqual(
      expect.arrayContaining([
        ['existencias:mover', [3]],
        ['existencias:leer', '*'],
        ['productos:leer', '*'],
      ]),
    );
  });

  it('refuses reserved names, ":" and short passwords, naming each field', async () => {
    for (const [usuario, campo] of [
      ['system', 'usuario'],
      ['a:b', 'usuario'],
    ] as const) {
      const err = await grpcError(crear(usuario, []));
      expect(err.code).toBe(status.INVALID_ARGUMENT);
      expect(err.details).toContain(campo);
    }
    const corta = await grpcError(crear('corta', [], 'corta'));
    expect(corta.details).toContain('password');
    const servicio = await grpcError(crear('svc-con-clave', [], CANARIO, TipoUsuario.TIPO_USUARIO_SERVICIO));
    expect(servicio.details).toContain('cuenta de servicio');
  });

  it('replays a keyed creation for the same principal, and refuses another principal without usuarios:administrar (403 FORBIDDEN)', async () => {
    const md = como(admin);
    const req = {
      usuario: 'idem',
      password: CANARIO,
      tipo: TipoUsuario.TIPO_USUARIO_HUMANO,
      asignaciones: [],
      requestId: 'k-1',
    };
    const first = await svc.rpc.createUsuario(req, md);
    const replay = await svc.rpc.createUsuario(req, md);
    expect(replay.usuario!.id).toBe(first.usuario!.id);
    const reused = await grpcError(svc.rpc.createUsuario({ ...req, usuario: 'idem-2' }, md));
    expect(errorReasonOf(reused)).toBe('IDEMPOTENCY_KEY_REUSED');

    await crear('super', [{ rol: 'SUPERVISOR' }]);
    const supervisor = await svc.login('super', CANARIO);
    const denied = await grpcError(svc.rpc.createUsuario(req, como(supervisor)));
    expect(denied.code).toBe(status.PERMISSION_DENIED);
    expect(errorReasonOf(denied)).toBe('FORBIDDEN');
    expect(errorDataOf(denied)).toEqual({ permiso: 'usuarios:administrar' });
  });

  it('refuses a call without a signed principal, or with one edited by hand', async () => {
    expect((await grpcError(svc.rpc.yo({}))).code).toBe(status.UNAUTHENTICATED);
    const [h, p, s] = admin.principalFirmado.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as { sub: string };
    claims.sub = '999';
    const md = new Metadata();
    md.set(PRINCIPAL_METADATA_KEY, `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`);
    expect((await grpcError(svc.rpc.yo({}, md))).code).toBe(status.UNAUTHENTICATED);
  });

  it('a password change bumps the credential version: the old signed principal stops working at once, the new password works', async () => {
    const u = await crear('cambia', [{ rol: 'LECTOR' }]);
    const before = await svc.login('cambia', CANARIO);
    const missingOld = await grpcError(
      svc.rpc.cambiarPassword({ id: u.id, password: 'otra-clave-muy-larga' }, como(before)),
    );
    expect(missingOld.details).toContain('passwordActual');
    const changed = await svc.rpc.cambiarPassword(
      { id: u.id, password: 'otra-clave-muy-larga', passwordActual: CANARIO },
      como(before),
    );
    expect(changed.usuario!.credencialVersion).toBe(2);
    expect((await grpcError(svc.rpc.yo({}, como(before)))).code).toBe(status.UNAUTHENTICATED);
    expect((await grpcError(svc.login('cambia', CANARIO))).code).toBe(status.UNAUTHENTICATED);
    expect(
      (await svc.rpc.yo({}, como(await svc.login('cambia', 'otra-clave-muy-larga')))).usuario!.credencialVersion,
    ).toBe(2);
  });

  it('a suspended user cannot log in; setting bindings replaces the set and demotes at once', async () => {
    const u = await crear('suspendible', [{ rol: 'OPERADOR' }]);
    const session = await svc.login('suspendible', CANARIO);
    const set = await svc.rpc.setAsignaciones(
      { id: u.id, asignaciones: [{ rol: 'LECTOR', bodegaId: 1 }], expectedVersion: 1 },
      como(admin),
    );
    expect(set.usuario).toMatchObject({
      version: 2,
      credencialVersion: 2,
      asignaciones: [{ rol: 'LECTOR', bodegaId: 1 }],
    });
    expect((await grpcError(svc.rpc.yo({}, como(session)))).code).toBe(status.UNAUTHENTICATED);
    const stale = await grpcError(svc.rpc.suspenderUsuario({ id: u.id, expectedVersion: 1 }, como(admin)));
    expect(errorReasonOf(stale)).toBe('VERSION_MISMATCH');
    await svc.rpc.suspenderUsuario({ id: u.id }, como(admin));
    expect((await grpcError(svc.login('suspendible', CANARIO))).code).toBe(status.UNAUTHENTICATED);
  });
});

describe('API tokens', () => {
  it('shows the secret once, authenticates by it with the scope within the owner, and stops at once when revoked', async () => {
    const u = await crear('integrador', [
      { rol: 'OPERADOR', bodegaId: 1 },
      { rol: 'OPERADOR', bodegaId: 2 },
      { rol: 'LECTOR' },
    ]);
    const owner = await svc.login('integrador', CANARIO);
    const scope = [{ permiso: 'existencias:mover', todasLasBodegas: false, bodegaIds: [1] }];
    const md = como(owner);
    const created = await svc.rpc.createToken({ usuarioId: 0, nombre: 'erp', permisos: scope, requestId: 'tok-1' }, md);
    expect(created.secreto).toMatch(new RegExp(`^inv_${created.token!.id}_[A-Za-z0-9_-]{43}$`));
    expect(created.token).toMatchObject({ usuarioId: u.id, nombre: 'erp', alcanceCompleto: false });
    // A replay shows the token, never the secret again (secrets are not stored).
    const replay = await svc.rpc.createToken({ usuarioId: 0, nombre: 'erp', permisos: scope, requestId: 'tok-1' }, md);
    expect(replay.token!.id).toBe(created.token!.id);
    expect(replay.secreto).toBe('');

    const bearer = await svc.rpc.autenticar({ bearer: created.secreto, direccion: '10.0.0.9' });
    expect(bearer.principal).toMatchObject({ id: u.id, tokenId: created.token!.id });
    expect(permisos(bearer.permisos)).toEqual([['existencias:mover', [1]]]);
    const row = (await svc.db('tokens').where({ id: created.token!.id }).first()) as { ultimo_uso: Date | null };
    expect(row.ultimo_uso).not.toBeNull();

    // Demoting the owner demotes the token.
    await svc.rpc.setAsignaciones({ id: u.id, asignaciones: [{ rol: 'LECTOR' }] }, como(admin));
    expect((await svc.rpc.autenticar({ bearer: created.secreto, direccion: '' })).permisos).toEqual([]);

    await svc.rpc.revokeToken({ id: created.token!.id }, como(admin));
    expect((await grpcError(svc.rpc.autenticar({ bearer: created.secreto, direccion: '' }))).code).toBe(
      status.UNAUTHENTICATED,
    );
    const tampered = created.secreto.slice(0, -1) + (created.secreto.endsWith('A') ? 'B' : 'A');
    expect((await grpcError(svc.rpc.autenticar({ bearer: tampered, direccion: '' }))).code).toBe(
      status.UNAUTHENTICATED,
    );
  });

  it('refuses a scope beyond the owner (no escalation through tokens), and an expiry past the cap', async () => {
    await crear('estrecho', [{ rol: 'LECTOR', bodegaId: 5 }, { rol: 'LECTOR' }]);
    const owner = await svc.login('estrecho', CANARIO);
    const wide = await grpcError(
      svc.rpc.createToken(
        {
          usuarioId: 0,
          nombre: 'x',
          permisos: [{ permiso: 'existencias:mover', todasLasBodegas: true, bodegaIds: [] }],
        },
        como(owner),
      ),
    );
    expect(wide.code).toBe(status.PERMISSION_DENIED);
    expect(errorDataOf(wide)).toEqual({ permiso: 'existencias:mover' });
    const far = await grpcError(
      svc.rpc.createToken(
        { usuarioId: 0, nombre: 'x', expiraEn: new Date(Date.now() + 400 * 86_400_000), permisos: [] },
        como(owner),
      ),
    );
    expect(far.details).toContain('expiraEn');
  });

  it('a token made through a narrower token is never worth more than the token that made it', async () => {
    await crear('encadena', [{ rol: 'SUPERVISOR' }]);
    const owner = await svc.login('encadena', CANARIO);
    const narrow = await svc.rpc.createToken(
      {
        usuarioId: 0,
        nombre: 'estrecho',
        permisos: [{ permiso: 'tokens:propios', todasLasBodegas: true, bodegaIds: [] }],
      },
      como(owner),
    );
    const viaToken = await svc.rpc.autenticar({ bearer: narrow.secreto, direccion: '' });
    const child = await svc.rpc.createToken({ usuarioId: 0, nombre: 'hijo', permisos: [] }, como(viaToken));
    const childSession = await svc.rpc.autenticar({ bearer: child.secreto, direccion: '' });
    expect(permisos(childSession.permisos)).toEqual([['tokens:propios', '*']]);
  });

  it('service accounts get tokens from an ADMIN, never passwords', async () => {
    const svcAccount = await crear('robot', [{ rol: 'LECTOR' }], null, TipoUsuario.TIPO_USUARIO_SERVICIO);
    const made = await svc.rpc.createToken({ usuarioId: svcAccount.id, nombre: 'ci', permisos: [] }, como(admin));
    expect((await svc.rpc.autenticar({ bearer: made.secreto, direccion: '' })).principal!.tipo).toBe(
      TipoUsuario.TIPO_USUARIO_SERVICIO,
    );
    const human = await crear('humano', [{ rol: 'LECTOR' }]);
    const refused = await grpcError(
      svc.rpc.createToken({ usuarioId: human.id, nombre: 'x', permisos: [] }, como(admin)),
    );
    expect(refused.details).toContain('cuentas de servicio');
    expect((await grpcError(svc.login('robot', ''))).code).toBe(status.UNAUTHENTICATED);
  });
});

describe('secrets', () => {
  it('never puts a password, hash or token secret in an event, an audit row or the outbox', async () => {
    await crear('canary-user', [{ rol: 'LECTOR' }]);
    const session = await svc.login('canary-user', CANARIO);
    const token = await svc.rpc.createToken({ usuarioId: 0, nombre: 'canary', permisos: [] }, como(session));
    // inv_<id>_<secret>: the secret is 43 base64url characters, which may themselves hold '_'.
    const secret = /^inv_\d+_([A-Za-z0-9_-]{43})$/.exec(token.secreto)![1]!;
    const hashes = (await svc.db<{ password_hash: string | null }>('usuarios').select('password_hash')).flatMap((r) =>
      r.password_hash ? [r.password_hash] : [],
    );
    const events = await svc.publishedEvents();
    expect(events.some((e) => e.subject.endsWith('.identidad.token.creado'))).toBe(true);
    const audit = JSON.stringify(await svc.db('auditoria').select('datos', 'usuario', 'recurso'));
    const outbox = JSON.stringify(await svc.db('outbox').select('payload', 'headers'));
    const idem = (await svc.db<{ response: Buffer }>('idempotency_keys').select('response'))
      .map((r) => r.response.toString('utf8'))
      .join('\n');
    for (const text of [JSON.stringify(events), audit, outbox, idem]) {
      for (const canary of [CANARIO, ADMIN_PASSWORD, secret, ...hashes]) expect(text).not.toContain(canary);
    }
  });

  it('publishes each identity event with its author and data, on its subject', async () => {
    const u = await crear('eventual', [{ rol: 'LECTOR', bodegaId: 9 }]);
    const events = await svc.publishedEvents();
    const creado = events.find(
      (e) =>
        e.subject === `${svc.ns.prefix}.identidad.usuario.creado` &&
        (e.body.data as { usuarioId?: number }).usuarioId === u.id,
    );
    expect(creado?.body).toMatchObject({
      eventType: 'Service.Inventario.UsuarioCreado',
      subject: `/usuarios/${u.id}`,
      source: 'identidad-svc',
      data: {
        nombre: 'eventual',
        asignaciones: [{ rol: 'LECTOR', bodegaId: 9 }],
        usuario: ADMIN,
        principalId: admin.principal!.id,
        metodoAuth: 'password',
        version: 1,
      },
    });
  });
});
