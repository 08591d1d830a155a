import * as path from 'node:path';
import { describeMysqlUrl } from '@inventario/platform';
import type { LauncherConfig } from './config';

/** One process the launcher runs. */
export interface ServiceSpec {
  name: string;
  /** Compiled entry point. */
  entry: string;
  env: Record<string, string>;
  /** gRPC address probed with grpc.health.v1 to know the service is ready. */
  grpcAddress: string;
  grpcPort: number;
  /** The launcher variable that sets the port, for error messages. */
  grpcPortVariable: string;
  /** What to print once it is ready. */
  summary: string;
}

const root = path.resolve(__dirname, '..', '..', '..');

/** The services and the environment each receives (ARCHITECTURE §7). */
export function serviceSpecs(config: LauncherConfig): ServiceSpec[] {
  const shared = {
    // Loopback only: the services have no authentication of their own.
    GRPC_HOST: '127.0.0.1',
    NATS_URL: config.NATS_URL,
    LOG_LEVEL: config.LOG_LEVEL,
    NATS_STREAM: config.NATS_STREAM,
    NATS_SUBJECT_PREFIX: config.NATS_SUBJECT_PREFIX,
    EVENT_TYPE_NAMESPACE: config.EVENT_TYPE_NAMESPACE,
  };
  /** A gRPC service on 127.0.0.1, with its database and the variables that set them. */
  const grpcService = (name: string, grpcService: string, databaseUrl: string, port: number, portVariable: string): ServiceSpec => ({
    name,
    entry: path.join(root, 'services', name, 'dist', 'main.js'),
    env: { ...shared, DATABASE_URL: databaseUrl, GRPC_PORT: String(port) },
    grpcAddress: `127.0.0.1:${port}`,
    grpcPort: port,
    grpcPortVariable: portVariable,
    summary: `gRPC 127.0.0.1:${port} (${grpcService}) -> ${describeMysqlUrl(databaseUrl)}`,
  });
  return [
    grpcService('producto-svc', 'inventario.v1.ProductoService', config.PRODUCTO_DATABASE_URL, config.PRODUCTO_GRPC_PORT, 'PRODUCTO_GRPC_PORT'),
    grpcService('bodega-svc', 'inventario.v1.BodegaService', config.BODEGA_DATABASE_URL, config.BODEGA_GRPC_PORT, 'BODEGA_GRPC_PORT'),
  ];
}
