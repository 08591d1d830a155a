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
 * bodega-svc's environment: the shared service contract (platform's
 * serviceConfigSchema, docs/contract.md §8.3), with gRPC on 50052 and
 * metrics on 9102 by default, plus how often the stock is verified against
 * its ledger (§10.2) and producto-svc's address, which the reconciliation
 * asks before acting on a ProductoEliminado (§7.6).
 */
export const DEFAULT_GRPC_PORT = 50052;
/** The admin port of GET /metrics (distinct per service so all run on one host). */
export const DEFAULT_METRICS_PORT = 9102;

const ownSchema = z
  .object({
    // Who may call (docs/contract.md §12.9): REQUIRE_PRINCIPAL, IDENTIDAD_SVC_ADDR, PRINCIPAL_TOKEN_CACHE_MS, SERVICE_TOKEN.
    ...principalEnv,
    // 0 turns the periodic check off (the endpoint still runs it on request).
    EXISTENCIAS_VERIFICACION_INTERVAL_MS: envSchemas.milliseconds(900_000),
    // producto-svc, asked whether a product is really gone (GetProducto) before its stock is written out.
    PRODUCTO_SVC_ADDR: envSchemas.grpcAddress('127.0.0.1:50051'),
    // Reservations (docs/contract.md §13): a hold's default and longest life, and how often due ones are
    // recorded EXPIRADA with their event (correctness does not wait for it: a due hold never counts; 0: off).
    RESERVA_TTL_SECONDS: envSchemas.seconds(900, 1, 7 * 24 * 3600),
    RESERVA_TTL_MAX_SECONDS: envSchemas.seconds(7 * 24 * 3600, 1, 7 * 24 * 3600),
    RESERVA_BARRIDO_INTERVAL_MS: envSchemas.milliseconds(5_000),
  })
  .refine((env) => env.RESERVA_TTL_SECONDS <= env.RESERVA_TTL_MAX_SECONDS, {
    path: ['RESERVA_TTL_SECONDS'],
    message: 'must not exceed RESERVA_TTL_MAX_SECONDS',
  })
  .refine(...principalEnvRefinement)
  .transform((env) => ({
    ...principalConfigOf(env),
    existenciasVerificacionIntervalMs: env.EXISTENCIAS_VERIFICACION_INTERVAL_MS,
    productoSvcAddr: env.PRODUCTO_SVC_ADDR,
    reservas: { ttlPorDefectoSegundos: env.RESERVA_TTL_SECONDS, ttlMaximoSegundos: env.RESERVA_TTL_MAX_SECONDS },
    reservaBarridoIntervalMs: env.RESERVA_BARRIDO_INTERVAL_MS,
  }));

/** Validated settings of one bodega-svc process. */
export type Config = ServiceConfig & z.infer<typeof ownSchema>;

/** Parses `env`; throws ConfigError listing every invalid variable, of both schemas. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  return loadServiceConfigWith(env, DEFAULT_GRPC_PORT, DEFAULT_METRICS_PORT, ownSchema);
}
