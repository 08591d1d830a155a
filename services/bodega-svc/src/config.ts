import { loadServiceConfig, type ServiceConfig } from '@inventario/platform';

/**
 * bodega-svc's environment: the shared service contract of ARCHITECTURE §7
 * (platform's serviceConfigSchema), with gRPC on 50052 and metrics on 9102 by default.
 */
export const DEFAULT_GRPC_PORT = 50052;
/** The admin port of GET /metrics (ARCHITECTURE §7; distinct per service so all run on one host). */
export const DEFAULT_METRICS_PORT = 9102;

/** Validated settings of one bodega-svc process. */
export type Config = ServiceConfig;

/** Parses `env`; throws ConfigError listing every invalid variable. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  return loadServiceConfig(env, DEFAULT_GRPC_PORT, DEFAULT_METRICS_PORT);
}
