import { status, type ServiceError } from '@grpc/grpc-js';
import {
  AlreadyExistsError,
  currentVersionOf,
  DEPENDENCIA_NO_DISPONIBLE,
  errorDataOf,
  errorReasonOf,
  FailedPreconditionError,
  fieldViolationsOf,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  InvalidArgumentError,
  LockConflictError,
  NotFoundError,
  PermissionDeniedError,
  UnauthenticatedError,
  VersionMismatchError,
} from '@inventario/platform';
import {
  DeadlineExceededError,
  NoExisteError,
  PreconditionRequiredError,
  SentenciaDetenidaError,
  ServicioNoDisponibleError,
} from '../inventario/errors';

/**
 * The status codes that are the service's answer about the request, not a
 * sign that the service is unwell: a breaker must not count them as failures.
 */
export const DOMAIN_STATUS_CODES: ReadonlySet<number> = new Set([
  status.INVALID_ARGUMENT,
  status.NOT_FOUND,
  status.ALREADY_EXISTS,
  status.FAILED_PRECONDITION,
  // A version mismatch or an idempotency key in use: a conflict of this request, not ill health.
  status.ABORTED,
  // identidad-svc refusing a credential or a principal's right: an answer about the caller (issue 26).
  status.UNAUTHENTICATED,
  status.PERMISSION_DENIED,
]);

/** identidad-svc's answer when its password hashing queue is full: load shedding by design, not ill health. */
export const KDF_SATURADO = 'KDF_SATURADO';

/**
 * The outcomes a breaker does not count as failures: the domain answers
 * above (ABORTED includes a lock conflict, LOCK_CONFLICT), and
 * RESOURCE_EXHAUSTED: one message or statement too large for a limit on
 * its way (grpc-js' message size limits on either side, the database's
 * max_allowed_packet), or a statement the service's database stopped at
 * its time limit (reason STATEMENT_TIMEOUT, a 504). All are about one
 * request, not the service's health: a few expensive requests must not
 * open the breaker for everyone. Other RESOURCE_EXHAUSTED are a 500 to the client.
 */
export const NOT_BREAKER_FAILURES: ReadonlySet<number> = new Set([...DOMAIN_STATUS_CODES, status.RESOURCE_EXHAUSTED]);

/**
 * Whether a breaker in front of the service that answered `err` must let it pass: the outcomes
 * above, and an UNAVAILABLE about a service it depends on (reason DEPENDENCIA_NO_DISPONIBLE:
 * bodega-svc asking producto-svc about a product), which says nothing of its own health.
 */
export function isNotBreakerFailure(err: unknown): boolean {
  if (!isServiceError(err)) return false;
  if (NOT_BREAKER_FAILURES.has(err.code)) return true;
  const reason = errorReasonOf(err);
  return err.code === status.UNAVAILABLE && (reason === DEPENDENCIA_NO_DISPONIBLE || reason === KDF_SATURADO);
}

/** The public name of the idempotency key (the REST header) in errors about it. */
export const IDEMPOTENCY_KEY_CAMPO = 'Idempotency-Key';

/** opossum's rejection when the breaker is open (or half-open and already probing). */
const OPEN_BREAKER_CODE = 'EOPENBREAKER';

export function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === 'number' && 'metadata' in err;
}

export interface DownstreamErrorContext {
  /** e.g. `producto-svc`. */
  servicio: string;
  /** The Retry-After given when the service cannot answer now. */
  retryAfterSeconds: number;
}

/**
 * THE mapping from what a downstream call can fail with (a gRPC status, or
 * the breaker refusing the call) to the BFF's closed set of errors; the HTTP
 * and GraphQL edges only ever see the result. Codes outside the contract
 * (INTERNAL, UNKNOWN, ...) become a plain Error: a 500 with a log id, their
 * text stays in the log.
 */
export function toDomainError(err: unknown, context: DownstreamErrorContext): Error {
  const { servicio, retryAfterSeconds } = context;
  if (err instanceof Error && (err as { code?: unknown }).code === OPEN_BREAKER_CODE) {
    return new ServicioNoDisponibleError(servicio, retryAfterSeconds, { cause: err });
  }
  if (!isServiceError(err)) {
    return new Error(`${servicio}: unexpected failure of a downstream call`, { cause: err });
  }
  switch (err.code) {
    case status.INVALID_ARGUMENT: {
      if (errorReasonOf(err) === 'IDEMPOTENCY_KEY_REUSED') return new IdempotencyKeyReusedError(IDEMPOTENCY_KEY_CAMPO);
      const violations = fieldViolationsOf(err);
      return new InvalidArgumentError(
        violations.length > 0 ? violations : [{ campo: 'solicitud', mensaje: err.details }],
      );
    }
    case status.NOT_FOUND: {
      // The service named the request's fields whose record is missing (docs/contract.md §10.2).
      const violations = fieldViolationsOf(err);
      return violations.length > 0
        ? new NoExisteError(violations, errorReasonOf(err))
        : new NotFoundError(err.details, { reason: errorReasonOf(err) });
    }
    case status.ALREADY_EXISTS:
      return new AlreadyExistsError(err.details);
    case status.FAILED_PRECONDITION:
      if (errorReasonOf(err) === 'PRECONDITION_REQUIRED') return new PreconditionRequiredError(err.details);
      return new FailedPreconditionError(err.details, { reason: errorReasonOf(err), datos: errorDataOf(err) });
    case status.ABORTED:
      if (errorReasonOf(err) === 'VERSION_MISMATCH')
        return new VersionMismatchError(currentVersionOf(err) ?? null, err.details);
      if (errorReasonOf(err) === 'IDEMPOTENCY_KEY_IN_USE') return new IdempotencyKeyInUseError();
      if (errorReasonOf(err) === 'LOCK_CONFLICT') return new LockConflictError({ cause: err });
      return new Error(`${servicio} answered ABORTED: ${err.details}`, { cause: err });
    case status.UNAVAILABLE: {
      // The service is up but one it asks is not: name that one.
      const dependencia = errorReasonOf(err) === DEPENDENCIA_NO_DISPONIBLE ? errorDataOf(err).servicio : undefined;
      // A full hashing queue empties within a second or so: retrying sooner than the breaker's reset is right.
      const retry = errorReasonOf(err) === KDF_SATURADO ? 1 : retryAfterSeconds;
      return new ServicioNoDisponibleError(typeof dependencia === 'string' ? dependencia : servicio, retry, {
        cause: err,
      });
    }
    case status.RESOURCE_EXHAUSTED:
      if (errorReasonOf(err) === 'STATEMENT_TIMEOUT') return new SentenciaDetenidaError(servicio);
      return new Error(`${servicio} answered RESOURCE_EXHAUSTED: ${err.details}`, { cause: err });
    case status.DEADLINE_EXCEEDED:
      return new DeadlineExceededError(servicio);
    // The message never says which part of a credential failed; the edge answers its own fixed text.
    case status.UNAUTHENTICATED:
      return new UnauthenticatedError();
    case status.PERMISSION_DENIED:
      return new PermissionDeniedError(err.details, errorDataOf(err));
    default:
      return new Error(`${servicio} answered ${status[err.code] ?? err.code}: ${err.details}`, { cause: err });
  }
}
