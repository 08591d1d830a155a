import { status, type ServiceError } from '@grpc/grpc-js';
import {
  AlreadyExistsError,
  currentVersionOf,
  errorDataOf,
  errorReasonOf,
  FailedPreconditionError,
  fieldViolationsOf,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  InvalidArgumentError,
  NotFoundError,
  VersionMismatchError,
} from '@inventario/platform';
import { DeadlineExceededError, ServicioNoDisponibleError } from '../inventario/errors';

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
]);

/**
 * The outcomes a breaker does not count as failures: the domain answers
 * above, and RESOURCE_EXHAUSTED, one message or statement too large for a
 * limit on its way (grpc-js' message size limits on either side, the
 * database's max_allowed_packet: ResourceExhaustedError). Both are about one
 * request, not the service's health: a few oversized requests must not
 * open the breaker for everyone. RESOURCE_EXHAUSTED is still a 500 to the client.
 */
export const NOT_BREAKER_FAILURES: ReadonlySet<number> = new Set([...DOMAIN_STATUS_CODES, status.RESOURCE_EXHAUSTED]);

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
      return new InvalidArgumentError(violations.length > 0 ? violations : [{ campo: 'solicitud', mensaje: err.details }]);
    }
    case status.NOT_FOUND:
      return new NotFoundError(err.details, { reason: errorReasonOf(err) });
    case status.ALREADY_EXISTS:
      return new AlreadyExistsError(err.details);
    case status.FAILED_PRECONDITION:
      return new FailedPreconditionError(err.details, { reason: errorReasonOf(err), datos: errorDataOf(err) });
    case status.ABORTED:
      if (errorReasonOf(err) === 'VERSION_MISMATCH') return new VersionMismatchError(currentVersionOf(err) ?? null, err.details);
      if (errorReasonOf(err) === 'IDEMPOTENCY_KEY_IN_USE') return new IdempotencyKeyInUseError();
      return new Error(`${servicio} answered ABORTED: ${err.details}`, { cause: err });
    case status.UNAVAILABLE:
      return new ServicioNoDisponibleError(servicio, retryAfterSeconds, { cause: err });
    case status.DEADLINE_EXCEEDED:
      return new DeadlineExceededError(servicio);
    default:
      return new Error(`${servicio} answered ${status[err.code] ?? err.code}: ${err.details}`, { cause: err });
  }
}
