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
  return [
    {
      name: 'producto-svc',
      entry: path.join(root, 'services', 'producto-svc', 'dist', 'main.js'),
      env: { ...shared, DATABASE_URL: config.PRODUCTO_DATABASE_URL, GRPC_PORT: String(config.PRODUCTO_GRPC_PORT) },
      grpcAddress: `127.0.0.1:${config.PRODUCTO_GRPC_PORT}`,
      grpcPort: config.PRODUCTO_GRPC_PORT,
      grpcPortVariable: 'PRODUCTO_GRPC_PORT',
      summary: `gRPC 127.0.0.1:${config.PRODUCTO_GRPC_PORT} (inventario.v1.ProductoService) -> ${describeMysqlUrl(config.PRODUCTO_DATABASE_URL)}`,
    },
    {
      name: 'bodega-svc',
      entry: path.join(root, 'services', 'bodega-svc', 'dist', 'main.js'),
      env: { ...shared, DATABASE_URL: config.BODEGA_DATABASE_URL, GRPC_PORT: String(config.BODEGA_GRPC_PORT) },
      grpcAddress: `127.0.0.1:${config.BODEGA_GRPC_PORT}`,
      grpcPort: config.BODEGA_GRPC_PORT,
      grpcPortVariable: 'BODEGA_GRPC_PORT',
      summary: `gRPC 127.0.0.1:${config.BODEGA_GRPC_PORT} (inventario.v1.BodegaService) -> ${describeMysqlUrl(config.BODEGA_DATABASE_URL)}`,
    },
  ];
}
