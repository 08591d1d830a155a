import { z } from 'zod';
import { parseMysqlHosts, parseMysqlUrl } from './db';

/** Thrown when the environment does not satisfy a service's schema. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses `env` against `schema` once, at start. Every problem is listed in one
 * error, each naming its variable, so a bad deployment fails with one line.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  // An empty variable (`GRPC_PORT=`) means "unset", never 0 or "".
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = schema.safeParse(present);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`));
}

/** A whole number written in plain decimal digits (no sign, exponent or hex). */
function wholeNumber(min: number, max: number, what: string) {
  return z
    .string()
    .regex(/^\d{1,15}$/, `must be ${what}`)
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
}

/**
 * Whether `value` is a URL, with one host or several, whose userinfo and path decode (what parseMysqlUrl and
 * parseMysqlHosts need).
 */
function parsesAsMysqlUrl(value: string): boolean {
  // Another scheme is the pattern's problem, reported once.
  if (!value.startsWith('mysql://')) return true;
  try {
    parseMysqlUrl(value);
    parseMysqlHosts(value);
    return true;
  } catch {
    return false;
  }
}

/** Reusable variable schemas, so every service spells its contract alike. */
export const envSchemas = {
  /**
   * A gRPC target: `host:port` (`127.0.0.1:50051`, `producto-svc:50051`,
   * `[::1]:50051`), or the same behind grpc-js' DNS resolver scheme,
   * `dns:///host:port` (e.g. a headless Service, one address per pod), or a
   * fixed list of addresses, grpc-js' `ipv4:10.0.0.1:50051,10.0.0.2:50051`
   * or `ipv6:[::1]:50051,[::2]:50051` (calls go round-robin over them too).
   */
  grpcAddress: (fallback: string) => {
    const hostPort = '(?:[A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+\\]):\\d{1,5}';
    const ipv4 = '\\d{1,3}(?:\\.\\d{1,3}){3}:\\d{1,5}';
    const ipv6 = '\\[[0-9A-Fa-f:.]+\\]:\\d{1,5}';
    const target = new RegExp(`^(?:(?:dns:///)?${hostPort}|ipv4:${ipv4}(?:,${ipv4})*|ipv6:${ipv6}(?:,${ipv6})*)$`);
    return z
      .string()
      .regex(target, 'must be host:port, dns:///host:port or ipv4:a.b.c.d:port,... (a fixed list)')
      .default(fallback);
  },
  port: (fallback: number) => wholeNumber(0, 65535, 'a port number (0-65535)').default(fallback),
  // Every server must parse as a URL here, at start, not later inside the client (whose error would carry it).
  natsUrl: () =>
    z
      .string()
      .regex(/^(nats|tls):\/\/[^\s,]+(,(nats|tls):\/\/[^\s,]+)*$/, 'must be nats://host:port (comma-separate several)')
      .refine(
        (value) => value.split(',').every((server) => URL.canParse(server)),
        'must be nats://host:port (comma-separate several)',
      )
      .default('nats://127.0.0.1:4222'),
  // No query string: createDb would ignore its options (e.g. ?ssl=...), so refuse them. A URL that
  // does not parse (a bad port, a stray %) is refused here too, with the variable named and never echoed.
  mysqlUrl: () =>
    z
      .string()
      .regex(
        /^mysql:\/\/[^\s?#]+\/[A-Za-z0-9_]+$/,
        'must be mysql://user[:password]@host[:port][,host[:port]...]/database',
      )
      .refine(
        parsesAsMysqlUrl,
        'must be mysql://user[:password]@host[:port][,host[:port]...]/database (ports up to 65535, ' +
          '%-escapes well formed)',
      ),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** NATS subject token(s): letters, digits, `_`, `-`, dots between tokens. */
  subjectPrefix: () =>
    z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be dot-separated subject tokens')
      .default('inventario'),
  /** The part before `.Inventario.` in every eventType (spec: `Service`). */
  eventTypeNamespace: () =>
    z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be dot-separated words')
      .default('Service'),
  streamName: () =>
    z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, _ or -')
      .default('INVENTARIO'),
  /**
   * NATS_STREAM_MAX_AGE_HOURS: how long the stream keeps events and dead
   * letters (30 days: past the notifier's 7-day sent registry, with time to
   * replay dead letters); 0 = no age limit.
   */
  streamMaxAgeHours: () => wholeNumber(0, 87_600, 'whole hours (0 = no limit)').default(720),
  /**
   * NATS_STREAM_MAX_BYTES (512 MiB), NATS_DLQ_MAX_BYTES: a stream's size cap;
   * a full stream refuses new messages; 0 = no cap. JetStream reserves it on
   * the server's storage when the stream is created, so it must fit there.
   */
  streamMaxBytes: (fallback = 512 * 1024 * 1024) =>
    wholeNumber(0, Number.MAX_SAFE_INTEGER, 'whole bytes (0 = no limit)')
      .refine((bytes) => bytes === 0 || bytes >= 1024 * 1024, 'must be 0 (no limit) or at least 1048576 (1 MiB)')
      .default(fallback),
  /**
   * NATS_STREAM_REPLICAS: copies JetStream keeps of the stream, the
   * notifier's KV bucket and the consumers (1 for one nats-server; 3 for a
   * three-node cluster, which then survives the loss of one node). At most 5,
   * JetStream's own limit, and never more than the cluster's nodes.
   */
  streamReplicas: () => wholeNumber(1, 5, 'a whole number of replicas (1-5)').default(1),
  seconds: (fallback: number, min = 0, max = 30 * 24 * 3600) =>
    wholeNumber(min, max, 'a duration in whole seconds').default(fallback),
  milliseconds: (fallback: number, min = 0) =>
    wholeNumber(min, 24 * 3600_000, 'a duration in whole milliseconds').default(fallback),
  /** A count or bound of a service's own (a pool's size, a limit), in plain decimal digits within [min, max]. */
  count: (fallback: number, min: number, max: number) => wholeNumber(min, max, 'a whole number').default(fallback),
  /** `true` or `false`, nothing else (a typo must not silently mean false). */
  flag: (fallback: boolean) =>
    z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .transform((value) => value === 'true')
      .default(fallback),
  /** `smtp://[user:password@]host[:port]` or `smtps://...`; never echoed (it may hold a password). */
  smtpUrl: () =>
    z.string().superRefine((value, ctx) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be smtp://[user:password@]host[:port] or smtps://...' });
        return;
      }
      if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
        ctx.addIssue({ code: 'custom', message: 'must start with smtp:// or smtps://' });
      } else if (url.hostname === '') {
        ctx.addIssue({ code: 'custom', message: 'must name a host' });
      }
    }),
  /** One email address or several, comma-separated (a team may share notifications). */
  emailList: () =>
    z
      .string()
      .transform((value) => value.split(',').map((address) => address.trim()))
      .superRefine((addresses, ctx) => {
        addresses.forEach((address, i) => {
          if (!z.email().safeParse(address).success) {
            ctx.addIssue({
              code: 'custom',
              message: `address ${i + 1} is not an email address (comma-separate several)`,
            });
          }
        });
      }),
};

/**
 * NATS credentials (a Secret's, never defaulted): a user and password the
 * server's authorization block knows; both unset connects without
 * authentication (a development server). Spread into a schema, then
 * checked with natsCredentialsTogether.
 */
export const natsCredentialsEnv = {
  NATS_USER: z.string().max(255).optional(),
  NATS_PASSWORD: z.string().max(1024).optional(),
};

/** A refinement (`.refine(...natsCredentialsTogether)`): NATS_USER and NATS_PASSWORD are set together or not at all. */
export const natsCredentialsTogether: [
  (env: { NATS_USER?: string; NATS_PASSWORD?: string }) => boolean,
  { path: string[]; message: string },
] = [
  (env) => (env.NATS_USER === undefined) === (env.NATS_PASSWORD === undefined),
  { path: ['NATS_PASSWORD'], message: 'NATS_USER and NATS_PASSWORD go together: set both or neither' },
];

/** How a service authenticates to NATS: user and password, or nothing. */
export type NatsCredentials = { user: string; pass: string } | undefined;

/** The credentials of a parsed environment (see natsCredentialsEnv). */
export function natsCredentialsOf(env: { NATS_USER?: string; NATS_PASSWORD?: string }): NatsCredentials {
  return env.NATS_USER !== undefined && env.NATS_PASSWORD !== undefined
    ? { user: env.NATS_USER, pass: env.NATS_PASSWORD }
    : undefined;
}

/**
 * The shared Basic credential (docs/contract.md §8.4, §12.6), BFF_USER and BFF_PASSWORD: the BFF's login without
 * identidad-svc, identidad-svc's first ADMIN. Both set, or none.
 */
export function bffCredentialOf(env: { BFF_USER?: string; BFF_PASSWORD?: string }) {
  return env.BFF_USER !== undefined && env.BFF_PASSWORD !== undefined
    ? { usuario: env.BFF_USER, password: env.BFF_PASSWORD }
    : undefined;
}
