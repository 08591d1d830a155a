import { loadServiceConfig, type ServiceConfig } from '@inventario/platform';

/**
 * bodega-svc's environment: the shared service contract of ARCHITECTURE §7
 * (platform's serviceConfigSchema), with gRPC on 50052 by default.
 */
export const DEFAULT_GRPC_PORT = 50052;

/** Validated settings of one bodega-svc process. */
export type Config = ServiceConfig;

/** Parses `env`; throws ConfigError listing every invalid variable. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  return loadServiceConfig(env, DEFAULT_GRPC_PORT);
}
