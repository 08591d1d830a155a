/**
 * Declared service tokens (TOKENS_DE_SERVICIO) on real MariaDB and NATS: made at start with their ids, renewed
 * (not duplicated) at every start, never revived once revoked, never attached to a human, never re-keyed.
 */
import { randomBytes } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { TipoUsuario } from '@inventario/proto';
import { ADMIN, como, grpcError, startTestService, type TestService } from './support/test-service';

const secreto = () => randomBytes(32).toString('base64url');
const PRODUCTO = `inv_1000000001_${secreto()}`;
const NOTIFIER = `inv_1000000003_${secreto()}`;
const HUMANO = `inv_1000000004_${secreto()}`;
const DECLARADOS = `producto-svc:ADMIN=${PRODUCTO},notifier:LECTOR=${NOTIFIER},${ADMIN}:LECTOR=${HUMANO}`;

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService('cuentas', { TOKENS_DE_SERVICIO: DECLARADOS });
});

afterAll(async () => {
  await svc.close();
});

const tokensCreados = async () =>
  (await svc.publishedEvents()).filter((e) => e.subject === `${svc.ns.prefix}.identidad.token.creado`);

const expira = async (id: number) =>
  ((await svc.db('tokens').where({ id }).first()) as { expira_en: Date }).expira_en.getTime();

describe('declared service tokens', () => {
  it('exist from the first start, as service accounts with their role everywhere, under the declared ids', async () => {
    const producto = await svc.rpc.autenticar({ bearer: PRODUCTO, direccion: '' });
    expect(producto.principal).toMatchObject({
      usuario: 'producto-svc',
      tipo: TipoUsuario.TIPO_USUARIO_SERVICIO,
      tokenId: 1_000_000_001,
    });
    expect(producto.permisos.map((p) => p.permiso)).toContain('productos:escribir');
    const notifier = await svc.rpc.autenticar({ bearer: NOTIFIER, direccion: '' });
    expect(notifier.permisos.map((p) => p.permiso)).not.toContain('productos:escribir');
    expect(notifier.permisos.map((p) => p.permiso)).toContain('productos:leer');
    // A declaration naming a human account gives it nothing.
    expect((await grpcError(svc.rpc.autenticar({ bearer: HUMANO, direccion: '' }))).code).toBe(status.UNAUTHENTICATED);
    expect(await svc.db('tokens').where({ id: 1_000_000_004 }).first()).toBeUndefined();

    const creados = await tokensCreados();
    expect(creados.map((e) => (e.body.data as { tokenId: number }).tokenId).sort()).toEqual([
      1_000_000_001, 1_000_000_003,
    ]);
    expect(JSON.stringify(await svc.publishedEvents())).not.toContain(PRODUCTO.slice(15));
  });

  it('are renewed at the next start without a second event, and a token made later takes the next id', async () => {
    await svc
      .db('tokens')
      .where({ id: 1_000_000_001 })
      .update({ expira_en: new Date(Date.now() + 3_600_000) });
    const antes = await expira(1_000_000_001);
    await svc.restart();
    expect(await expira(1_000_000_001)).toBeGreaterThan(antes + 86_400_000);
    expect(await tokensCreados()).toHaveLength(2);
    const admin = await svc.admin();
    const otro = await svc.rpc.createToken({ usuarioId: 0, nombre: 'despues', permisos: [] }, como(admin));
    expect(otro.token!.id).toBeGreaterThan(1_000_000_003);
  });

  it('stay revoked across a restart, and a declaration that re-keys an id changes nothing', async () => {
    const admin = await svc.admin();
    await svc.rpc.revokeToken({ id: 1_000_000_003 }, como(admin));
    const otroSecreto = `inv_1000000001_${secreto()}`;
    await svc.restart({ TOKENS_DE_SERVICIO: `producto-svc:ADMIN=${otroSecreto},notifier:LECTOR=${NOTIFIER}` });
    expect((await grpcError(svc.rpc.autenticar({ bearer: NOTIFIER, direccion: '' }))).code).toBe(
      status.UNAUTHENTICATED,
    );
    expect((await grpcError(svc.rpc.autenticar({ bearer: otroSecreto, direccion: '' }))).code).toBe(
      status.UNAUTHENTICATED,
    );
    expect((await svc.rpc.autenticar({ bearer: PRODUCTO, direccion: '' })).principal?.usuario).toBe('producto-svc');
  });
});
