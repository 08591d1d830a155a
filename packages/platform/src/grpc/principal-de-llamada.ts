import { createHmac, randomBytes, type KeyObject } from 'node:crypto';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import {
  clavePublicaDeJwk,
  crearVerificador,
  PRINCIPAL_METADATA_KEY,
  PrincipalInvalidoError,
  type Principal,
  type Verificador,
} from '@inventario/contract';
import { IdentidadServiceClient } from '@inventario/proto';
import { z } from 'zod';
import { envSchemas } from '../config';
import { DEPENDENCIA_NO_DISPONIBLE, UnauthenticatedError, UnavailableError } from '../errors';
import type { Logger } from '../logger';

/**
 * Who calls producto-svc and bodega-svc (docs/contract.md §12.9): the BFF's
 * signed principal in `x-inventario-principal`, verified offline with
 * identidad-svc's public keys, or an internal caller's own API token in
 * `authorization: Bearer inv_<id>_<secret>`, verified by identidad-svc (which
 * answers a signed principal for it, verified the same way) and cached
 * briefly. Both services use this one check, so they accept and refuse the
 * same principals.
 */

/** The standard gRPC credential header; an internal caller's own token travels here. */
export const AUTHORIZATION_METADATA_KEY = 'authorization';

/** A verified caller: who, and the signed form its downstream calls forward. */
export interface PrincipalVerificado {
  principal: Principal;
  firmado: string;
}

/** What the services ask identidad-svc. */
export interface IdentidadParaServicios {
  /** The public keys principals are signed with (kid → key). */
  clavesPublicas(): Promise<Map<string, KeyObject>>;
  /** The signed principal of an API token; UnauthenticatedError when refused, UnavailableError when it cannot say. */
  autenticarToken(bearer: string, direccion: string): Promise<string>;
  close(): void;
}

/** How long a call to identidad-svc may take (below the BFF's 5 s deadline for the call it serves). */
const IDENTIDAD_DEADLINE_MS = 2000;

function noDisponible(err: unknown): UnavailableError {
  return new UnavailableError('identidad-svc no está disponible', {
    cause: err,
    reason: DEPENDENCIA_NO_DISPONIBLE,
    datos: { servicio: 'identidad-svc' },
  });
}

/** identidad-svc over gRPC at `address`. */
export function createIdentidadParaServicios(address: string): IdentidadParaServicios {
  const client = new IdentidadServiceClient(address, credentials.createInsecure());
  const deadline = () => ({ deadline: Date.now() + IDENTIDAD_DEADLINE_MS });
  return {
    clavesPublicas: () =>
      new Promise((resolve, reject) => {
        client.getClavesPublicas({}, new Metadata(), deadline(), (err, res) => {
          if (err) return reject(noDisponible(err));
          try {
            resolve(new Map(res.claves.map((jwk) => [jwk.kid, clavePublicaDeJwk(jwk)])));
          } catch (cause) {
            reject(noDisponible(cause));
          }
        });
      }),
    autenticarToken: (bearer, direccion) =>
      new Promise((resolve, reject) => {
        client.autenticar({ bearer, direccion }, new Metadata(), deadline(), (err: ServiceError | null, res) => {
          if (err?.code === status.UNAUTHENTICATED) return reject(new UnauthenticatedError('token no válido'));
          if (err) return reject(noDisponible(err));
          resolve(res.principalFirmado);
        });
      }),
    close: () => client.close(),
  };
}

export interface AutenticacionDeServicio {
  /**
   * The verified principal of a call's metadata; undefined for a call with
   * none when principals are not required (the legacy caller, trusted as
   * §7.4 says). A principal that is present but not valid is always refused.
   */
  autenticar(metadata: Metadata, direccion: string): Promise<PrincipalVerificado | undefined>;
}

export interface AutenticacionOptions {
  /** REQUIRE_PRINCIPAL: a call with no principal is UNAUTHENTICATED. */
  requerido: boolean;
  /** identidad-svc (IDENTIDAD_SVC_ADDR); without it nothing is verified and every call is the legacy caller. */
  identidad?: IdentidadParaServicios;
  /** How long a token identidad-svc accepted is trusted here (never beyond its signed principal). */
  tokenCacheMs: number;
  logger: Logger;
  /** Longest lifetime accepted for a signed principal (identidad-svc's PRINCIPAL_TTL_SECONDS may be up to 900). */
  maxTtlSeconds?: number;
}

/** A failed key fetch or an unknown kid asks identidad-svc again at most this often. */
const CLAVES_REFRESCO_MS = 10_000;
const TOKEN_CACHE_MAX = 1000;
/**
 * Signed principals kept verified per key set (crearVerificador's `recordar`): one per caller the BFF serves in a
 * minute is plenty; each is at most 8 KiB of text.
 */
const FIRMADOS_MAX = 1000;
/** A cached token is dropped this long before its signed principal expires, so a forwarded copy is still valid. */
const MARGEN_MS = 15_000;

const BEARER = /^Bearer\s+(\S+)$/i;

/** One check's state: identidad-svc's keys as last fetched, and the tokens it accepted lately. */
interface Verificacion {
  options: AutenticacionOptions;
  maxTtl: number;
  claves: Promise<Map<string, KeyObject>> | undefined;
  clavesPedidasEn: number;
  /** Tokens are keyed by an HMAC under a per-process random key: no secret sits in memory as text. */
  hmacKey: Buffer;
  tokens: Map<string, PrincipalVerificado & { hasta: number }>;
  /** The verifier of the keys last fetched, with the signed principals it accepted; replaced with the keys. */
  verificador: { claves: Map<string, KeyObject>; verificador: Verificador } | undefined;
}

function cargarClaves(estado: Verificacion, forzar: boolean): Promise<Map<string, KeyObject>> {
  const { identidad } = estado.options;
  if (!identidad) return Promise.reject(new UnauthenticatedError('este servicio no verifica principales'));
  const ahora = Date.now();
  if (!estado.claves || (forzar && ahora - estado.clavesPedidasEn >= CLAVES_REFRESCO_MS)) {
    estado.clavesPedidasEn = ahora;
    const pedido = identidad.clavesPublicas();
    // A failed fetch is not kept: the next call asks again.
    pedido.catch(() => {
      if (estado.claves === pedido) estado.claves = undefined;
    });
    estado.claves = pedido;
  }
  return estado.claves;
}

async function verificarFirmado(estado: Verificacion, token: string): Promise<Principal> {
  const intentar = async (forzar: boolean) => {
    const claves = await cargarClaves(estado, forzar);
    if (estado.verificador?.claves !== claves)
      estado.verificador = { claves, verificador: crearVerificador(claves, estado.maxTtl, FIRMADOS_MAX) };
    return estado.verificador.verificador.verificar(token);
  };
  try {
    try {
      return await intentar(false);
    } catch (err) {
      // A key rotation: a kid we do not know yet is worth one fresh look at identidad-svc's keys.
      if (err instanceof PrincipalInvalidoError && err.message.startsWith('unknown kid')) return await intentar(true);
      throw err;
    }
  } catch (err) {
    if (!(err instanceof PrincipalInvalidoError)) throw err;
    // Why is for the log; the caller learns only that it was refused.
    estado.options.logger.info({ reason: err.message }, 'signed principal refused');
    throw new UnauthenticatedError('el principal firmado no es válido');
  }
}

/** Keeps an accepted token for up to tokenCacheMs, never past MARGEN_MS before its signed principal expires. */
function guardarToken(estado: Verificacion, clave: string, verificado: PrincipalVerificado, ahora: number): void {
  // Verified, so its claims parse; only `exp` is read here.
  const payload = verificado.firmado.split('.')[1] ?? '';
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { exp: number };
  const expira = claims.exp * 1000;
  const hasta = Math.min(ahora + estado.options.tokenCacheMs, expira - MARGEN_MS);
  if (hasta > ahora) {
    if (estado.tokens.size >= TOKEN_CACHE_MAX) estado.tokens.delete(estado.tokens.keys().next().value!);
    estado.tokens.set(clave, { ...verificado, hasta });
  }
}

async function verificarToken(estado: Verificacion, bearer: string, direccion: string): Promise<PrincipalVerificado> {
  const { identidad } = estado.options;
  if (!identidad) throw new UnauthenticatedError('este servicio no verifica tokens');
  const clave = createHmac('sha256', estado.hmacKey).update(bearer).digest('base64url');
  const ahora = Date.now();
  const cached = estado.tokens.get(clave);
  if (cached && cached.hasta > ahora) return cached;
  estado.tokens.delete(clave);
  // Failures are never cached (a refused token costs identidad-svc a lookup, as at the gateway).
  const firmado = await identidad.autenticarToken(bearer, direccion);
  const principal = await verificarFirmado(estado, firmado);
  if (estado.options.tokenCacheMs > 0) guardarToken(estado, clave, { principal, firmado }, ahora);
  return { principal, firmado };
}

async function autenticar(
  estado: Verificacion,
  metadata: Metadata,
  direccion: string,
): Promise<PrincipalVerificado | undefined> {
  const { identidad, requerido } = estado.options;
  // Without identidad-svc nothing can be verified: the legacy trusted caller of §7.4, whatever it sends
  // (REQUIRE_PRINCIPAL=true always has identidad-svc, principalEnvRefinement).
  if (!identidad) return undefined;
  const firmado = metadata.get(PRINCIPAL_METADATA_KEY)[0];
  if (firmado !== undefined) {
    if (typeof firmado !== 'string' || firmado === '')
      throw new UnauthenticatedError('el principal firmado no es válido');
    return { principal: await verificarFirmado(estado, firmado), firmado };
  }
  const authorization = metadata.get(AUTHORIZATION_METADATA_KEY)[0];
  if (authorization !== undefined) {
    const bearer = typeof authorization === 'string' ? BEARER.exec(authorization.trim())?.[1] : undefined;
    if (bearer === undefined) throw new UnauthenticatedError('se esperaba authorization: Bearer inv_<id>_<secreto>');
    return verificarToken(estado, bearer, direccion);
  }
  if (requerido) throw new UnauthenticatedError('falta el principal (x-inventario-principal o authorization: Bearer)');
  return undefined;
}

export function createAutenticacionDeServicio(options: AutenticacionOptions): AutenticacionDeServicio {
  const estado: Verificacion = {
    options,
    maxTtl: options.maxTtlSeconds ?? 900,
    claves: undefined,
    clavesPedidasEn: 0,
    hmacKey: randomBytes(32),
    tokens: new Map(),
    verificador: undefined,
  };
  return { autenticar: (metadata, direccion) => autenticar(estado, metadata, direccion) };
}

/**
 * The credential of a call made while serving `caller`: its signed principal,
 * forwarded (the other service then acts for the same person), or, for the
 * service's own work (no principal), its own token.
 */
export function fijarCredencial(
  metadata: Metadata,
  caller: { principalFirmado?: string | undefined } | undefined,
  serviceToken: string | undefined,
): Metadata {
  if (caller?.principalFirmado !== undefined) metadata.set(PRINCIPAL_METADATA_KEY, caller.principalFirmado);
  else if (serviceToken !== undefined) metadata.set(AUTHORIZATION_METADATA_KEY, `Bearer ${serviceToken}`);
  return metadata;
}

/**
 * The metadata of a call a service makes for itself (the consumers, its
 * lookups of the other service's records): its own API token (SERVICE_TOKEN)
 * when it has one, so a service with REQUIRE_PRINCIPAL knows who asks.
 */
export function metadataDeServicio(serviceToken: string | undefined): () => Metadata {
  return () => fijarCredencial(new Metadata(), undefined, serviceToken);
}

/**
 * The variables of a service that checks its callers (docs/contract.md
 * §12.9), for its own config schema: REQUIRE_PRINCIPAL (default false, so a
 * deployment without identidad-svc keeps working), IDENTIDAD_SVC_ADDR (keys
 * and token checks), PRINCIPAL_TOKEN_CACHE_MS (how long an accepted token is
 * trusted, ≤ 60 s) and SERVICE_TOKEN (the service's own API token for the
 * calls it makes for itself; a secret, never defaulted).
 */
export const principalEnv = {
  REQUIRE_PRINCIPAL: envSchemas.flag(false),
  IDENTIDAD_SVC_ADDR: envSchemas.grpcAddress('127.0.0.1:50053').unwrap().optional(),
  PRINCIPAL_TOKEN_CACHE_MS: z
    .string()
    .regex(/^\d{1,6}$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .pipe(z.number().max(60_000, 'must be at most 60000'))
    .default(5000),
  SERVICE_TOKEN: z
    .string()
    .regex(/^inv_\d+_[A-Za-z0-9_-]+$/, 'must be an API token, inv_<id>_<secret>')
    .optional(),
};

/** REQUIRE_PRINCIPAL=true needs identidad-svc to verify with. */
export const principalEnvRefinement: [
  (env: { REQUIRE_PRINCIPAL: boolean; IDENTIDAD_SVC_ADDR?: string | undefined }) => boolean,
  { path: string[]; message: string },
] = [
  (env) => !env.REQUIRE_PRINCIPAL || env.IDENTIDAD_SVC_ADDR !== undefined,
  { path: ['IDENTIDAD_SVC_ADDR'], message: 'is required when REQUIRE_PRINCIPAL=true' },
];

/** The settings principalEnv parses to. */
export interface PrincipalConfig {
  requirePrincipal: boolean;
  identidadSvcAddr: string | undefined;
  principalTokenCacheMs: number;
  serviceToken: string | undefined;
}

export function principalConfigOf(env: {
  REQUIRE_PRINCIPAL: boolean;
  IDENTIDAD_SVC_ADDR?: string | undefined;
  PRINCIPAL_TOKEN_CACHE_MS: number;
  SERVICE_TOKEN?: string | undefined;
}): PrincipalConfig {
  return {
    requirePrincipal: env.REQUIRE_PRINCIPAL,
    identidadSvcAddr: env.IDENTIDAD_SVC_ADDR,
    principalTokenCacheMs: env.PRINCIPAL_TOKEN_CACHE_MS,
    serviceToken: env.SERVICE_TOKEN,
  };
}

/** The check of a service's callers from its config, and what to close at shutdown. */
export function autenticacionDeConfig(
  config: PrincipalConfig,
  logger: Logger,
): { autenticacion: AutenticacionDeServicio; close(): void } {
  const identidad =
    config.identidadSvcAddr !== undefined ? createIdentidadParaServicios(config.identidadSvcAddr) : undefined;
  return {
    autenticacion: createAutenticacionDeServicio({
      requerido: config.requirePrincipal,
      identidad,
      tokenCacheMs: config.principalTokenCacheMs,
      logger,
    }),
    close: () => identidad?.close(),
  };
}
