/**
 * Idempotency keys are scoped by principal id (issue 26, "Who did what";
 * docs/contract.md §12): another principal's repeat of a key executes as a
 * new request and never sees the first one's stored answer, and the scope is
 * the stable id, not the renamable user name, so a user renamed away and a
 * new user given the old name do not share keys. The same principal, by
 * password or by token, does share them.
 */
import { crearBodega, crearProducto } from '@inventario/testkit';
import { basicAuth, startTestStack, type StackResponse, type TestStack } from './support/stack';

jest.setTimeout(120_000);

const PASSWORD = 'idempotencia-password-1';
const KEY = 'pedido-2026-0001';

describe('idempotency keys scoped by principal', () => {
  let stack: TestStack;
  let bodega: number;
  let productoId: number;

  const crearUsuario = async (usuario: string, rol = 'ADMIN'): Promise<{ id: number; version: number }> => {
    const res = await stack.request('POST', '/api/usuarios', {
      body: { usuario, password: PASSWORD, asignaciones: [{ rol }] },
    });
    expect(res.status).toBe(201);
    return { id: res.body.id as number, version: res.body.version as number };
  };

  const entrada = (auth: string, key = KEY): Promise<StackResponse> =>
    stack.request('POST', `/api/bodegas/${bodega}/movimientos`, {
      auth,
      headers: { 'idempotency-key': key },
      body: { productoId, tipo: 'ENTRADA', cantidad: 2, comentario: 'la misma petición' },
    });

  const cantidad = async () =>
    (await stack.request('GET', `/api/bodegas/${bodega}/existencias/${productoId}`)).body.cantidad as number;

  beforeAll(async () => {
    stack = await startTestStack('bff_idkeys', { identidad: true, env: { AUTH_FAILURES_PER_15_MIN: '0' } });
    bodega = await crearBodega(stack);
    productoId = (await crearProducto(stack, { cantidadEnStock: 0 })).id;
    await crearUsuario('ana');
    await crearUsuario('bea');
  });

  afterAll(() => stack?.close());

  it("another principal's repeat of a key executes anew and never sees the first answer; the same principal replays it", async () => {
    const ana = basicAuth('ana', PASSWORD);
    const first = await entrada(ana);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await cantidad()).toBe(2);

    const bea = await entrada(basicAuth('bea', PASSWORD));
    expect(bea.status).toBe(201);
    expect(bea.headers.get('idempotent-replayed')).toBeNull();
    expect(bea.body.id).not.toBe(first.body.id);
    expect(bea.text).not.toContain('"usuario":"ana"');
    expect(await cantidad()).toBe(4);

    // Ana again, by password and then by her own token: the stored answer, nothing executed.
    const again = await entrada(ana);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const token = await stack.request('POST', '/api/tokens', { auth: ana, body: { nombre: 'ana-integracion' } });
    expect(token.status).toBe(201);
    const porToken = await entrada(`Bearer ${token.body.token as string}`);
    expect(porToken.headers.get('idempotent-replayed')).toBe('true');
    expect(porToken.body.id).toBe(first.body.id);
    expect(await cantidad()).toBe(4);
  });

  it('a new user given a renamed user’s old name does not inherit its keys', async () => {
    const carla = await crearUsuario('carla');
    const key = 'renombrado-1';
    const original = await entrada(basicAuth('carla', PASSWORD), key);
    expect(original.status).toBe(201);
    const renamed = await stack.request('PATCH', `/api/usuarios/${carla.id}`, {
      headers: { 'if-match': `"${carla.version}"` },
      body: { usuario: 'carla.antes' },
    });
    expect(renamed.status).toBe(200);
    await crearUsuario('carla');
    const before = await cantidad();
    const impostora = await entrada(basicAuth('carla', PASSWORD), key);
    expect(impostora.status).toBe(201);
    expect(impostora.headers.get('idempotent-replayed')).toBeNull();
    expect(impostora.body.id).not.toBe(original.body.id);
    expect(await cantidad()).toBe(before + 2);
    // The new carla's repeat is hers now.
    const again = await entrada(basicAuth('carla', PASSWORD), key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(impostora.body.id);
  });

  it('holds for GraphQL mutations and for products (producto-svc) too', async () => {
    const mutation = (nombre: string) =>
      `mutation { crearProducto(input: { nombre: "${nombre}", precio: 1, cantidad: 0 }, idempotencyKey: "gql-1") { success error producto { id nombre } } }`;
    const ana = await stack.request('POST', '/api/graphql', {
      auth: basicAuth('ana', PASSWORD),
      body: { query: mutation('Clavo') },
    });
    const bea = await stack.request('POST', '/api/graphql', {
      auth: basicAuth('bea', PASSWORD),
      body: { query: mutation('Clavo') },
    });
    expect(ana.body.data.crearProducto.success).toBe(true);
    expect(bea.body.data.crearProducto.success).toBe(true);
    expect(bea.body.data.crearProducto.producto.id).not.toBe(ana.body.data.crearProducto.producto.id);
  });
});
