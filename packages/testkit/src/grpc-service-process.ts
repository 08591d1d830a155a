import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { jetstreamManager } from '@nats-io/jetstream';
import { createDb, type Knex } from '@inventario/platform';
import {
  BodegaServiceClient,
  type CreateBodegaRequest,
  type CreateBodegaResponse,
  type DeleteBodegaRequest,
  type DeleteBodegaResponse,
} from '@inventario/proto';
import { startCatalogoAbierto } from './catalogo-abierto';
import { startFakeLibro, type FakeLibro } from './fake-libro';
import {
  createTestDatabase,
  deleteStream,
  connectTestNats,
  freePort,
  testEventNamespace,
  TEST_NATS_URL,
  waitFor,
  type EventNamespace,
  type TestDatabase,
} from './index';
import { createProductoClient, productoApi, type ProductoApi } from './producto-client';
import { startServiceProcess, type ServiceProcess } from './service-process';
import type { Rpc } from './stock-rpc';

/**
 * One BUILT gRPC service as a child process (testkit's spawner) on a fresh database, for the tests of ANOTHER
 * workspace that need it running: producto-svc's tests call a real bodega-svc, bodega-svc's a real producto-svc. A
 * service's own tests start it in-process from its `src/` (its `test/support/test-service.ts`); no workspace imports
 * another's `test/` folder (issue 25).
 */
export interface GrpcServiceUnderTest {
  process: ServiceProcess;
  grpcPort: number;
  /** `127.0.0.1:<grpcPort>`. */
  address: string;
  database: TestDatabase;
  namespace: EventNamespace;
  /** The test's own pool on the service's database, for checking or changing what was written. */
  db: Knex;
  /** Stops the process, deletes the stream (unless the caller gave the namespace) and drops the database. */
  close(): Promise<void>;
}

export interface GrpcServiceProcessOptions {
  /** Environment over the defaults (e.g. BODEGA_SVC_ADDR, PRODUCTO_SVC_ADDR). */
  env?: Record<string, string>;
  /** Stream and subject prefix (default a fresh private one, deleted on close), e.g. one the test publishes to too. */
  namespace?: EventNamespace;
}

async function startGrpcServiceProcess(
  name: 'producto-svc' | 'bodega-svc',
  label: string,
  options: GrpcServiceProcessOptions,
  onClose: () => Promise<void>,
): Promise<GrpcServiceUnderTest> {
  const database = await createTestDatabase(label);
  const namespace = options.namespace ?? testEventNamespace();
  const grpcPort = await freePort();
  const env = {
    DATABASE_URL: database.url,
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(grpcPort),
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    NATS_URL: TEST_NATS_URL,
    NATS_STREAM: namespace.stream,
    NATS_SUBJECT_PREFIX: namespace.prefix,
    DB_CHECK_INTERVAL_MS: '200',
    SHUTDOWN_DRAIN_MS: '0',
    SHUTDOWN_TIMEOUT_MS: '10000',
    ...options.env,
  };
  // A failed start must not leave the database behind.
  const process = await startServiceProcess(name, env).catch(async (err: unknown) => {
    await onClose();
    await database.drop();
    throw err;
  });
  // Ready is sent after the migrations; its events are ready once it made its stream (in-process: app.ready).
  const nc = await connectTestNats();
  try {
    const jsm = await jetstreamManager(nc);
    await waitFor(
      () =>
        jsm.streams.info(namespace.stream).then(
          () => true,
          () => false,
        ),
      `${name} to create its stream`,
    );
  } catch (err) {
    await process.stop();
    await onClose();
    await database.drop();
    throw err;
  } finally {
    await nc.close();
  }
  const db = createDb(database.url);
  return {
    process,
    grpcPort,
    address: `127.0.0.1:${grpcPort}`,
    database,
    namespace,
    db,
    async close() {
      await process.stop();
      await onClose();
      await db.destroy();
      if (!options.namespace) {
        const nc = await connectTestNats();
        await deleteStream(nc, namespace.stream);
        await nc.close();
      }
      await database.drop();
    },
  };
}

/**
 * producto-svc running, with its API as `tester`. Without BODEGA_SVC_ADDR it records units in a stand-in ledger
 * (fake-libro.ts), as its own tests do.
 */
export interface ProductoSvcUnderTest extends GrpcServiceUnderTest {
  api: ProductoApi;
  /** The stand-in, when no BODEGA_SVC_ADDR was given. */
  libro: FakeLibro | undefined;
}

export async function startProductoSvcProcess(
  label: string,
  options: GrpcServiceProcessOptions = {},
): Promise<ProductoSvcUnderTest> {
  const libro = options.env?.BODEGA_SVC_ADDR === undefined ? await startFakeLibro() : undefined;
  const service = await startGrpcServiceProcess(
    'producto-svc',
    label,
    { ...options, env: { ...(libro ? { BODEGA_SVC_ADDR: libro.address } : {}), ...options.env } },
    async () => libro?.close(),
  );
  const client = createProductoClient(service.grpcPort);
  return {
    ...service,
    api: productoApi(client, { usuario: 'tester' }),
    libro,
    async close() {
      client.close();
      await service.close();
    },
  };
}

/** The warehouse calls a test of another service makes. */
export interface BodegaSvcRpc {
  createBodega: Rpc<CreateBodegaRequest, CreateBodegaResponse>;
  deleteBodega: Rpc<DeleteBodegaRequest, DeleteBodegaResponse>;
}

/**
 * bodega-svc running, with its warehouse calls. Without PRODUCTO_SVC_ADDR it asks an open catalogue (every product
 * exists: testkit's catalogo-abierto).
 */
export interface BodegaSvcUnderTest extends GrpcServiceUnderTest {
  rpc: BodegaSvcRpc;
}

export async function startBodegaSvcProcess(
  label: string,
  options: GrpcServiceProcessOptions = {},
): Promise<BodegaSvcUnderTest> {
  const catalogo = options.env?.PRODUCTO_SVC_ADDR === undefined ? await startCatalogoAbierto() : undefined;
  const service = await startGrpcServiceProcess(
    'bodega-svc',
    label,
    { ...options, env: { ...(catalogo ? { PRODUCTO_SVC_ADDR: catalogo.address } : {}), ...options.env } },
    async () => catalogo?.close(),
  );
  const bodegas = new BodegaServiceClient(service.address, credentials.createInsecure());
  type Callback<Res> = (err: ServiceError | null, res: Res) => void;
  const call =
    <Req, Res>(invoke: (req: Req, metadata: Metadata, cb: Callback<Res>) => unknown): Rpc<Req, Res> =>
    (req, metadata = new Metadata()) =>
      new Promise<Res>((resolve, reject) => {
        invoke(req, metadata, (err, res) => (err ? reject(err) : resolve(res)));
      });
  return {
    ...service,
    rpc: {
      createBodega: call((r: CreateBodegaRequest, m, cb: Callback<CreateBodegaResponse>) =>
        bodegas.createBodega(r, m, cb),
      ),
      deleteBodega: call((r: DeleteBodegaRequest, m, cb: Callback<DeleteBodegaResponse>) =>
        bodegas.deleteBodega(r, m, cb),
      ),
    },
  };
}
