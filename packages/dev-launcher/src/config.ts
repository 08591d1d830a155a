import * as path from 'node:path';
import { z } from 'zod';
import { envSchemas, parseEnv } from '@inventario/platform';

/**
 * The launcher's environment (docs/contract.md §8.6): what it passes through to
 * the services, with local development defaults. Secrets are never defaulted by
 * the services themselves; the launcher supplies dev values and says so.
 */
/** The repository's .dev-data/ (this file runs from packages/dev-launcher/dist). */
export const DEFAULT_DATA_DIR = path.resolve(__dirname, '..', '..', '..', '.dev-data');

const port = (fallback: number) => envSchemas.port(fallback).refine((p) => p > 0, 'must be a fixed port (not 0)');

const schema = z
  .object({
    NATS_URL: envSchemas.natsUrl(),
    PRODUCTO_DATABASE_URL: envSchemas.mysqlUrl().default('mysql://root@127.0.0.1:3306/inventario_producto'),
    BODEGA_DATABASE_URL: envSchemas.mysqlUrl().default('mysql://root@127.0.0.1:3306/inventario_bodega'),
    IDENTIDAD_DATABASE_URL: envSchemas.mysqlUrl().default('mysql://root@127.0.0.1:3306/inventario_identidad'),
    PRODUCTO_GRPC_PORT: port(50051),
    BODEGA_GRPC_PORT: port(50052),
    IDENTIDAD_GRPC_PORT: port(50053),
    LOG_LEVEL: envSchemas.logLevel(),
    NATS_STREAM: envSchemas.streamName(),
    /**
     * Copies of the stream, bucket and consumers, passed to every service (1 for one nats-server; 3 for a three-node
     * cluster in NATS_URL).
     */
    NATS_STREAM_REPLICAS: envSchemas.streamReplicas(),
    NATS_SUBJECT_PREFIX: envSchemas.subjectPrefix(),
    EVENT_TYPE_NAMESPACE: envSchemas.eventTypeNamespace(),
    /** The BFF's public port (REST + GraphQL). */
    PORT: port(8080),
    /** Each service's METRICS_PORT (GET /metrics), the services' own defaults. */
    BFF_METRICS_PORT: port(9100),
    PRODUCTO_METRICS_PORT: port(9101),
    BODEGA_METRICS_PORT: port(9102),
    NOTIFIER_METRICS_PORT: port(9103),
    IDENTIDAD_METRICS_PORT: port(9104),
    /** Dev credentials: the BFF itself has no default; the launcher supplies admin/admin and says so. */
    BFF_USER: z.string().min(1).optional(),
    BFF_PASSWORD: z.string().min(1).optional(),
    /** Passed through when set (the BFF validates it); the BFF's default otherwise. */
    RATE_LIMIT_PER_MINUTE: z.string().optional(),
    /** `inicializarBaseDatos` is allowed locally unless turned off; it never runs by itself. */
    ENABLE_INIT: z.enum(['true', 'false']).default('true'),
    /**
     * The BFF's read cache is on locally (it follows the same stream as the services); passed on as written (the BFF
     * validates it).
     */
    READ_CACHE_MAX_ENTRIES: z.string().default('10000'),
    /** A real SMTP server; when unset the launcher runs a local mail catcher instead. */
    SMTP_URL: envSchemas.smtpUrl().optional(),
    SENDER_EMAIL: z.email('must be an email address').default('inventario@localhost.localdomain'),
    /** Passed on as written (the notifier reads the list itself); checked here so nothing starts with a bad one. */
    RECIPIENT_EMAIL: z
      .string()
      .default('almacen@localhost.localdomain')
      .refine(
        (value) => envSchemas.emailList().safeParse(value).success,
        'must be one email address or several, comma-separated',
      ),
    /** The mail catcher's SMTP and web inbox ports (only when SMTP_URL is unset). */
    MAIL_CATCHER_SMTP_PORT: port(1025),
    MAIL_CATCHER_WEB_PORT: port(1080),
    /**
     * Where the private MariaDB and NATS keep their data (`mariadb/`, `nats/`)
     * when the launcher runs them: the repository's git-ignored .dev-data/.
     */
    LAUNCHER_DATA_DIR: z
      .string()
      .default(DEFAULT_DATA_DIR)
      .transform((dir) => path.resolve(dir)),
    /** `json` prints the services' log lines untouched (for tools); `pretty` for people. */
    LAUNCHER_LOG_FORMAT: z.enum(['pretty', 'json']).default('pretty'),
  })
  .superRefine((c, ctx) => {
    // Every process gets its own port; the mail catcher's only matter when it runs.
    const ports: [string, number][] = [
      ['PRODUCTO_GRPC_PORT', c.PRODUCTO_GRPC_PORT],
      ['BODEGA_GRPC_PORT', c.BODEGA_GRPC_PORT],
      ['IDENTIDAD_GRPC_PORT', c.IDENTIDAD_GRPC_PORT],
      ['PORT', c.PORT],
      ['BFF_METRICS_PORT', c.BFF_METRICS_PORT],
      ['PRODUCTO_METRICS_PORT', c.PRODUCTO_METRICS_PORT],
      ['BODEGA_METRICS_PORT', c.BODEGA_METRICS_PORT],
      ['NOTIFIER_METRICS_PORT', c.NOTIFIER_METRICS_PORT],
      ['IDENTIDAD_METRICS_PORT', c.IDENTIDAD_METRICS_PORT],
      ...(c.SMTP_URL === undefined
        ? ([
            ['MAIL_CATCHER_SMTP_PORT', c.MAIL_CATCHER_SMTP_PORT],
            ['MAIL_CATCHER_WEB_PORT', c.MAIL_CATCHER_WEB_PORT],
          ] as [string, number][])
        : []),
    ];
    ports.forEach(([variable, value], i) => {
      const earlier = ports.slice(0, i).find(([, other]) => other === value);
      if (earlier)
        ctx.addIssue({
          code: 'custom',
          path: [variable],
          message: `must differ from ${earlier[0]} (both are ${value})`,
        });
    });
  })
  // Each service owns its database: sharing one would mix their outbox and migration tables.
  .refine((c) => c.PRODUCTO_DATABASE_URL !== c.BODEGA_DATABASE_URL, {
    path: ['BODEGA_DATABASE_URL'],
    message: 'must name another database than PRODUCTO_DATABASE_URL',
  })
  .refine(
    (c) => c.IDENTIDAD_DATABASE_URL !== c.PRODUCTO_DATABASE_URL && c.IDENTIDAD_DATABASE_URL !== c.BODEGA_DATABASE_URL,
    {
      path: ['IDENTIDAD_DATABASE_URL'],
      message: 'must name another database than PRODUCTO_DATABASE_URL and BODEGA_DATABASE_URL',
    },
  );

export type LauncherConfig = z.infer<typeof schema>;

export function loadConfig(env: NodeJS.ProcessEnv): LauncherConfig {
  return parseEnv(schema, env);
}
