import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import {
  AlreadyExistsError,
  FailedPreconditionError,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  InvalidArgumentError,
  LockConflictError,
  NotFoundError,
  PermissionDeniedError,
  UnauthenticatedError as PrincipalRechazadoError,
  UnavailableError,
  VersionMismatchError,
  type FieldViolation,
  type Logger,
} from '@inventario/platform';
import {
  BodegaConProductosError,
  DeadlineExceededError,
  NoExisteError,
  PreconditionRequiredError,
  ServicioNoDisponibleError,
} from '../inventario/errors';
import {
  clientStatusOf,
  fromBodyParserError,
  RequestBodyError,
  RouteNotFoundError,
  TooManyRequestsError,
  UnauthenticatedError,
} from './http-errors';
import { productoJson, sendJson } from './rest-json';

/** The `error` codes of REST error bodies (docs/contract.md §3.2): stable, for clients to switch on. */
export const ERROR_CODES = {
  validation: 'VALIDATION_ERROR',
  badRequest: 'BAD_REQUEST',
  headersTooLarge: 'REQUEST_HEADERS_TOO_LARGE',
  requestTimeout: 'REQUEST_TIMEOUT',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  notFound: 'NOT_FOUND',
  alreadyExists: 'ALREADY_EXISTS',
  bodegaConProductos: 'BODEGA_CON_PRODUCTOS',
  failedPrecondition: 'FAILED_PRECONDITION',
  preconditionFailed: 'PRECONDITION_FAILED',
  preconditionRequired: 'PRECONDITION_REQUIRED',
  idempotencyKeyInUse: 'IDEMPOTENCY_KEY_IN_USE',
  lockConflict: 'LOCK_CONFLICT',
  idempotencyKeyReused: 'IDEMPOTENCY_KEY_REUSED',
  tooManyRequests: 'TOO_MANY_REQUESTS',
  serviceUnavailable: 'SERVICE_UNAVAILABLE',
  gatewayTimeout: 'GATEWAY_TIMEOUT',
  internal: 'INTERNAL_ERROR',
} as const;

/** docs/contract.md §3.3. */
export const WWW_AUTHENTICATE = 'Basic realm="inventario", charset="UTF-8"';

const DEFAULT_RETRY_AFTER_SECONDS = 5;
/** A write takes well under a second. */
const KEY_IN_USE_RETRY_AFTER_SECONDS = 1;

export interface ErrorBody {
  error: string;
  mensaje: string;
  detalles?: FieldViolation[];
  [extra: string]: unknown;
}

export interface HttpFailure {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
}

/**
 * THE mapping of the closed set of errors to HTTP (docs/contract.md §3.2), once for every route.
 * One style for every `mensaje` (§3.1): a Spanish sentence that starts with a capital letter,
 * whoever wrote it (a service's rule says "stock insuficiente ..." because GraphQL puts it after
 * its code, "STOCK_INSUFICIENTE: stock insuficiente ..."); `detalles` keep theirs, which follow a
 * field's name.
 */
export function httpFailureOf(err: unknown): HttpFailure | undefined {
  const failure = failureOf(err);
  if (!failure) return undefined;
  const { mensaje } = failure.body;
  return {
    ...failure,
    body: { ...failure.body, mensaje: mensaje.charAt(0).toLocaleUpperCase('es') + mensaje.slice(1) },
  };
}

// The groups are consecutive slices of one ordered list of checks: a subclass is tested before the
// class it extends, and that order must survive any regrouping.
function failureOf(err: unknown): HttpFailure | undefined {
  return (
    invalidOrMissingFailure(err) ??
    conditionFailure(err) ??
    availabilityFailure(err) ??
    accessFailure(err) ??
    requestFailure(err)
  );
}

/** 422, 400, 404 and 409 ALREADY_EXISTS: what the request names is malformed, absent or taken. */
function invalidOrMissingFailure(err: unknown): HttpFailure | undefined {
  // Before InvalidArgumentError, which it extends: the request is well formed, the key is not this request's.
  if (err instanceof IdempotencyKeyReusedError) {
    return {
      status: 422,
      body: {
        error: ERROR_CODES.idempotencyKeyReused,
        mensaje: `La clave de idempotencia ${err.violations[0]?.mensaje ?? ''}`,
        detalles: err.violations,
      },
    };
  }
  if (err instanceof InvalidArgumentError) {
    return {
      status: 400,
      body: { error: ERROR_CODES.validation, mensaje: `Datos no válidos: ${err.message}`, detalles: err.violations },
    };
  }
  if (err instanceof NoExisteError)
    return { status: 404, body: { error: ERROR_CODES.notFound, mensaje: err.message, detalles: err.detalles } };
  if (err instanceof NotFoundError) return { status: 404, body: { error: ERROR_CODES.notFound, mensaje: err.message } };
  if (err instanceof RouteNotFoundError)
    return { status: 404, body: { error: ERROR_CODES.notFound, mensaje: err.message } };
  if (err instanceof AlreadyExistsError)
    return { status: 409, body: { error: ERROR_CODES.alreadyExists, mensaje: err.message } };
  return undefined;
}

/** 409, 412 and 428: a rule, a version or a lock stands in the write's way. */
function conditionFailure(err: unknown): HttpFailure | undefined {
  // docs/contract.md §2.7.
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
    return {
      status: 409,
      body: { error: err.reason ?? ERROR_CODES.failedPrecondition, mensaje: err.message, ...err.datos },
    };
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
  if (err instanceof LockConflictError) {
    return {
      status: 409,
      body: { error: ERROR_CODES.lockConflict, mensaje: `Conflicto con otras escrituras: ${err.message}` },
      headers: { 'Retry-After': String(KEY_IN_USE_RETRY_AFTER_SECONDS) },
    };
  }
  if (err instanceof IdempotencyKeyInUseError) {
    return {
      status: 409,
      body: { error: ERROR_CODES.idempotencyKeyInUse, mensaje: `La clave de idempotencia está en uso: ${err.message}` },
      headers: { 'Retry-After': String(KEY_IN_USE_RETRY_AFTER_SECONDS) },
    };
  }
  return undefined;
}

/** 503 and 504: a service is down or too slow. */
function availabilityFailure(err: unknown): HttpFailure | undefined {
  if (err instanceof UnavailableError) {
    const retryAfter = err instanceof ServicioNoDisponibleError ? err.retryAfterSeconds : DEFAULT_RETRY_AFTER_SECONDS;
    return {
      status: 503,
      body: { error: ERROR_CODES.serviceUnavailable, mensaje: err.message },
      headers: { 'Retry-After': String(retryAfter) },
    };
  }
  if (err instanceof DeadlineExceededError)
    return { status: 504, body: { error: ERROR_CODES.gatewayTimeout, mensaje: err.message } };
  return undefined;
}

/** 401 and 403: who is calling, and what they may do. */
function accessFailure(err: unknown): HttpFailure | undefined {
  if (err instanceof UnauthenticatedError) {
    return {
      status: 401,
      body: { error: ERROR_CODES.unauthorized, mensaje: err.message },
      headers: { 'WWW-Authenticate': WWW_AUTHENTICATE },
    };
  }
  // A service refused the principal the BFF sent (expired while the request ran): authenticate again.
  if (err instanceof PrincipalRechazadoError) {
    return {
      status: 401,
      body: { error: ERROR_CODES.unauthorized, mensaje: err.message },
      headers: { 'WWW-Authenticate': WWW_AUTHENTICATE },
    };
  }
  // docs/contract.md §12: the permission, and the warehouse it is missing on, when one is.
  if (err instanceof PermissionDeniedError) {
    const { permiso, bodegaId } = err.datos;
    return {
      status: 403,
      body: {
        error: ERROR_CODES.forbidden,
        mensaje: err.message,
        ...(typeof permiso === 'string' ? { permiso } : {}),
        ...(typeof bodegaId === 'number' || typeof bodegaId === 'string' ? { bodegaId: String(bodegaId) } : {}),
      },
    };
  }
  return undefined;
}

/** 429, a body the parser refused, and any other client error a library raised. */
function requestFailure(err: unknown): HttpFailure | undefined {
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

const URL_MAL_CODIFICADA =
  'La ruta contiene una secuencia de escape % mal formada (se espera % seguido de dos dígitos ' +
  'hexadecimales de UTF-8 válido)';

function clientErrorText(err: unknown): string {
  if (err instanceof URIError) return URL_MAL_CODIFICADA;
  return 'La petición no es válida';
}

/** Anything unknown is a 500 whose body carries only a log id; the error itself goes to the log. */
export function createErrorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const failure = httpFailureOf(err);
    if (failure) {
      if (failure.status >= 500)
        logger.warn(
          { method: req.method, path: req.path, status: failure.status, err: (err as Error).message },
          'downstream failure',
        );
      for (const [name, value] of Object.entries(failure.headers ?? {})) res.setHeader(name, value);
      sendJson(res, failure.status, failure.body);
      return;
    }
    const logId = randomUUID();
    logger.error({ method: req.method, path: req.path, logId, err }, 'unexpected error');
    sendJson(res, 500, { error: ERROR_CODES.internal, mensaje: `Error interno (id de registro ${logId})` });
  };
}

/** Mount after every router, before the error middleware. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new RouteNotFoundError(req.method, req.path));
};
