/**
 * identidad-svc in-process for stack tests: an ephemeral gRPC port, a fresh
 * database, a fresh signing key, publishing into the backend's stream and
 * subject prefix (the BFF's credential cache follows that stream), with the
 * test user as its first ADMIN. A promise-based client calls it as a
 * principal (users, bindings and tokens are made through it).
 */
import { generateKeyPairSync } from 'node:crypto';
import { credentials, Metadata, type handleUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { PRINCIPAL_METADATA_KEY } from '@inventario/contract';
import { createLogger, type GrpcServiceApp, type Logger } from '@inventario/platform';
import { IdentidadServiceClient, IdentidadServiceService, type IdentidadServiceServer } from '@inventario/proto';
import { createTestDatabase, type EventNamespace } from '../index';
import { LOG_LEVEL, type InProcessServices } from './backend';

type Rpc<Req, Res> = (req: Req, metadata?: Metadata) => Promise<Res>;
type RpcOf<H> = H extends handleUnaryCall<infer Req, infer Res> ? Rpc<Req, Res> : never;
export type IdentidadRpc = { [K in keyof IdentidadServiceServer]: RpcOf<IdentidadServiceServer[K]> };

/** Each method of `client` as a promise (metadata optional), for tests that call identidad-svc. */
export function identidadRpcOf(client: IdentidadServiceClient): IdentidadRpc {
  return Object.fromEntries(
    Object.keys(IdentidadServiceService).map((name) => {
      const method = (
        client as unknown as Record<
          string,
          (req: unknown, md: Metadata, cb: (err: ServiceError | null, res: unknown) => void) => void
        >
      )[name]!.bind(client);
      const call: Rpc<unknown, unknown> = (req, md = new Metadata()) =>
        new Promise((resolve, reject) => method(req, md, (err, res) => (err ? reject(err) : resolve(res))));
      return [name, call];
    }),
  ) as IdentidadRpc;
}

export interface TestIdentidad {
  addr: string;
  /** `mysql://...` of its database (to read the audit rows and the outbox). */
  databaseUrl: string;
  app: GrpcServiceApp;
  rpc: IdentidadRpc;
  /** Metadata carrying the principal `usuario` / `password` logs in as. */
  como(usuario: string, password: string): Promise<Metadata>;
  /**
   * A service account `nombre` with `asignaciones` (default a global ADMIN: a service's internal calls act for
   * products and warehouses alike), made by `admin`, and a new API token of it (`inv_<id>_<secret>`).
   */
  cuentaDeServicio(
    admin: Metadata,
    nombre: string,
    asignaciones?: { rol: string; bodegaId?: number }[],
  ): Promise<{ usuarioId: number; tokenId: number; token: string }>;
  close(): Promise<void>;
}

export interface TestIdentidadOptions {
  namespace: EventNamespace;
  natsUrl: string;
  admin: { usuario: string; password: string };
  env?: Record<string, string>;
  logger?: Logger;
}

export async function startTestIdentidad(
  services: InProcessServices,
  label: string,
  options: TestIdentidadOptions,
): Promise<TestIdentidad> {
  const db = await createTestDatabase(`${label}_i`);
  const { privateKey } = generateKeyPairSync('ed25519');
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: db.url,
    GRPC_PORT: '0',
    GRPC_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    NATS_URL: options.natsUrl,
    NATS_STREAM: options.namespace.stream,
    NATS_SUBJECT_PREFIX: options.namespace.prefix,
    LOG_LEVEL,
    SHUTDOWN_DRAIN_MS: '0',
    SHUTDOWN_TIMEOUT_MS: '10000',
    PRINCIPAL_SIGNING_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    BFF_USER: options.admin.usuario,
    BFF_PASSWORD: options.admin.password,
    ...options.env,
  };
  let app: GrpcServiceApp;
  try {
    app = await services['identidad-svc'](
      env,
      options.logger ?? createLogger('identidad-svc', env.LOG_LEVEL ?? LOG_LEVEL),
    );
  } catch (err) {
    await db.drop();
    throw err;
  }
  try {
    await app.ready;
  } catch (err) {
    await app.stop();
    await db.drop();
    throw err;
  }
  const addr = `127.0.0.1:${app.grpcPort}`;
  const client = new IdentidadServiceClient(addr, credentials.createInsecure());
  const rpc = identidadRpcOf(client);
  return {
    addr,
    databaseUrl: db.url,
    app,
    rpc,
    async como(usuario, password) {
      const res = await rpc.autenticar({ basica: { usuario, password }, direccion: '127.0.0.1' });
      const md = new Metadata();
      md.set(PRINCIPAL_METADATA_KEY, res.principalFirmado);
      return md;
    },
    async cuentaDeServicio(admin, nombre, asignaciones = [{ rol: 'ADMIN' }]) {
      // TIPO_USUARIO_SERVICIO: tokens only, never a password.
      const { usuario } = await rpc.createUsuario({ usuario: nombre, tipo: 2, asignaciones }, admin);
      const creado = await rpc.createToken({ usuarioId: usuario!.id, nombre: `${nombre}-token`, permisos: [] }, admin);
      return { usuarioId: usuario!.id, tokenId: creado.token!.id, token: creado.secreto };
    },
    async close() {
      client.close();
      await app.stop();
      await db.drop();
    },
  };
}
