import { UnauthenticatedError as CredencialRechazada } from '@inventario/platform';
import type { Request, RequestHandler } from 'express';
import { Counter, type Registry } from 'prom-client';
import type { Autenticacion, IdentidadClient } from '../downstream/identidad-client';
import { AUTH_MENSAJES, CALLER_KEY, parseBasic, traceOf } from '../http/auth';
import type { AuthFailureLimit, AuthSlot } from '../http/auth-failure-limit';
import { TooManyRequestsError, UnauthenticatedError } from '../http/http-errors';
import type { Caller } from '../inventario/model';
import type { Credencial, CredentialCache } from './credential-cache';
import type { UsuarioThrottle } from './usuario-throttle';

/**
 * `Bearer inv_<id>_<secret>`; the scheme is case-insensitive (RFC 6750 §2.1). The token's own checks are
 * identidad-svc's.
 */
const BEARER = /^bearer +(inv_[A-Za-z0-9_-]{1,200}) *$/i;
const BEARER_SCHEME = /^bearer(\s|$)/i;

export interface AuthMetrics {
  /** Verifications asked of identidad-svc by method and outcome (ok, rechazada, no_disponible). */
  verificaciones: Counter<'metodo' | 'resultado'>;
  /** Credential cache lookups: hit or miss. */
  cache: Counter<'resultado'>;
  /** Counts a lookup; added to `cache` when the metrics are read (a lookup is on every request's path). */
  lookup(resultado: 'hit' | 'miss'): void;
}

export function createAuthMetrics(registry: Registry): AuthMetrics {
  const verificaciones = new Counter({
    name: 'bff_auth_verificaciones_total',
    help:
      'Credentials the BFF asked identidad-svc to verify (a cache miss), by metodo (password, token) and ' +
      'resultado (ok, rechazada, no_disponible)',
    labelNames: ['metodo', 'resultado'],
    registers: [registry],
  });
  for (const metodo of ['password', 'token'])
    for (const resultado of ['ok', 'rechazada', 'no_disponible']) verificaciones.inc({ metodo, resultado }, 0);
  const pendientes = { hit: 0, miss: 0 };
  const cache = new Counter({
    name: 'bff_auth_cache_total',
    help: 'Verified-credential cache lookups by resultado (hit, miss)',
    labelNames: ['resultado'],
    registers: [registry],
    collect() {
      for (const resultado of ['hit', 'miss'] as const) {
        this.inc({ resultado }, pendientes[resultado]);
        pendientes[resultado] = 0;
      }
    },
  });
  for (const resultado of ['hit', 'miss']) cache.inc({ resultado }, 0);
  return { verificaciones, cache, lookup: (resultado) => void pendientes[resultado]++ };
}

export interface IdentityAuthDeps {
  identidad: IdentidadClient;
  cache: CredentialCache;
  /** The per-address failure limit (AUTH_FAILURES_PER_15_MIN); absent = none. */
  failures?: AuthFailureLimit;
  /** The per-user-name throttle; absent = none. */
  throttle?: UsuarioThrottle;
  metrics: AuthMetrics;
}

/** The client's address for identidad-svc's failure windows. */
const direccionDe = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'desconocida';

function credencialDe(header: string): Credencial | 'malformada' | 'bearerMalformado' {
  if (BEARER_SCHEME.test(header)) {
    const token = BEARER.exec(header)?.[1];
    return token ? { bearer: token } : 'bearerMalformado';
  }
  const basica = parseBasic(header);
  return basica ? { basica } : 'malformada';
}

/** Verifications in flight by credential key, each with the cache epoch it began in. */
type Compartidas = Map<string, { epoch: number; verificacion: Promise<Autenticacion> }>;

/** An admitted request's credential, and its user name when it is a password (a token has none). */
interface Admitida {
  credencial: Credencial;
  usuario: string | undefined;
}

/**
 * The checks before the cache, in the contract's order: the address's failure limit, a credential that
 * parses (a malformed one counts a failure), the name's throttle. Either the credential or the refusal.
 */
function admitir(req: Request, failures?: AuthFailureLimit, throttle?: UsuarioThrottle): Admitida | Error {
  const refused = failures?.refusal(req);
  if (refused) return refused;
  const header = req.headers.authorization;
  if (header === undefined || header === '') return new UnauthenticatedError(AUTH_MENSAJES.ausente);
  const credencial = credencialDe(header);
  if (typeof credencial === 'string') {
    failures?.recordFailure(req);
    return new UnauthenticatedError(AUTH_MENSAJES[credencial]);
  }
  const usuario = 'basica' in credencial ? credencial.basica.usuario : undefined;
  const throttled = usuario === undefined ? undefined : throttle?.admit(usuario);
  return throttled ?? { credencial, usuario };
}

/** The caller a verified credential stands for, with the request's trace. */
function callerDe(autenticacion: Autenticacion, trace: Pick<Caller, 'traceparent' | 'tracestate'>): Caller {
  const { principal } = autenticacion;
  return { usuario: principal.usuario, principal, principalFirmado: autenticacion.firmado, ...trace };
}

/** One verification by identidad-svc, counted by method and outcome. */
function verificar(
  deps: IdentityAuthDeps,
  req: Request,
  { credencial, usuario }: Admitida,
  trace: Pick<Caller, 'traceparent' | 'tracestate'>,
): Promise<Autenticacion> {
  const metodo = usuario === undefined ? 'token' : 'password';
  const verificacion = deps.identidad.autenticar(credencial, direccionDe(req), { usuario: 'bff', ...trace });
  verificacion.then(
    () => deps.metrics.verificaciones.inc({ metodo, resultado: 'ok' }),
    (err: unknown) =>
      deps.metrics.verificaciones.inc({
        metodo,
        resultado: err instanceof CredencialRechazada ? 'rechazada' : 'no_disponible',
      }),
  );
  return verificacion;
}

/**
 * The verification a cache miss waits for: one already in flight for the same credential within the same
 * cache epoch, else `verificar()`'s, registered for the next misses until it settles. Not shared while the
 * cache is bypassed, when every request is verified on its own.
 */
function verificacionCompartida(
  compartidas: Compartidas,
  cache: CredentialCache,
  key: string,
  epoch: number,
  verificar: () => Promise<Autenticacion>,
): Promise<Autenticacion> {
  if (cache.bypassed) return verificar();
  const enCurso = compartidas.get(key);
  if (enCurso?.epoch === epoch)
    // A refusal is not shared: each request verifies its own, so identidad-svc counts each failure by address.
    return enCurso.verificacion.catch((err: unknown) => {
      if (err instanceof CredencialRechazada) return verificar();
      throw err;
    });
  const verificacion = verificar();
  const entrada = { epoch, verificacion };
  compartidas.set(key, entrada);
  const olvidar = () => {
    if (compartidas.get(key) === entrada) compartidas.delete(key);
  };
  verificacion.then(olvidar, olvidar);
  return verificacion;
}

/**
 * Authentication through identidad-svc (docs/contract.md §3.3, §12): HTTP
 * Basic with each user's own password, or `Bearer inv_<id>_<secret>`. The
 * order is the contract: the address's failure limit (a slot in flight
 * counts), the name's throttle, the verified-credential cache, then a slot
 * reserved before identidad-svc verifies, so the limit stays exact with an
 * asynchronous check. Everything up to the reservation runs without an
 * await. A refused credential counts one failure; identidad-svc unable to
 * answer (503) counts none and gives the slot back.
 */
export function createIdentityAuth(deps: IdentityAuthDeps): RequestHandler {
  const { cache, failures, throttle, metrics } = deps;

  /**
   * Verifications in flight by credential key: the requests that miss the cache with one credential while its
   * verification runs wait for that one (a burst of one client at an entry's expiry costs one argon2id, not one per
   * request, and does not fill identidad-svc's hashing queue). Only within one cache epoch: a request that arrives
   * after an identity event never takes a verification that began before it.
   */
  const compartidas: Compartidas = new Map();

  return (req, res, next) => {
    const admitida = admitir(req, failures, throttle);
    if (admitida instanceof Error) {
      next(admitida);
      return;
    }
    const { usuario } = admitida;
    const trace = traceOf(req.headers);
    const key = cache.keyOf(admitida.credencial);
    const cached = cache.get(key);
    if (cached) {
      metrics.lookup('hit');
      res.locals[CALLER_KEY] = callerDe(cached, trace);
      next();
      return;
    }
    metrics.lookup('miss');
    const reserved = failures?.reserve(req);
    if (reserved instanceof TooManyRequestsError) {
      next(reserved);
      return;
    }
    const slot: AuthSlot | undefined = reserved;
    const epoch = cache.epoch;
    const verificacion = verificacionCompartida(compartidas, cache, key, epoch, () =>
      verificar(deps, req, admitida, trace),
    );
    verificacion.then(
      (autenticacion) => {
        slot?.release();
        cache.put(key, autenticacion, epoch);
        res.locals[CALLER_KEY] = callerDe(autenticacion, trace);
        next();
      },
      (err: unknown) => {
        if (err instanceof CredencialRechazada) {
          slot?.fail();
          if (usuario !== undefined) throttle?.recordFailure(usuario);
          next(
            new UnauthenticatedError(usuario === undefined ? AUTH_MENSAJES.tokenIncorrecto : AUTH_MENSAJES.incorrecta),
          );
          return;
        }
        slot?.release();
        next(err);
      },
    );
  };
}
