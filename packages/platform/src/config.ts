import { z } from 'zod';

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
  throw new ConfigError(
    result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`),
  );
}

/** A whole number written in plain decimal digits (no sign, exponent or hex). */
function wholeNumber(min: number, max: number, what: string) {
  return z
    .string()
    .regex(/^\d{1,15}$/, `must be ${what}`)
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
}

/** Reusable variable schemas, so every service spells its contract alike. */
export const envSchemas = {
  port: (fallback: number) => wholeNumber(0, 65535, 'a port number (0-65535)').default(fallback),
  natsUrl: () =>
    z
      .string()
      .regex(/^(nats|tls):\/\/[^\s,]+(,(nats|tls):\/\/[^\s,]+)*$/, 'must be nats://host:port (comma-separate several)')
      .default('nats://127.0.0.1:4222'),
  // No query string: createDb would ignore its options (e.g. ?ssl=...), so refuse them.
  mysqlUrl: () => z.string().regex(/^mysql:\/\/[^\s?#]+\/[A-Za-z0-9_]+$/, 'must be mysql://user[:password]@host[:port]/database'),
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
    z.string().regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, _ or -').default('INVENTARIO'),
  seconds: (fallback: number, min = 0, max = 30 * 24 * 3600) => wholeNumber(min, max, 'a duration in whole seconds').default(fallback),
  milliseconds: (fallback: number, min = 0) =>
    wholeNumber(min, 24 * 3600_000, 'a duration in whole milliseconds').default(fallback),
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
            ctx.addIssue({ code: 'custom', message: `address ${i + 1} is not an email address (comma-separate several)` });
          }
        });
      }),
};
