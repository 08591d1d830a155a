/**
 * A declared token id, once retired, stays retired after its service account is gone (docs/decisions.md, "Retired
 * declared token ids outlive their account"): deleting the account through the API, revoked first or not, leaves a
 * record that keeps every later start from creating the account and the token again with the declared (possibly
 * leaked) secret; a new id for the same name works as a first declaration; a token made later through the API never
 * takes a retired id, even after the id counter fell back. Real MariaDB and NATS.
 */
import { randomBytes } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { TipoUsuario } from '@inventario/proto';
import { ADMIN, como, grpcError, startTestService, type LogLine, type TestService } from './support/test-service';

const secreto = () => randomBytes(32).toString('base64url');
const PRODUCTO = `inv_1000000001_${secreto()}`;
const NOTIFIER = `inv_1000000003_${secreto()}`;
const DECLARADOS = `producto-svc:ADMIN=${PRODUCTO},notifier:LECTOR=${NOTIFIER}`;
const ERROR = 50;

let svc: TestService;
const logs: LogLine[] = [];

beforeAll(async () => {
  svc = await startTestService('cuentas_ret', { TOKENS_DE_SERVICIO: DECLARADOS }, logs);
});

afterAll(async () => {
  await svc.close();
});

async function eliminarCuenta(nombre: string): Promise<void> {
  const { id } = (await svc.db('usuarios').where({ usuario: nombre }).first()) as { id: number };
  await svc.rpc.deleteUsuario({ id }, como(await svc.admin()));
}

async function reiniciar(env: Record<string, string> = {}): Promise<void> {
  logs.length = 0;
  await svc.restart(env);
}

const cuenta = (nombre: string) => svc.db('usuarios').where({ usuario: nombre }).first();
const token = (id: number) => svc.db('tokens').where({ id }).first();
const retiro = (id: number) => svc.db('tokens_retirados').where({ token_id: id }).first();

/** The error lines about one declared token id. */
const erroresDe = (tokenId: number) => logs.filter((l) => l.level === ERROR && l.tokenId === tokenId);

async function rechazado(bearer: string): Promise<void> {
  expect((await grpcError(svc.rpc.autenticar({ bearer, direccion: '' }))).code).toBe(status.UNAUTHENTICATED);
}

describe('a declared service token whose account was deleted', () => {
  it('is not created again, nor its account, at the next start with the same declaration', async () => {
    expect((await svc.rpc.autenticar({ bearer: PRODUCTO, direccion: '' })).principal?.usuario).toBe('producto-svc');
    await eliminarCuenta('producto-svc');
    expect(await retiro(1_000_000_001)).toMatchObject({ motivo: 'USUARIO_ELIMINADO' });

    await reiniciar();

    expect(await cuenta('producto-svc')).toBeUndefined();
    expect(await token(1_000_000_001)).toBeUndefined();
    await rechazado(PRODUCTO);
    expect(erroresDe(1_000_000_001)).toEqual([
      expect.objectContaining({
        usuario: 'producto-svc',
        entrada: 1,
        msg: expect.stringMatching(/retired.*declare a new one/),
      }),
    ]);
    // identidad-svc serves on, its other declaration applied.
    expect((await svc.admin()).principal?.usuario).toBe(ADMIN);
    expect((await svc.rpc.autenticar({ bearer: NOTIFIER, direccion: '' })).principal?.usuario).toBe('notifier');
    expect(JSON.stringify(logs)).not.toContain(PRODUCTO.slice(15));
  });

  it('is not created again when it was revoked before the delete', async () => {
    await svc.rpc.revokeToken({ id: 1_000_000_003 }, como(await svc.admin()));
    await eliminarCuenta('notifier');
    expect(await retiro(1_000_000_003)).toMatchObject({ motivo: 'REVOCADO' });

    await reiniciar();

    expect(await cuenta('notifier')).toBeUndefined();
    expect(await token(1_000_000_003)).toBeUndefined();
    await rechazado(NOTIFIER);
    expect(erroresDe(1_000_000_003)).toEqual([
      expect.objectContaining({
        usuario: 'notifier',
        entrada: 2,
        msg: 'declared service token was revoked: declare a new one',
      }),
    ]);
    expect(JSON.stringify(logs)).not.toContain(NOTIFIER.slice(15));
  });

  it('gives way to a new id for the same name, made as a first declaration', async () => {
    const nuevo = `inv_1000000005_${secreto()}`;
    await reiniciar({ TOKENS_DE_SERVICIO: `producto-svc:ADMIN=${nuevo},notifier:LECTOR=${NOTIFIER}` });

    const principal = (await svc.rpc.autenticar({ bearer: nuevo, direccion: '' })).principal;
    expect(principal).toMatchObject({ usuario: 'producto-svc', tokenId: 1_000_000_005 });
    expect(await token(1_000_000_005)).toMatchObject({ usuario_id: principal!.id, revocado_en: null });
    expect(await token(1_000_000_001)).toBeUndefined();
    await rechazado(PRODUCTO);
    expect(erroresDe(1_000_000_005)).toEqual([]);
  });
});

describe('a token made through the API', () => {
  it('never takes a retired id, even when the id counter was set back below it', async () => {
    await eliminarCuenta('producto-svc');
    // As a restore into a freshly migrated schema, or an operator's ALTER, would leave it: the highest row plus one.
    await svc.db.raw('ALTER TABLE tokens AUTO_INCREMENT = 1');
    await reiniciar();

    const admin = await svc.admin();
    const creado = await svc.rpc.createToken({ usuarioId: 0, nombre: 'despues', permisos: [] }, como(admin));
    expect(creado.token!.id).toBeGreaterThan(1_000_000_005);
  });

  it('is refused, not given a retired id, when the counter is set back while identidad-svc serves', async () => {
    const admin = await svc.admin();
    const tipo = TipoUsuario.TIPO_USUARIO_SERVICIO;
    const { usuario } = await svc.rpc.createUsuario({ usuario: 'efimera', tipo, asignaciones: [] }, como(admin));
    const pedir = (usuarioId: number) => svc.rpc.createToken({ usuarioId, nombre: 'x', permisos: [] }, como(admin));
    const { id } = (await pedir(usuario!.id)).token!;
    await svc.rpc.deleteUsuario({ id: usuario!.id }, como(admin));
    // Its token was the highest row: set back, the counter lands on its retired id.
    await svc.db.raw('ALTER TABLE tokens AUTO_INCREMENT = 1');

    expect((await grpcError(pedir(0))).code).toBe(status.INTERNAL);
    expect(await token(id)).toBeUndefined();
    // A restart moves the counter past it.
    await reiniciar();
    expect((await pedir(0)).token!.id).toBeGreaterThan(id);
  });
});
