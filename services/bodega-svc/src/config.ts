import { ConfigError, envSchemas, loadServiceConfig, parseEnv, type ServiceConfig } from '@inventario/platform';
import { z } from 'zod';

/**
 * bodega-svc's environment: the shared service contract (platform's
 * serviceConfigSchema, docs/contract.md §8.3), with gRPC on 50052 and
 * metrics on 9102 by default, plus how often the stock is verified against
 * its ledger (§10.2).
 */
export const DEFAULT_GRPC_PORT = 50052;
/** The admin port of GET /metrics (distinct per service so all run on one host). */
export const DEFAULT_METRICS_PORT = 9102;

const ownSchema = z
  .object({
    // 0 turns the periodic check off (the endpoint still runs it on request).
    EXISTENCIAS_VERIFICACION_INTERVAL_MS: envSchemas.milliseconds(900_000),
  })
  .transform((env) => ({ existenciasVerificacionIntervalMs: env.EXISTENCIAS_VERIFICACION_INTERVAL_MS }));

/** Validated settings of one bodega-svc process. */
export type Config = ServiceConfig & z.infer<typeof ownSchema>;

/** Parses `env`; throws ConfigError listing every invalid variable, of both schemas. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const problems: string[] = [];
  function parsed<T>(parse: () => T): T | undefined {
    try {
      return parse();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems);
      return undefined;
    }
  }
  const shared = parsed(() => loadServiceConfig(env, DEFAULT_GRPC_PORT, DEFAULT_METRICS_PORT));
  const own = parsed(() => parseEnv(ownSchema, env));
  if (!shared || !own) throw new ConfigError(problems);
  return { ...shared, ...own };
}
