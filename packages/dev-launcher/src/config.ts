import { z } from 'zod';
import { envSchemas, parseEnv } from '@inventario/platform';

/**
 * The launcher's environment (ARCHITECTURE §7): what it passes through to the
 * services, with local development defaults. Secrets are never defaulted by
 * the services themselves; the launcher supplies dev values and says so.
 */
const port = (fallback: number) => envSchemas.port(fallback).refine((p) => p > 0, 'must be a fixed port (not 0)');

const schema = z
  .object({
    NATS_URL: envSchemas.natsUrl(),
    PRODUCTO_DATABASE_URL: envSchemas.mysqlUrl().default('mysql://root@127.0.0.1:3306/inventario_producto'),
    BODEGA_DATABASE_URL: envSchemas.mysqlUrl().default('mysql://root@127.0.0.1:3306/inventario_bodega'),
    PRODUCTO_GRPC_PORT: port(50051),
    BODEGA_GRPC_PORT: port(50052),
    LOG_LEVEL: envSchemas.logLevel(),
    NATS_STREAM: envSchemas.streamName(),
    NATS_SUBJECT_PREFIX: envSchemas.subjectPrefix(),
    EVENT_TYPE_NAMESPACE: envSchemas.eventTypeNamespace(),
    /** `json` prints the services' log lines untouched (for tools); `pretty` for people. */
    LAUNCHER_LOG_FORMAT: z.enum(['pretty', 'json']).default('pretty'),
  })
  .refine((c) => c.PRODUCTO_GRPC_PORT !== c.BODEGA_GRPC_PORT, {
    path: ['BODEGA_GRPC_PORT'],
    message: 'must differ from PRODUCTO_GRPC_PORT',
  })
  // Each service owns its database: sharing one would mix their outbox and migration tables.
  .refine((c) => c.PRODUCTO_DATABASE_URL !== c.BODEGA_DATABASE_URL, {
    path: ['BODEGA_DATABASE_URL'],
    message: 'must name another database than PRODUCTO_DATABASE_URL',
  });

export type LauncherConfig = z.infer<typeof schema>;

export function loadConfig(env: NodeJS.ProcessEnv): LauncherConfig {
  return parseEnv(schema, env);
}
