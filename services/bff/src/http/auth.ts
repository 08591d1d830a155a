import { createHash, timingSafeEqual } from 'node:crypto';
import { permisosDe, type Principal } from '@inventario/contract';
import type { RequestHandler, Response } from 'express';
import type { Caller } from '../inventario/model';
import type { AuthFailureLimit } from './auth-failure-limit';
import { UnauthenticatedError } from './http-errors';

export interface Credentials {
  usuario: string;
  password: string;
}

export const AUTH_MENSAJES = {
  ausente: 'Se requiere autenticación HTTP Basic',
  malformada: 'La cabecera Authorization no es HTTP Basic válida',
  incorrecta: 'Usuario o contraseña incorrectos',
  bearerMalformado: 'La cabecera Authorization no es un token Bearer válido (inv_<id>_<secreto>)',
  tokenIncorrecto: 'Token no válido, caducado o revocado',
} as const;

export const CALLER_KEY = 'inventarioCaller';

/**
 * Without identidad-svc (IDENTIDAD_SVC_ADDR unset) the one shared credential
 * is what it always was: an ADMIN on every warehouse. Id 0 names no user of
 * identidad-svc; no signed principal travels downstream.
 */
export function principalCompartido(usuario: string): Principal {
  return {
    id: 0,
    usuario,
    tipo: 'HUMANO',
    metodoAuth: 'password',
    tokenId: null,
    credencialVersion: 0,
    permisos: permisosDe([{ rol: 'ADMIN', bodegaId: null }]),
  };
}

/** `Basic <token68>`; the scheme is case-insensitive (RFC 7617). */
const BASIC = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i;
/** W3C trace context: only a well-formed traceparent, and its tracestate, are passed downstream. */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;

/** The trace context is passed on with tracing off too. */
export function traceOf(
  headers: Record<string, string | string[] | undefined>,
): Pick<Caller, 'traceparent' | 'tracestate'> {
  const { traceparent, tracestate } = headers;
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return {};
  return typeof tracestate === 'string' && TRACESTATE.test(tracestate) ? { traceparent, tracestate } : { traceparent };
}

function authenticatedAs(principal: Principal, headers: Record<string, string | string[] | undefined>): Caller {
  return { usuario: principal.usuario, principal, ...traceOf(headers) };
}

export function parseBasic(header: string): Credentials | undefined {
  const match = BASIC.exec(header);
  if (!match?.[1] || match[1].length % 4 !== 0) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { usuario: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Constant time whatever the lengths: fixed-length digests are compared, and both comparisons always run. */
function credentialsMatch(given: Credentials, expected: { usuario: Buffer; password: Buffer }): boolean {
  const usuarioOk = timingSafeEqual(digest(given.usuario), expected.usuario);
  const passwordOk = timingSafeEqual(digest(given.password), expected.password);
  return usuarioOk && passwordOk;
}

/**
 * HTTP Basic authentication (docs/contract.md §3.3). Synchronous on purpose: the failure limit's
 * check and this request's count happen with no other request checked in between.
 */
export function createBasicAuth(credentials: Credentials, failures?: AuthFailureLimit): RequestHandler {
  const expected = { usuario: digest(credentials.usuario), password: digest(credentials.password) };
  // The header every client sends for this credential, as a digest: one hash and one constant-time comparison
  // recognise it, instead of parsing it and hashing each half (issue 26's cached read). Any other header, a valid
  // variant of it included (scheme case, spaces), takes the full check.
  const canonical = credentials.usuario.includes(':')
    ? undefined
    : digest(`Basic ${Buffer.from(`${credentials.usuario}:${credentials.password}`).toString('base64')}`);
  const principal = principalCompartido(credentials.usuario);
  return (req, res, next) => {
    const refused = failures?.refusal(req);
    if (refused) {
      next(refused);
      return;
    }
    const header = req.headers.authorization;
    if (header === undefined || header === '') {
      next(new UnauthenticatedError(AUTH_MENSAJES.ausente));
      return;
    }
    if (canonical && timingSafeEqual(digest(header), canonical)) {
      res.locals[CALLER_KEY] = authenticatedAs(principal, req.headers);
      next();
      return;
    }
    const given = parseBasic(header);
    if (!given || !credentialsMatch(given, expected)) {
      failures?.recordFailure(req);
      next(new UnauthenticatedError(given ? AUTH_MENSAJES.incorrecta : AUTH_MENSAJES.malformada));
      return;
    }
    res.locals[CALLER_KEY] = authenticatedAs(principal, req.headers);
    next();
  };
}

/** Undefined before (or without) authentication, e.g. for the request log. */
export function authenticatedCaller(res: Response): Caller | undefined {
  return res.locals[CALLER_KEY] as Caller | undefined;
}

export function callerOf(res: Response): Caller {
  const caller = authenticatedCaller(res);
  if (!caller) throw new Error('callerOf: the request did not pass the Basic-auth middleware');
  return caller;
}
