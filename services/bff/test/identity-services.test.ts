/**
 * The principal between services (issue 26, docs/contract.md §12.9):
 * producto-svc and bodega-svc with REQUIRE_PRINCIPAL=true verify the BFF's
 * signed principal and internal callers' service tokens themselves, and
 * bodega-svc judges every stock command and filters its lists again on the
 * caller's warehouses. Real services, identidad-svc, MariaDB and NATS.
 */
import { generateKeyPairSync } from 'node:crypto';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { crearFirmante, PRINCIPAL_METADATA_KEY, type Principal } from '@inventario/contract';
import { AUTHORIZATION_METADATA_KEY, createDb, createLogger, errorDataOf, type Knex } from '@inventario/platform';
import {
  ExistenciaServiceClient,
  ProductoServiceClient,
  ReservaServiceClient,
  TipoMovimiento,
  type ListReservasRequest,
  type ListReservasResponse,
  type ListExistenciasRequest,
  type ListExistenciasResponse,
  type ListMovimientosRequest,
  type ListMovimientosResponse,
} from '@inventario/proto';
import { waitFor, crearBodega, crearProducto } from '@inventario/testkit';
import { loadConfig } from '../src/config';
import { createDownstream } from '../src/downstream/downstream';
import { createInventario } from '../src/inventario/inventario';
import { seedSampleData } from '../src/seed/datos-ejemplo';
import { startTestStack, TEST_PASSWORD, TEST_USER, type TestStack } from './support/stack';

jest.setTimeout(120_000);

type Callback<Res> = (err: ServiceError | null, res: Res) => void;
function call<Req, Res>(
  invoke: (req: Req, md: Metadata, cb: Callback<Res>) => unknown,
  req: Req,
  md: Metadata,
): Promise<Res> {
  return new Promise((resolve, reject) => invoke(req, md, (err, res) => (err ? reject(err) : resolve(res))));
}

async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error('expected the call to be refused, but it succeeded');
}

const conPrincipal = (firmado: string) => {
  const md = new Metadata();
  md.set(PRINCIPAL_METADATA_KEY, firmado);
  return md;
};
const conToken = (token: string) => {
  const md = new Metadata();
  md.set(AUTHORIZATION_METADATA_KEY, `Bearer ${token}`);
  return md;
};

describe('principals verified by producto-svc and bodega-svc', () => {
  // identidad-svc's signing key, known to the test only to forge what a pod holding it could (an expired principal).
  const { privateKey } = generateKeyPairSync('ed25519');
  const otra = generateKeyPairSync('ed25519');
  let stack: TestStack;
  let admin: Metadata;
  let stock: ExistenciaServiceClient;
  let productos: ProductoServiceClient;
  let reservas: ReservaServiceClient;
  let bodegaDb: Knex;
  let a: number;
  let b: number;
  let productoId: number;

  const mover = (md: Metadata, bodegaId: number, cantidad = 1) =>
    call(
      stock.registrarMovimiento.bind(stock),
      { bodegaId, productoId, tipo: TipoMovimiento.TIPO_MOVIMIENTO_ENTRADA, cantidad, motivo: 0 },
      md,
    );

  beforeAll(async () => {
    stack = await startTestStack('bff_idsvc', {
      identidad: true,
      serviciosExigenPrincipal: true,
      identidadEnv: { PRINCIPAL_SIGNING_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() },
      // A token identidad-svc accepted is not cached by the services: a revocation applies at the next call.
      serviceEnv: { PRINCIPAL_TOKEN_CACHE_MS: '0' },
      env: { AUTH_FAILURES_PER_15_MIN: '0' },
    });
    admin = await stack.identidad!.como(TEST_USER, TEST_PASSWORD);
    stock = new ExistenciaServiceClient(stack.serviceAddrs.bodega, credentials.createInsecure());
    productos = new ProductoServiceClient(stack.serviceAddrs.producto, credentials.createInsecure());
    reservas = new ReservaServiceClient(stack.serviceAddrs.bodega, credentials.createInsecure());
    bodegaDb = createDb(stack.databaseUrls.bodega);
    // Through the BFF: its signed principal reaches both services (and producto-svc forwards it to bodega-svc).
    [a, b] = [await crearBodega(stack), await crearBodega(stack)];
    productoId = (await crearProducto(stack, { cantidadEnStock: 5, bodegaId: a })).id;
  });

  afterAll(async () => {
    stock?.close();
    productos?.close();
    reservas?.close();
    await bodegaDb?.destroy();
    await stack?.close();
  });

  it('serves the BFF, which forwards the signed principal: the ledger names the real user', async () => {
    const res = await stack.request('POST', `/api/bodegas/${b}/movimientos`, {
      body: { productoId, tipo: 'ENTRADA', cantidad: 3 },
    });
    expect(res.status).toBe(201);
    const linea = await bodegaDb('movimientos').where({ bodega_id: b, producto_id: productoId }).first();
    expect(linea.usuario).toBe(TEST_USER);
    const operacion = await bodegaDb('operaciones').where({ id: linea.operacion_id }).first();
    expect([operacion.metodo_auth, operacion.token_id]).toEqual(['password', null]);
    expect(operacion.principal_id).toBeGreaterThan(0);
  });

  it('answers UNAUTHENTICATED to a call with no principal, on both services', async () => {
    expect((await rejection(mover(new Metadata(), a))).code).toBe(status.UNAUTHENTICATED);
    const err = await rejection(call(productos.getProducto.bind(productos), { id: productoId }, new Metadata()));
    expect(err.code).toBe(status.UNAUTHENTICATED);
    // The name header alone is what any pod could send: not a principal.
    const soloNombre = new Metadata();
    soloNombre.set('x-inventario-usuario', TEST_USER);
    expect((await rejection(mover(soloNombre, a))).code).toBe(status.UNAUTHENTICATED);
  });

  it('refuses a hand-made principal: unsigned, signed by another key, altered, or expired', async () => {
    const yo = await stack.identidad!.rpc.autenticar({
      basica: { usuario: TEST_USER, password: TEST_PASSWORD },
      direccion: '127.0.0.1',
    });
    const principal: Principal = {
      id: yo.principal!.id,
      usuario: TEST_USER,
      tipo: 'HUMANO',
      metodoAuth: 'password',
      tokenId: null,
      credencialVersion: yo.principal!.credencialVersion,
      permisos: new Map([['existencias:mover', '*']]),
    };
    const [header, payload] = yo.principalFirmado.split('.') as [string, string, string];
    const sinFirma = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    const ajena = crearFirmante(otra.privateKey, 60).firmar(principal).token;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const alterado = `${header}.${Buffer.from(JSON.stringify({ ...claims, usr: 'otro' })).toString('base64url')}.${
      yo.principalFirmado.split('.')[2]
    }`;
    const caducado = crearFirmante(privateKey, 60).firmar(principal, new Date(Date.now() - 10 * 60_000)).token;
    for (const forjado of [sinFirma, ajena, alterado, caducado, 'basura']) {
      expect((await rejection(mover(conPrincipal(forjado), a))).code).toBe(status.UNAUTHENTICATED);
      const err = await rejection(
        call(productos.getProducto.bind(productos), { id: productoId }, conPrincipal(forjado)),
      );
      expect(err.code).toBe(status.UNAUTHENTICATED);
    }
    // The same key, in date: accepted (so the refusals above are about the forgery, not the key).
    const valido = crearFirmante(privateKey, 60).firmar(principal).token;
    await expect(mover(conPrincipal(valido), a)).resolves.toBeDefined();
  });

  it('judges every stock command again on a scoped principal: both ends of a transfer, each warehouse', async () => {
    await stack.identidad!.rpc.createUsuario(
      {
        usuario: 'operador.a',
        password: 'una-password-de-prueba-1',
        tipo: 1,
        asignaciones: [{ rol: 'OPERADOR', bodegaId: a }],
      },
      admin,
    );
    const md = await stack.identidad!.como('operador.a', 'una-password-de-prueba-1');
    await expect(mover(md, a)).resolves.toBeDefined();
    const fuera = await rejection(mover(md, b));
    expect(fuera.code).toBe(status.PERMISSION_DENIED);
    expect(errorDataOf(fuera)).toEqual({ permiso: 'existencias:mover', bodegaId: b });
    const transferencia = await rejection(
      call(stock.transferir.bind(stock), { productoId, origenId: a, destinoId: b, cantidad: 1 }, md),
    );
    expect(transferencia.code).toBe(status.PERMISSION_DENIED);
    expect(errorDataOf(transferencia)).toEqual({ permiso: 'existencias:transferir', bodegaId: b });
    // An adjustment is SUPERVISOR's, even in its own warehouse.
    const ajuste = await rejection(
      call(
        stock.registrarMovimiento.bind(stock),
        {
          bodegaId: a,
          productoId,
          tipo: TipoMovimiento.TIPO_MOVIMIENTO_AJUSTE,
          cantidad: 1,
          motivo: 0,
          expectedVersion: 1,
        },
        md,
      ),
    );
    expect(errorDataOf(ajuste)).toEqual({ permiso: 'existencias:ajustar', bodegaId: a });
    // Its lists hold only warehouse a's rows, filtered in SQL (a filter on b alone: an empty page).
    const niveles = await call<ListExistenciasRequest, ListExistenciasResponse>(
      stock.listExistencias.bind(stock),
      { pageSize: 100, pageToken: '', bodegaIds: [], productoIds: [] },
      md,
    );
    expect(new Set(niveles.existencias.map((e) => e.bodegaId))).toEqual(new Set([a]));
    const soloB = await call<ListExistenciasRequest, ListExistenciasResponse>(
      stock.listExistencias.bind(stock),
      { pageSize: 100, pageToken: '', bodegaIds: [b], productoIds: [] },
      md,
    );
    expect(soloB.existencias).toEqual([]);
    const lineas = await call<ListMovimientosRequest, ListMovimientosResponse>(
      stock.listMovimientos.bind(stock),
      { pageSize: 100, pageToken: '', tipo: TipoMovimiento.TIPO_MOVIMIENTO_UNSPECIFIED },
      md,
    );
    expect(lineas.movimientos.length).toBeGreaterThan(0);
    expect(lineas.movimientos.every((m) => m.bodegaId === a)).toBe(true);
    // A level of b reads as a missing warehouse's: the same status and words, only the id differs.
    const MISSING = 987_654;
    const leer = (bodegaId: number) => rejection(call(stock.getExistencia.bind(stock), { bodegaId, productoId }, md));
    const [oculta, falta] = [await leer(b), await leer(MISSING)];
    expect(oculta.code).toBe(status.NOT_FOUND);
    expect(oculta.details).toBe(falta.details.replaceAll(String(MISSING), String(b)));
    // Holds: one in a and one across a and b; the scoped reader sees only the first, by id and in the list.
    const reservar = async (lineas: { bodegaId: number }[]) => {
      const res = await stack.request('POST', '/api/reservas', {
        body: {
          referencia: `r-${lineas.length}-${Date.now()}`,
          lineas: lineas.map((l) => ({ ...l, productoId, cantidad: 1 })),
        },
      });
      expect(res.status).toBe(201);
      return res.body.id as number;
    };
    const enA = await reservar([{ bodegaId: a }]);
    const enAyB = await reservar([{ bodegaId: a }, { bodegaId: b }]);
    await expect(call(reservas.getReserva.bind(reservas), { id: enA }, md)).resolves.toBeDefined();
    const oculta2 = await rejection(call(reservas.getReserva.bind(reservas), { id: enAyB }, md));
    const falta2 = await rejection(call(reservas.getReserva.bind(reservas), { id: MISSING }, md));
    expect(oculta2.code).toBe(status.NOT_FOUND);
    expect(oculta2.details).toBe(falta2.details.replaceAll(String(MISSING), String(enAyB)));
    const lista = await call<ListReservasRequest, ListReservasResponse>(
      reservas.listReservas.bind(reservas),
      { pageSize: 100, pageToken: '', estado: 0 },
      md,
    );
    expect(lista.reservas.map((r) => r.id)).toContain(enA);
    expect(lista.reservas.map((r) => r.id)).not.toContain(enAyB);
    const todas = await bodegaDb('movimientos').whereIn('bodega_id', [a, b]).count<{ n: number }[]>({ n: '*' });
    expect(Number(todas[0]!.n)).toBeGreaterThan(lineas.movimientos.length);
  });

  it('refuses a reversal unless allowed on every warehouse of its lines, naming the one missing', async () => {
    // A transfer a → b reversed by a SUPERVISOR of a alone; the refusal carries what the gateway's 403 FORBIDDEN
    // body carries (permiso, bodegaId), through the same PERMISSION_DENIED mapping.
    const op = await stack.request('POST', `/api/transferencias`, {
      body: { productoId, origenId: a, destinoId: b, cantidad: 1 },
    });
    expect(op.status).toBe(201);
    await stack.identidad!.rpc.createUsuario(
      {
        usuario: 'supervisor.a',
        password: 'una-password-de-prueba-1',
        tipo: 1,
        asignaciones: [{ rol: 'SUPERVISOR', bodegaId: a }],
      },
      admin,
    );
    const md = await stack.identidad!.como('supervisor.a', 'una-password-de-prueba-1');
    const err = await rejection(call(stock.revertirOperacion.bind(stock), { operacionId: op.body.id as number }, md));
    expect(err.code).toBe(status.PERMISSION_DENIED);
    expect(errorDataOf(err)).toEqual({ permiso: 'operaciones:revertir', bodegaId: b });
  });

  it("a service account's token works directly over gRPC within its scopes, and stops when revoked", async () => {
    const cuenta = await stack.identidad!.cuentaDeServicio(admin, 'integracion.a', [{ rol: 'OPERADOR', bodegaId: a }]);
    const md = conToken(cuenta.token);
    await expect(mover(md, a, 2)).resolves.toBeDefined();
    // Its own name in the ledger, as at the gateway.
    const ultima = await bodegaDb('movimientos').where({ bodega_id: a }).orderBy('id', 'desc').first();
    expect(ultima.usuario).toBe('integracion.a');
    // Who exactly, on the operation and in its event (issue 26): the account, by token, which token.
    const operacion = await bodegaDb('operaciones').where({ id: ultima.operacion_id }).first();
    expect([operacion.principal_id, operacion.metodo_auth, operacion.token_id]).toEqual([
      cuenta.usuarioId,
      'token',
      cuenta.tokenId,
    ]);
    const evento = (await stack.settledEvents()).find(
      (e) => e.body.eventType.endsWith('MovimientoRegistrado') && e.body.data.operacionId === ultima.operacion_id,
    );
    expect(evento?.body.data).toMatchObject({
      usuario: 'integracion.a',
      principalId: cuenta.usuarioId,
      metodoAuth: 'token',
      tokenId: cuenta.tokenId,
    });
    expect((await rejection(mover(md, b))).code).toBe(status.PERMISSION_DENIED);
    const niveles = await call<ListExistenciasRequest, ListExistenciasResponse>(
      stock.listExistencias.bind(stock),
      { pageSize: 100, pageToken: '', bodegaIds: [], productoIds: [] },
      md,
    );
    expect(niveles.existencias.every((e) => e.bodegaId === a)).toBe(true);
    // A wrong secret for the same id is no credential.
    const falso = cuenta.token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await rejection(mover(conToken(falso), a))).code).toBe(status.UNAUTHENTICATED);
    expect((await rejection(mover(conToken('no-es-un-token'), a))).code).toBe(status.UNAUTHENTICATED);

    await stack.identidad!.rpc.revokeToken({ id: cuenta.tokenId }, admin);
    // PRINCIPAL_TOKEN_CACHE_MS=0 here: the very next call asks identidad-svc, which refuses it.
    expect((await rejection(mover(md, a))).code).toBe(status.UNAUTHENTICATED);
  });

  it("internal consumers act with their own token: a deleted product's stock is written out", async () => {
    const producto = await crearProducto(stack, { cantidadEnStock: 4, bodegaId: a });
    const res = await stack.request('DELETE', `/api/productos/${producto.id}`);
    expect(res.status).toBe(204);
    // bodega-svc's consumer confirms the deletion with producto-svc (which requires a principal: the consumer
    // presents bodega-svc's own token) before it writes the stock out and records the product as deleted.
    await waitFor(
      async () => (await bodegaDb('productos_eliminados').where({ producto_id: producto.id }).first()) !== undefined,
      'bodega-svc to act on ProductoEliminado',
    );
    const lineas = await bodegaDb('movimientos').where({ producto_id: producto.id, motivo: 'PRODUCTO_ELIMINADO' });
    expect(lineas.map((l: { usuario: string }) => l.usuario)).toEqual(['system']);
  });

  it('loads the sample data as the seed job does: with its own token, and not without one', async () => {
    const cuenta = await stack.identidad!.cuentaDeServicio(admin, 'inventario-seed', [{ rol: 'ADMIN' }]);
    const config = loadConfig({
      PRODUCTO_SVC_ADDR: stack.serviceAddrs.producto,
      BODEGA_SVC_ADDR: stack.serviceAddrs.bodega,
      BFF_USER: 'seed',
      BFF_PASSWORD: 'no-se-usa-aqui',
      LOG_LEVEL: 'silent',
    });
    const downstream = createDownstream(config, createLogger('seed', 'silent'));
    try {
      const inventario = createInventario(downstream);
      await expect(seedSampleData(inventario, { usuario: 'seed' })).rejects.toThrow('credenciales no válidas');
      const cargado = await seedSampleData(inventario, { usuario: 'seed', tokenDeServicio: cuenta.token });
      expect(cargado.operacionesCreadas).toBeGreaterThan(0);
      const operacion = await bodegaDb('operaciones').orderBy('id', 'desc').first();
      expect([operacion.usuario, operacion.metodo_auth, operacion.token_id]).toEqual([
        'inventario-seed',
        'token',
        cuenta.tokenId,
      ]);
    } finally {
      downstream.close();
    }
  });
});
