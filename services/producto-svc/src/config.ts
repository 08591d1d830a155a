import {
  envSchemas,
  loadServiceConfigWith,
  principalConfigOf,
  principalEnv,
  principalEnvRefinement,
  type ServiceConfig,
} from '@inventario/platform';
import { z } from 'zod';

/**
 * producto-svc's environment: the shared service contract of docs/contract.md
 * §8.2 and §8.3 (platform's serviceConfigSchema), with gRPC on 50051 and
 * metrics on 9101 by default, plus bodega-svc's address, which the
 * reconciliation asks before acting on a BodegaEliminada.
 */
export const DEFAULT_GRPC_PORT = 50051;
/** The admin port of GET /metrics (docs/contract.md §8.2; distinct per service so all run on one host). */
export const DEFAULT_METRICS_PORT = 9101;

const ownSchema = z
  .object({
    // Who may call (docs/contract.md §12.9): REQUIRE_PRINCIPAL, IDENTIDAD_SVC_ADDR, PRINCIPAL_TOKEN_CACHE_MS, SERVICE_TOKEN.
    ...principalEnv,
    // bodega-svc, asked whether a warehouse is really gone (GetBodega) before its products are unassigned.
    BODEGA_SVC_ADDR: envSchemas.grpcAddress('127.0.0.1:50052'),
  })
  .refine(...principalEnvRefinement)
  .transform((env) => ({
    ...principalConfigOf(env),
    bodegaSvcAddr: env.BODEGA_SVC_ADDR,
  }));

/** Validated settings of one producto-svc process. */
export type Config = ServiceConfig & z.infer<typeof ownSchema>;

/** Parses `env`; throws ConfigError listing every invalid variable, of both schemas. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  return loadServiceConfigWith(env, DEFAULT_GRPC_PORT, DEFAULT_METRICS_PORT, ownSchema);
}
