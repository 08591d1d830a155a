import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import {
  AlreadyExistsError,
  FailedPreconditionError,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  InvalidArgumentError,
  NotFoundError,
  UnavailableError,
  VersionMismatchError,
  type FieldViolation,
  type Logger,
} from '@inventario/platform';
import { BodegaConProductosError, DeadlineExceededError, NoExisteError, PreconditionRequiredError, ServicioNoDisponibleError } from '../inventario/errors';
import { clientStatusOf, fromBodyParserError, RequestBodyError, RouteNotFoundError, TooManyRequestsError, UnauthenticatedError } from './http-errors';
import { productoJson, sendJson } from './rest-json';

/** The `error` codes of REST error bodies: stable, for clients to switch on. */
export const ERROR_CODES = {
  validation: 'VALIDATION_ERROR',
  /** A request the HTTP layer cannot take at all (a malformed URL or request line). */
  badRequest: 'BAD_REQUEST',
  /** The request line and headers together exceed Node's limit (16 KiB by default): 431. */
  headersTooLarge: 'REQUEST_HEADERS_TOO_LARGE',
  /** The request did not arrive completely in time: 408. */
  requestTimeout: 'REQUEST_TIMEOUT',
  unauthorized: 'UNAUTHORIZED',
  notFound: 'NOT_FOUND',
  alreadyExists: 'ALREADY_EXISTS',
  bodegaConProductos: 'BODEGA_CON_PRODUCTOS',
  failedPrecondition: 'FAILED_PRECONDITION',
  /** If-Match named another version than the stored one (or `*` a missing record): 412. */
  preconditionFailed: 'PRECONDITION_FAILED',
  /** A write that must be conditional came without If-Match (a count, AJUSTE): 428. */
  preconditionRequired: 'PRECONDITION_REQUIRED',
  /** The first request with this Idempotency-Key is still executing: 409 with Retry-After. */
  idempotencyKeyInUse: 'IDEMPOTENCY_KEY_IN_USE',
  /** This Idempotency-Key was used for a different request: 422. */
  idempotencyKeyReused: 'IDEMPOTENCY_KEY_REUSED',
  tooManyRequests: 'TOO_MANY_REQUESTS',
  serviceUnavailable: 'SERVICE_UNAVAILABLE',
  gatewayTimeout: 'GATEWAY_TIMEOUT',
  internal: 'INTERNAL_ERROR',
} as const;

/** The realm of the Basic challenge (docs/contract.md §3.3). */
export const WWW_AUTHENTICATE = 'Basic realm="inventario", charset="UTF-8"';

/** Retry-After of an UnavailableError that does not name its own. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;
/** Retry-After of an idempotency key in use: a write takes well under a second. */
const KEY_IN_USE_RETRY_AFTER_SECONDS = 1;

/** Every REST error body: `{error, mensaje, detalles?}` (plus the safe-delete conflict's own fields). */
export interface ErrorBody {
  error: string;
  mensaje: string;
  detalles?: FieldViolation[];
  [extra: string]: unknown;
}

/** An HTTP answer to a failure. */
export interface HttpFailure {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
}

/**
 * THE mapping of the closed set of errors to HTTP (docs/contract.md §3.2), once
 * for every route. Returns undefined for anything outside the set, which
 * the middleware answers as a 500 with a log id.
 */
export function httpFailureOf(err: unknown): HttpFailure | undefined {
  // Before InvalidArgumentError, which it extends: the request is well formed, the key is not this request's.
  if (err instanceof IdempotencyKeyReusedError) {
    return {
      status: 422,
      body: { error: ERROR_CODES.idempotencyKeyReused, mensaje: `La clave de idempotencia ${err.violations[0]?.mensaje ?? ''}`, detalles: err.violations },
    };
  }
  if (err instanceof InvalidArgumentError) {
    return {
      status: 400,
      body: { error: ERROR_CODES.validation, mensaje: `Datos no válidos: ${err.message}`, detalles: err.violations },
    };
  }
  // What the request named that does not exist, by field (docs/contract.md §10.2).
  if (err instanceof NoExisteError) return { status: 404, body: { error: ERROR_CODES.notFound, mensaje: err.message, detalles: err.detalles } };
  if (err instanceof NotFoundError) return { status: 404, body: { error: ERROR_CODES.notFound, mensaje: err.message } };
  if (err instanceof RouteNotFoundError) return { status: 404, body: { error: ERROR_CODES.notFound, mensaje: err.message } };
  if (err instanceof AlreadyExistsError) return { status: 409, body: { error: ERROR_CODES.alreadyExists, mensaje: err.message } };
  // The spec's conflict body: the products that hold the warehouse (the
  // first ones, bounded), its id as a string, and how many there are (added).
  if (err instanceof BodegaConProductosError) {
    return {
      status: 409,
      body: {
        error: ERROR_CODES.bodegaConProductos,
        mensaje: err.message,
        productos: err.productos.map(productoJson),
        bodegaId: String(err.bodegaId),
        totalProductos: err.total,
      },
    };
  }
  if (err instanceof FailedPreconditionError) {
    // A rule with a reason (STOCK_INSUFICIENTE, CAPACIDAD_EXCEDIDA, ...) is the code; its figures join the body.
    return { status: 409, body: { error: err.reason ?? ERROR_CODES.failedPrecondition, mensaje: err.message, ...err.datos } };
  }
  if (err instanceof VersionMismatchError) {
    const mensaje = `La condición If-Match no se cumple: ${err.message}`;
    return {
      status: 412,
      body: {
        error: ERROR_CODES.preconditionFailed,
        mensaje,
        detalles: [{ campo: 'If-Match', mensaje: err.message }],
        versionActual: err.currentVersion,
      },
    };
  }
  if (err instanceof PreconditionRequiredError) {
    return {
      status: 428,
      body: {
        error: ERROR_CODES.preconditionRequired,
        mensaje: `Falta la condición If-Match: ${err.message}`,
        detalles: [{ campo: 'If-Match', mensaje: err.message }],
      },
    };
  }
  if (err instanceof IdempotencyKeyInUseError) {
    return {
      status: 409,
      body: { error: ERROR_CODES.idempotencyKeyInUse, mensaje: `La clave de idempotencia está en uso: ${err.message}` },
      headers: { 'Retry-After': String(KEY_IN_USE_RETRY_AFTER_SECONDS) },
    };
  }
  if (err instanceof UnavailableError) {
    const retryAfter = err instanceof ServicioNoDisponibleError ? err.retryAfterSeconds : DEFAULT_RETRY_AFTER_SECONDS;
    return {
      status: 503,
      body: { error: ERROR_CODES.serviceUnavailable, mensaje: err.message },
      headers: { 'Retry-After': String(retryAfter) },
    };
  }
  if (err instanceof DeadlineExceededError) return { status: 504, body: { error: ERROR_CODES.gatewayTimeout, mensaje: err.message } };
  if (err instanceof UnauthenticatedError) {
    return {
      status: 401,
      body: { error: ERROR_CODES.unauthorized, mensaje: err.message },
      headers: { 'WWW-Authenticate': WWW_AUTHENTICATE },
    };
  }
  if (err instanceof TooManyRequestsError) {
    return {
      status: 429,
      body: { error: ERROR_CODES.tooManyRequests, mensaje: err.message },
      headers: { 'Retry-After': String(err.retryAfterSeconds) },
    };
  }
  const bodyError = err instanceof RequestBodyError ? err : fromBodyParserError(err);
  if (bodyError) return { status: bodyError.status, body: { error: bodyError.error, mensaje: bodyError.message } };
  // A client error a library raised that none of the above names (its own text is English and may echo input).
  const status = clientStatusOf(err);
  if (status !== undefined) return { status, body: { error: ERROR_CODES.badRequest, mensaje: clientErrorText(err) } };
  return undefined;
}

/** What the router's URIError means: a `%` in the path not followed by two hex digits of valid UTF-8. */
const URL_MAL_CODIFICADA = 'La ruta contiene una secuencia de escape % mal formada (se espera % seguido de dos dígitos hexadecimales de UTF-8 válido)';

/** The text of a library's client error: the router's undecodable path, or a generic one. */
function clientErrorText(err: unknown): string {
  if (err instanceof URIError) return URL_MAL_CODIFICADA;
  return 'La petición no es válida';
}

/**
 * The one error middleware of the app (REST, GraphQL and docs routers
 * share it): a known error gets its status and `{error, mensaje, detalles?}`;
 * anything else is a 500 whose body carries only a log id, the error itself
 * (stack, driver or downstream text) going to the log.
 */
export function createErrorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const failure = httpFailureOf(err);
    if (failure) {
      if (failure.status >= 500) logger.warn({ method: req.method, path: req.path, status: failure.status, err: (err as Error).message }, 'downstream failure');
      for (const [name, value] of Object.entries(failure.headers ?? {})) res.setHeader(name, value);
      sendJson(res, failure.status, failure.body);
      return;
    }
    const logId = randomUUID();
    logger.error({ method: req.method, path: req.path, logId, err }, 'unexpected error');
    sendJson(res, 500, { error: ERROR_CODES.internal, mensaje: `Error interno (id de registro ${logId})` });
  };
}

/** The JSON 404 for a path no router answers; mount after every router, before the error middleware. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new RouteNotFoundError(req.method, req.path));
};
