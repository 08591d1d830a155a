/**
 * Runs a whole bodega-svc in-process on an ephemeral port, against a fresh
 * database and a private stream / subject prefix on the shared NATS, and
 * gives tests a promise-based client plus handles to check what was written
 * and published. One instance per test file (beforeAll / afterAll).
 */
import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import {
  countPendingEvents,
  createDb,
  createLogger,
  parseMysqlUrl,
  type Knex,
  type NatsConnection,
} from '@inventario/platform';
import {
  BodegaServiceClient,
  ExistenciaServiceClient,
  ExistenciaServiceService,
  type CreateBodegaRequest,
  type CreateBodegaResponse,
  type DeleteBodegaRequest,
  type DeleteBodegaResponse,
  type GetBodegaEliminadaRequest,
  type GetBodegaEliminadaResponse,
  type MarkBodegaDeletingRequest,
  type MarkBodegaDeletingResponse,
  type GetBodegaRequest,
  type GetBodegaResponse,
  type ListBodegasRequest,
  type ListBodegasResponse,
  type UpdateBodegaRequest,
  type UpdateBodegaResponse,
} from '@inventario/proto';
import {
  connectTestNats,
  createTestDatabase,
  deleteStream,
  readStream,
  testEventNamespace,
  TEST_NATS_URL,
  waitFor,
  type EventNamespace,
  type StoredEvent,
  type TestDatabase,
} from '@inventario/testkit';
import { startCatalogoAbierto, type Rpc, type StockRpc } from '@inventario/testkit/grpc';
import { startApp, type App } from '../../src/app';
import { loadConfig } from '../../src/config';

type Callback<Res> = (err: ServiceError | null, res: Res) => void;
type Invoke<Req, Res> = (req: Req, metadata: Metadata, callback: Callback<Res>) => unknown;

function promisify<Req, Res>(invoke: Invoke<Req, Res>): Rpc<Req, Res> {
  return (req, metadata = new Metadata()) =>
    new Promise<Res>((resolve, reject) => {
      invoke(req, metadata, (err, res) => (err ? reject(err) : resolve(res)));
    });
}

export interface BodegaRpc {
  createBodega: Rpc<CreateBodegaRequest, CreateBodegaResponse>;
  getBodega: Rpc<GetBodegaRequest, GetBodegaResponse>;
  listBodegas: Rpc<ListBodegasRequest, ListBodegasResponse>;
  updateBodega: Rpc<UpdateBodegaRequest, UpdateBodegaResponse>;
  deleteBodega: Rpc<DeleteBodegaRequest, DeleteBodegaResponse>;
  getBodegaEliminada: Rpc<GetBodegaEliminadaRequest, GetBodegaEliminadaResponse>;
  markBodegaDeleting: Rpc<MarkBodegaDeletingRequest, MarkBodegaDeletingResponse>;
}

// The stock client's types and the caller's metadata are testkit's (the fault suite calls bodega-svc too).
export { asUser, type Rpc, type StockRpc } from '@inventario/testkit/grpc';

/** The error a call failed with; fails the test when the call succeeded. */
export async function grpcError(call: Promise<unknown>): Promise<ServiceError> {
  try {
    await call;
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

export interface TestService {
  app: App;
  address: string;
  rpc: BodegaRpc;
  /** ExistenciaService on the same server. */
  stock: StockRpc;
  /** A separate pool on the service's database, for checking what was written. */
  db: Knex;
  /** Name of the service's database. */
  database: string;
  ns: EventNamespace;
  /** Rows in the outbox, published or not: one per committed write. */
  outboxCount(): Promise<number>;
  /** Waits until the relay has published every committed event, then reads the stream. */
  publishedEvents(): Promise<StoredEvent[]>;
  /** grpc.health.v1 Check of `service` ('' for the whole server). */
  healthCheck(service: string): Promise<string>;
  close(): Promise<void>;
}

const HEALTH_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

/**
 * grpc.health.v1.Health/Check with the two one-field messages encoded by hand
 * (HealthCheckRequest{string service = 1}, HealthCheckResponse{enum status = 1}),
 * so the test needs no runtime proto loading and no extra dependency.
 */
function checkHealth(client: Client, service: string): Promise<string> {
  const name = Buffer.from(service, 'utf8');
  if (name.length > 127) throw new Error('service name too long for this one-byte length encoding');
  const request = name.length === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x0a, name.length]), name]);
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest<Buffer, string>(
      '/grpc.health.v1.Health/Check',
      (req) => req,
      (res) => HEALTH_STATUS[res.length >= 2 && res[0] === 0x08 ? (res[1] ?? 0) : 0] ?? 'UNKNOWN',
      request,
      new Metadata(),
      {},
      (err, status) => (err ? reject(err) : resolve(status ?? 'UNKNOWN')),
    );
  });
}

export interface TestServiceOptions {
  /** NATS the service publishes to (default: the shared test server). */
  natsUrl?: string;
  /** Wait for the event relay before returning (default true; false when NATS is meant to be down). */
  awaitEvents?: boolean;
  /** Stream and subject prefix (default: a fresh private one), e.g. one producto-svc publishes to as well. */
  ns?: EventNamespace;
  /** Environment overrides, e.g. PRODUCTO_SVC_ADDR (default: a producto-svc where every product exists, catalogo-abierto.ts). */
  env?: Record<string, string>;
}

export async function startTestService(label: string, options: TestServiceOptions = {}): Promise<TestService> {
  const natsUrl = options.natsUrl ?? TEST_NATS_URL;
  const testDb: TestDatabase = await createTestDatabase(label);
  const ns = options.ns ?? testEventNamespace();
  const catalogo = options.env?.PRODUCTO_SVC_ADDR === undefined ? await startCatalogoAbierto() : undefined;
  const config = loadConfig({
    DATABASE_URL: testDb.url,
    GRPC_PORT: '0',
    GRPC_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    NATS_URL: natsUrl,
    LOG_LEVEL: 'silent',
    NATS_STREAM: ns.stream,
    NATS_SUBJECT_PREFIX: ns.prefix,
    SHUTDOWN_DRAIN_MS: '0',
    ...(catalogo ? { PRODUCTO_SVC_ADDR: catalogo.address } : {}),
    ...options.env,
  });
  const app = await startApp(config, createLogger('bodega-svc', config.logLevel)).catch(async (err: unknown) => {
    await catalogo?.close();
    await testDb.drop();
    throw err;
  });
  if (options.awaitEvents ?? true) {
    // A failed start must not leave the app, its database or stream behind.
    await app.ready.catch(async (err: unknown) => {
      await app.stop();
      await catalogo?.close();
      await testDb.drop();
      throw err;
    });
  }

  const address = `127.0.0.1:${app.grpcPort}`;
  const client = new BodegaServiceClient(address, credentials.createInsecure());
  const raw = new Client(address, credentials.createInsecure());
  const stockClient = new ExistenciaServiceClient(address, credentials.createInsecure());
  const stock = Object.fromEntries(
    Object.keys(ExistenciaServiceService).map((name) => {
      const method = (stockClient as unknown as Record<string, Invoke<unknown, unknown>>)[name]!.bind(stockClient);
      return [name, promisify(method)];
    }),
  ) as StockRpc;
  const db = createDb(testDb.url);
  // Connected on first use: the NATS under test may be down when the service starts.
  let nc: NatsConnection | undefined;
  const nats = async () => (nc ??= await connectTestNats(natsUrl));

  const rpc: BodegaRpc = {
    createBodega: promisify((r, m, cb) => client.createBodega(r, m, cb)),
    getBodega: promisify((r, m, cb) => client.getBodega(r, m, cb)),
    listBodegas: promisify((r, m, cb) => client.listBodegas(r, m, cb)),
    updateBodega: promisify((r, m, cb) => client.updateBodega(r, m, cb)),
    deleteBodega: promisify((r, m, cb) => client.deleteBodega(r, m, cb)),
    getBodegaEliminada: promisify((r, m, cb) => client.getBodegaEliminada(r, m, cb)),
    markBodegaDeleting: promisify((r, m, cb) => client.markBodegaDeleting(r, m, cb)),
  };

  return {
    app,
    address,
    rpc,
    stock,
    db,
    database: parseMysqlUrl(testDb.url).database,
    ns,
    async outboxCount() {
      const row = await db('outbox').count<{ n: number | string }[]>({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async publishedEvents() {
      await waitFor(async () => (await countPendingEvents(db)) === 0, 'the outbox relay to publish every event');
      return readStream(await nats(), ns.stream);
    },
    healthCheck: (service) => checkHealth(raw, service),
    async close() {
      client.close();
      raw.close();
      stockClient.close();
      await app.stop();
      await catalogo?.close();
      const conn = await nats();
      await deleteStream(conn, ns.stream);
      await conn.close();
      await db.destroy();
      await testDb.drop();
    },
  };
}
