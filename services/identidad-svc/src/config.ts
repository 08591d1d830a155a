import { createPrivateKey, type KeyObject } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { envSchemas, loadServiceConfigWith, type ServiceConfig } from '@inventario/platform';
import { esRol, NOMBRES_ROL, type Rol } from '@inventario/contract';
import { z } from 'zod';
import { leerToken } from './domain/token';
import { claveDeUsuario } from './domain/usuario';

/**
 * identidad-svc's environment (docs/contract.md §12.6): the shared service
 * contract (platform's serviceConfigSchema, §8.3) with gRPC on 50053 and
 * metrics on 9104 by default, plus the signing key of principals, the first
 * ADMIN, the password hashing bounds, token lifetimes and the audit trail's
 * windows. Secrets (the signing key, the bootstrap password) have no default.
 */
export const DEFAULT_GRPC_PORT = 50053;
/** The admin port of GET /metrics (distinct per service so all run on one host). */
export const DEFAULT_METRICS_PORT = 9104;

/** OWASP's Password Storage Cheat Sheet minimum for argon2id; the variables may only raise it. */
export const ARGON2_MINIMO = { memoryKib: 19_456, timeCost: 2, parallelism: 1 } as const;

function count(fallback: number, min: number, max: number) {
  return z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .default(fallback);
}

/** PEM (PKCS#8) of an Ed25519 private key; `\n` escapes are accepted for one-line environments. Never echoed. */
const signingKey = z.string().transform((value, ctx): KeyObject => {
  try {
    const key = createPrivateKey(value.includes('\\n') ? value.replaceAll('\\n', '\n') : value);
    if (key.asymmetricKeyType === 'ed25519') return key;
  } catch {
    // reported below, without the value
  }
  ctx.addIssue({
    code: 'custom',
    message: 'must be the PEM of an Ed25519 private key (openssl genpkey -algorithm ed25519)',
  });
  return z.NEVER;
});

/**
 * The internal callers' service accounts the deployment declares, each with its token
 * (`nombre:ROL=inv_<id>_<secret>`, comma-separated): identidad-svc makes them at start, so the services can
 * require a principal from the first install (docs/decisions.md, "Declared service tokens"). Never echoed.
 */
const tokensDeServicio = z.string().transform((value, ctx): CuentaDeServicio[] => {
  const cuentas: CuentaDeServicio[] = [];
  // Blank: nothing declared (the chart renders an empty key when no token is set).
  for (const [i, entrada] of (value.trim() === '' ? [] : value.split(',')).entries()) {
    const match = /^([^:=,\s]{1,100}):([A-Z]+)=(\S+)$/.exec(entrada.trim());
    const token = match ? leerToken(match[3]!) : undefined;
    if (!match || !token || !esRol(match[2]!)) {
      ctx.addIssue({
        code: 'custom',
        message: `entry ${i + 1} must be nombre:ROL=inv_<id>_<secret> (ROL one of ${NOMBRES_ROL.join(', ')})`,
      });
      return z.NEVER;
    }
    cuentas.push({ usuario: match[1]!, rol: match[2], tokenId: token.id, secreto: token.secreto });
  }
  const repetido = (clave: (c: CuentaDeServicio) => string | number) =>
    new Set(cuentas.map(clave)).size !== cuentas.length;
  if (repetido((c) => claveDeUsuario(c.usuario)) || repetido((c) => c.tokenId)) {
    ctx.addIssue({ code: 'custom', message: 'names and token ids must each appear once' });
    return z.NEVER;
  }
  return cuentas;
});

/** One declared internal caller: a SERVICIO user bound to `rol` everywhere, with the token `tokenId`. */
export interface CuentaDeServicio {
  usuario: string;
  rol: Rol;
  tokenId: number;
  secreto: string;
}

const ownSchema = z
  .object({
    PRINCIPAL_SIGNING_KEY: signingKey,
    // Short: a signed principal cannot be revoked before it expires (the BFF re-authenticates well before).
    PRINCIPAL_TTL_SECONDS: count(120, 10, 900),
    // The first ADMIN, created at start when no active ADMIN exists (the gateway's shared credential until now).
    BFF_USER: z.string().min(1).max(100).optional(),
    BFF_PASSWORD: z.string().min(1).max(1024).optional(),
    TOKENS_DE_SERVICIO: tokensDeServicio.optional(),
    // Concurrent argon2id computations (each ~19 MiB and a libuv thread), and how many may wait for one.
    KDF_CONCURRENCY: count(Math.max(1, availableParallelism()), 1, 64),
    KDF_QUEUE: count(64, 0, 100_000),
    ARGON2_MEMORY_KIB: count(ARGON2_MINIMO.memoryKib, ARGON2_MINIMO.memoryKib, 4 * 1024 * 1024),
    ARGON2_TIME_COST: count(ARGON2_MINIMO.timeCost, ARGON2_MINIMO.timeCost, 100),
    ARGON2_PARALLELISM: count(ARGON2_MINIMO.parallelism, ARGON2_MINIMO.parallelism, 16),
    VIGENCIA_DEFAULT_DIAS: count(30, 1, 3650),
    VIGENCIA_MAX_DIAS: count(90, 1, 3650),
    // Failed logins are counted per client address and window; one audit row per (address, window).
    AUTH_FALLOS_VENTANA_MS: envSchemas.milliseconds(300_000, 1000),
    // How often the chain head is published as inventario.auditoria.ancla (when it moved).
    AUDITORIA_ANCLA_INTERVAL_MS: envSchemas.milliseconds(3_600_000, 100),
  })
  .refine((env) => (env.BFF_USER === undefined) === (env.BFF_PASSWORD === undefined), {
    path: ['BFF_PASSWORD'],
    message: 'BFF_USER and BFF_PASSWORD go together: set both or neither',
  })
  .refine((env) => env.BFF_USER === undefined || !env.BFF_USER.includes(':'), {
    path: ['BFF_USER'],
    message: 'must not contain ":" (HTTP Basic)',
  })
  .refine((env) => env.VIGENCIA_DEFAULT_DIAS <= env.VIGENCIA_MAX_DIAS, {
    path: ['VIGENCIA_DEFAULT_DIAS'],
    message: 'must not exceed VIGENCIA_MAX_DIAS',
  })
  .transform((env) => ({
    principalSigningKey: env.PRINCIPAL_SIGNING_KEY,
    principalTtlSeconds: env.PRINCIPAL_TTL_SECONDS,
    bootstrapAdmin:
      env.BFF_USER !== undefined && env.BFF_PASSWORD !== undefined
        ? { usuario: env.BFF_USER, password: env.BFF_PASSWORD }
        : undefined,
    cuentasDeServicio: env.TOKENS_DE_SERVICIO ?? [],
    kdf: {
      concurrency: env.KDF_CONCURRENCY,
      queue: env.KDF_QUEUE,
      argon2: { memoryKib: env.ARGON2_MEMORY_KIB, timeCost: env.ARGON2_TIME_COST, parallelism: env.ARGON2_PARALLELISM },
    },
    tokenTtlDefaultDays: env.VIGENCIA_DEFAULT_DIAS,
    tokenTtlMaxDays: env.VIGENCIA_MAX_DIAS,
    authFallosVentanaMs: env.AUTH_FALLOS_VENTANA_MS,
    auditoriaAnclaIntervalMs: env.AUDITORIA_ANCLA_INTERVAL_MS,
  }));

/** Validated settings of one identidad-svc process. */
export type Config = ServiceConfig & z.infer<typeof ownSchema>;

/** Parses `env`; throws ConfigError listing every invalid variable, of both schemas. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  return loadServiceConfigWith(env, DEFAULT_GRPC_PORT, DEFAULT_METRICS_PORT, ownSchema);
}
