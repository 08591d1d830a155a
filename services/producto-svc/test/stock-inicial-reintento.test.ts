/**
 * A create's initial stock when bodega-svc's first answers are lost (docs/decisions.md, "a create whose
 * initial stock was not recorded", step 1): producto-svc tries again, up to three attempts, on UNAVAILABLE
 * or DEADLINE_EXCEEDED only. Across the real bodega-svc, behind a stand-in that fails the attempts a test
 * names and forwards the rest.
 */
import {
  credentials,
  Metadata,
  Server,
  ServerCredentials,
  status,
  type sendUnaryData,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import {
  BodegaServiceClient,
  BodegaServiceService,
  ExistenciaServiceClient,
  ExistenciaServiceService,
  type CreateProductoResponse,
  type GetBodegaRequest,
  type RegistrarStockInicialRequest,
} from '@inventario/proto';
import { startBodegaSvcProcess, type BodegaSvcUnderTest } from '@inventario/testkit/grpc';
import { startTestService, type TestService } from './support/test-service';

let bodegaSvc: BodegaSvcUnderTest;
let svc: TestService;
let server: Server;
let existencias: ExistenciaServiceClient;
let bodegas: BodegaServiceClient;
/** The answers the next attempts get instead of bodega-svc's, in order. */
const fallos: status[] = [];
let intentos = 0;
/** Each attempt's deadline as the stand-in received it (epoch ms). */
const plazos: number[] = [];

/** Answers the call with bodega-svc's own answer. */
function reenviar<Req, Res>(
  invoke: (
    req: Req,
    metadata: ServerUnaryCall<Req, Res>['metadata'],
    options: object,
    cb: sendUnaryData<Res>,
  ) => unknown,
) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) =>
    invoke(call.request, call.metadata, { deadline: call.getDeadline() }, (err, res) =>
      err ? callback(err) : callback(null, res),
    );
}

beforeAll(async () => {
  bodegaSvc = await startBodegaSvcProcess('p_reintento_b');
  existencias = new ExistenciaServiceClient(bodegaSvc.address, credentials.createInsecure());
  bodegas = new BodegaServiceClient(bodegaSvc.address, credentials.createInsecure());
  server = new Server();
  const registrar = reenviar((r: RegistrarStockInicialRequest, m, o, cb) =>
    existencias.registrarStockInicial(r, m, o, cb),
  );
  server.addService(ExistenciaServiceService, {
    registrarStockInicial(
      call: ServerUnaryCall<RegistrarStockInicialRequest, unknown>,
      callback: sendUnaryData<unknown>,
    ) {
      intentos++;
      plazos.push(new Date(call.getDeadline()).getTime());
      const code = fallos.shift();
      if (code === undefined) registrar(call, callback);
      else callback({ code, details: 'el stand-in no contesta esta vez' });
    },
  });
  server.addService(BodegaServiceService, {
    getBodega: reenviar((r: GetBodegaRequest, m, o, cb) => bodegas.getBodega(r, m, o, cb)),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  svc = await startTestService('p_reintento', { BODEGA_SVC_ADDR: `127.0.0.1:${port}` });
}, 60_000);

afterAll(async () => {
  await svc?.close();
  await new Promise<void>((resolve) => (server ? server.tryShutdown(() => resolve()) : resolve()));
  existencias?.close();
  bodegas?.close();
  await bodegaSvc?.close();
});

beforeEach(() => {
  fallos.length = 0;
  intentos = 0;
  plazos.length = 0;
});

/** The product's ledger lines, as bodega-svc stored them. */
async function lineasDe(productoId: number): Promise<{ motivo: string; cantidad: number }[]> {
  return bodegaSvc.db('movimientos').where({ producto_id: productoId }).select('motivo', 'cantidad');
}

async function crearCon(cantidadEnStock: number) {
  const { bodega } = await bodegaSvc.rpc.createBodega({
    nombre: `Reintento ${Date.now()} ${Math.random()}`,
    capacidad: 100,
  });
  return svc.api.create({ nombre: 'Reintentado', precio: '1.00', cantidadEnStock, bodegaId: bodega!.id });
}

it.each([
  ['UNAVAILABLE', [status.UNAVAILABLE]],
  ['UNAVAILABLE then DEADLINE_EXCEEDED', [status.UNAVAILABLE, status.DEADLINE_EXCEEDED]],
])('a create whose first attempts get %s records its units once on the next and answers them', async (_, codes) => {
  fallos.push(...codes);
  const { producto, cantidadDelLibro } = await crearCon(7);
  expect(intentos).toBe(codes.length + 1);
  expect(cantidadDelLibro).toBe(7);
  expect(await lineasDe(producto!.id)).toEqual([{ motivo: 'STOCK_INICIAL', cantidad: 7 }]);
});

it('three lost attempts: the create still succeeds, with no line and no figure, as before', async () => {
  fallos.push(status.UNAVAILABLE, status.UNAVAILABLE, status.UNAVAILABLE, status.UNAVAILABLE);
  const { producto, cantidadDelLibro } = await crearCon(5);
  expect(intentos).toBe(3);
  expect(cantidadDelLibro).toBeUndefined();
  expect(await lineasDe(producto!.id)).toEqual([]);
});

it.each([
  ['INVALID_ARGUMENT', status.INVALID_ARGUMENT],
  ['FAILED_PRECONDITION', status.FAILED_PRECONDITION],
])('an answer of %s is bodega-svc deciding: one attempt, no line', async (_, code) => {
  fallos.push(code, code);
  const { producto, cantidadDelLibro } = await crearCon(4);
  expect(intentos).toBe(1);
  expect(cantidadDelLibro).toBeUndefined();
  expect(await lineasDe(producto!.id)).toEqual([]);
});

it("every attempt ends within the create's own deadline", async () => {
  const { bodega } = await bodegaSvc.rpc.createBodega({ nombre: `Plazo ${Date.now()}`, capacidad: 100 });
  fallos.push(status.UNAVAILABLE, status.UNAVAILABLE);
  const deadline = Date.now() + 2000;
  const res = await new Promise<CreateProductoResponse>((resolve, reject) =>
    svc.client.createProducto(
      { nombre: 'Con plazo', precio: '1.00', cantidadEnStock: 3, bodegaId: bodega!.id },
      new Metadata(),
      { deadline },
      (err, r) => (err ? reject(err) : resolve(r)),
    ),
  );
  expect(res.cantidadDelLibro).toBe(3);
  expect(plazos).toHaveLength(3);
  for (const plazo of plazos) expect(plazo).toBeLessThanOrEqual(deadline);
});
