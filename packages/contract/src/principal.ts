import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { type Donde, type Permisos } from './decidir';
import { esPermiso, type Permiso } from './permisos';

/**
 * Who is calling, as identidad-svc vouches for it, and the signed form in
 * which it travels from the BFF to the services (docs/decisions.md,
 * "The signed principal"). The services verify it offline with
 * identidad-svc's public key: a pod that can reach a service cannot forge
 * one, and no service ever holds the signing key.
 */

export type TipoUsuario = 'HUMANO' | 'SERVICIO';
/** How the principal proved itself: a password (Basic), an API token (Bearer), or the system's own work. */
export type MetodoAuth = 'password' | 'token' | 'system';

export interface Principal {
  /** The stable user id: audit rows and idempotency keys name this, never the (renamable) user name. */
  id: number;
  usuario: string;
  tipo: TipoUsuario;
  metodoAuth: MetodoAuth;
  /** The API token used, when `metodoAuth` is `token`. */
  tokenId: number | null;
  /** Changes on every password change, suspension or role change: a cached verification of an older one is void. */
  credencialVersion: number;
  /** Effective rights: the owner's bindings, and for a token its scope intersected with them. */
  permisos: Permisos;
}

/** The metadata key the BFF sends the signed principal under (phase 2 wires the services' check). */
export const PRINCIPAL_METADATA_KEY = 'x-inventario-principal';

const ISSUER = 'identidad-svc';
const AUDIENCE = 'inventario';
/** The only header we sign, and so the only one we accept: no algorithm choice is left to the token. */
const ALG = 'EdDSA';
/** Clock skew between identidad-svc and a verifying service that is tolerated, both ways. */
const LEEWAY_SECONDS = 5;
/** A token longer than this is refused unread (grpc-js' default metadata limit is 8 KiB). */
const MAX_LENGTH = 8 * 1024;

interface Claims {
  iss: string;
  aud: string;
  /** Principal id, decimal (JWT's `sub` is a string). */
  sub: string;
  usr: string;
  tip: TipoUsuario;
  met: MetodoAuth;
  tok?: number;
  cv: number;
  /** Permission → `'*'` or warehouse ids. */
  prm: Record<string, '*' | number[]>;
  iat: number;
  exp: number;
}

const b64 = (value: Buffer | string) => Buffer.from(value).toString('base64url');

/** RFC 7638 thumbprint of an Ed25519 public key: the `kid` of what it signs. */
export function kidDe(publicKey: KeyObject): string {
  const jwk = publicKey.export({ format: 'jwk' });
  return b64(
    createHash('sha256')
      .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }))
      .digest(),
  );
}

/** The public half as a JWK (with `kid`, `alg`, `use`), the form identidad-svc publishes its keys in. */
export function jwkPublica(publicKey: KeyObject): Record<string, string> {
  const jwk = publicKey.export({ format: 'jwk' });
  return { kty: String(jwk.kty), crv: String(jwk.crv), x: String(jwk.x), kid: kidDe(publicKey), alg: ALG, use: 'sig' };
}

/** An Ed25519 public key from its JWK; throws on anything else. */
export function clavePublicaDeJwk(jwk: { kty?: unknown; crv?: unknown; x?: unknown }): KeyObject {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string')
    throw new Error('not an Ed25519 public JWK');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
}

export interface Firmante {
  kid: string;
  /** A compact JWS (JWT) of `principal`, valid `ttlSeconds` from `now`. */
  firmar(principal: Principal, now?: Date): { token: string; expiraEn: Date };
}

/** Signs with an Ed25519 private key (identidad-svc's PRINCIPAL_SIGNING_KEY). */
export function crearFirmante(privateKey: KeyObject, ttlSeconds: number): Firmante {
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error('the principal signing key must be an Ed25519 private key');
  const kid = kidDe(createPublicKey(privateKey));
  const header = b64(JSON.stringify({ alg: ALG, kid, typ: 'JWT' }));
  return {
    kid,
    firmar(principal, now = new Date()) {
      const iat = Math.floor(now.getTime() / 1000);
      const claims: Claims = {
        iss: ISSUER,
        aud: AUDIENCE,
        sub: String(principal.id),
        usr: principal.usuario,
        tip: principal.tipo,
        met: principal.metodoAuth,
        ...(principal.tokenId !== null ? { tok: principal.tokenId } : {}),
        cv: principal.credencialVersion,
        prm: Object.fromEntries(
          [...principal.permisos].map(([p, donde]) => [p, donde === '*' ? '*' : [...donde].sort((a, b) => a - b)]),
        ),
        iat,
        exp: iat + ttlSeconds,
      };
      const input = `${header}.${b64(JSON.stringify(claims))}`;
      const signature = sign(null, Buffer.from(input), privateKey);
      return { token: `${input}.${b64(signature)}`, expiraEn: new Date(claims.exp * 1000) };
    },
  };
}

/** Why a signed principal was refused; the message is for logs, never for the caller. */
export class PrincipalInvalidoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrincipalInvalidoError';
  }
}

export interface Verificador {
  /** The principal a token vouches for; PrincipalInvalidoError when it is not one of ours, altered, or expired. */
  verificar(token: string, now?: Date): Principal;
}

/** What a verifier keeps of a token it accepted: the principal, and the lifetime it is checked against again. */
interface Aceptado {
  principal: Principal;
  iat: number;
  exp: number;
}

const caducado = (claims: { exp: number }, now: Date) =>
  claims.exp + LEEWAY_SECONDS <= Math.floor(now.getTime() / 1000);

/** The lifetime checks, run on every call, the kept tokens' included: time is the only input that changes. */
function enVigor(claims: { iat: number; exp: number }, now: Date): void {
  if (caducado(claims, now)) throw new PrincipalInvalidoError('expired');
  if (claims.iat - LEEWAY_SECONDS > Math.floor(now.getTime() / 1000))
    throw new PrincipalInvalidoError('issued in the future');
}

/**
 * Verifies offline against `claves` (kid → Ed25519 public key; several
 * during a key rotation). `maxTtlSeconds` refuses a token whose own
 * lifetime is longer, so a leaked signing configuration cannot mint
 * long-lived principals unnoticed.
 *
 * `recordar` > 0 keeps up to that many accepted tokens, by their exact text, so a token seen again skips the
 * signature check and the parsing (an Ed25519 verification is ~0.2 ms here, on every call a service serves; the BFF
 * forwards one signed copy per caller for up to a minute). What the signature vouched for cannot differ for the same
 * text under the same keys, and a verifier is bound to its keys (a new key set is a new verifier, with nothing kept);
 * the lifetime is checked again on every call. Refusals are never kept.
 */
export function crearVerificador(
  claves: ReadonlyMap<string, KeyObject>,
  maxTtlSeconds: number,
  recordar = 0,
): Verificador {
  const aceptados = new Map<string, Aceptado>();
  const verificarFirma = (token: string, now: Date): Aceptado => {
    if (token.length > MAX_LENGTH) throw new PrincipalInvalidoError('too long');
    const parts = token.split('.');
    if (parts.length !== 3) throw new PrincipalInvalidoError('not a compact JWS');
    const [headerText, payloadText, signatureText] = parts as [string, string, string];
    const header = parseJson(headerText) as { alg?: unknown; kid?: unknown; typ?: unknown } | undefined;
    if (!header || header.alg !== ALG || header.typ !== 'JWT' || typeof header.kid !== 'string')
      throw new PrincipalInvalidoError('unexpected header');
    const clave = claves.get(header.kid);
    if (!clave) throw new PrincipalInvalidoError(`unknown kid ${header.kid}`);
    if (!verify(null, Buffer.from(`${headerText}.${payloadText}`), clave, Buffer.from(signatureText, 'base64url'))) {
      throw new PrincipalInvalidoError('bad signature');
    }
    const claims = parseJson(payloadText) as Partial<Claims> | undefined;
    if (!claims || claims.iss !== ISSUER || claims.aud !== AUDIENCE)
      throw new PrincipalInvalidoError('wrong issuer or audience');
    if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number')
      throw new PrincipalInvalidoError('no lifetime');
    const { iat, exp } = claims;
    enVigor({ iat, exp }, now);
    if (exp - iat > maxTtlSeconds) throw new PrincipalInvalidoError('lifetime longer than allowed');
    return { principal: principalDe(claims), iat, exp };
  };
  return {
    verificar(token, now = new Date()) {
      const visto = aceptados.get(token);
      if (visto) {
        if (caducado(visto, now)) aceptados.delete(token);
        enVigor(visto, now);
        return visto.principal;
      }
      const aceptado = verificarFirma(token, now);
      if (recordar > 0) {
        // Oldest first out: insertion order.
        if (aceptados.size >= recordar) aceptados.delete(aceptados.keys().next().value!);
        aceptados.set(token, aceptado);
      }
      return aceptado.principal;
    },
  };
}

function parseJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

const POSITIVE = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0;

function principalDe(claims: Partial<Claims>): Principal {
  const id = Number(claims.sub);
  if (!POSITIVE(id) || String(id) !== claims.sub) throw new PrincipalInvalidoError('bad sub');
  if (typeof claims.usr !== 'string' || (claims.tip !== 'HUMANO' && claims.tip !== 'SERVICIO'))
    throw new PrincipalInvalidoError('bad user');
  if (claims.met !== 'password' && claims.met !== 'token' && claims.met !== 'system')
    throw new PrincipalInvalidoError('bad method');
  if (claims.tok !== undefined && !POSITIVE(claims.tok)) throw new PrincipalInvalidoError('bad token id');
  if (!Number.isInteger(claims.cv) || typeof claims.prm !== 'object' || claims.prm === null)
    throw new PrincipalInvalidoError('bad rights');
  const permisos = new Map<Permiso, Donde>();
  for (const [permiso, donde] of Object.entries(claims.prm)) {
    // A permission this build does not know is ignored: it can grant nothing here.
    if (!esPermiso(permiso)) continue;
    if (donde === '*') permisos.set(permiso, '*');
    else if (Array.isArray(donde) && donde.every(POSITIVE)) permisos.set(permiso, new Set(donde));
    else throw new PrincipalInvalidoError('bad rights');
  }
  return {
    id,
    usuario: claims.usr,
    tipo: claims.tip,
    metodoAuth: claims.met,
    tokenId: claims.tok ?? null,
    credencialVersion: claims.cv as number,
    permisos,
  };
}
