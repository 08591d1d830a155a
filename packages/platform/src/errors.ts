/**
 * The closed set of domain errors. Domain and store code throw these; each
 * transport maps them exactly once (gRPC status in the services, HTTP status
 * in the BFF). Messages are safe to show to a client: never a driver message.
 */

/** One invalid field: `campo` is the public (camelCase) field name. */
export interface FieldViolation {
  campo: string;
  mensaje: string;
}

export abstract class DomainError extends Error {
  abstract readonly code:
    | 'INVALID_ARGUMENT'
    | 'NOT_FOUND'
    | 'ALREADY_EXISTS'
    | 'FAILED_PRECONDITION'
    | 'ABORTED'
    | 'RESOURCE_EXHAUSTED'
    | 'UNAVAILABLE';
  /**
   * A stable machine-readable cause within the code (google.rpc.ErrorInfo's
   * `reason`), for errors a client must tell apart: travels as gRPC
   * trailing metadata and becomes the REST `error` code.
   */
  readonly reason?: string;
}

/** The request is malformed; `violations` names every offending field. */
export class InvalidArgumentError extends DomainError {
  readonly code = 'INVALID_ARGUMENT';
  constructor(readonly violations: FieldViolation[]) {
    super(violations.map((v) => `${v.campo}: ${v.mensaje}`).join('; '));
    this.name = 'InvalidArgumentError';
  }

  static field(campo: string, mensaje: string): InvalidArgumentError {
    return new InvalidArgumentError([{ campo, mensaje }]);
  }
}

export class NotFoundError extends DomainError {
  readonly code = 'NOT_FOUND';
  override readonly reason?: string;
  /** `reason` tells apart what is missing when a call names several things (SIN_EXISTENCIAS: a level). */
  constructor(message: string, options: { reason?: string } = {}) {
    super(message);
    this.name = 'NotFoundError';
    this.reason = options.reason;
  }
}

export class AlreadyExistsError extends DomainError {
  readonly code = 'ALREADY_EXISTS';
  constructor(message: string) {
    super(message);
    this.name = 'AlreadyExistsError';
  }
}

/** Figures that explain a refusal to a client (CAPACIDAD_EXCEDIDA's capacidad, ocupacion, solicitado). */
export type ErrorData = Record<string, number | string | null>;

/**
 * The state of the system refuses the request (a rule, not its form). With
 * a `reason` (STOCK_INSUFICIENTE, CAPACIDAD_EXCEDIDA, ...) a client can act
 * on it, and `datos` give the figures; both travel as gRPC trailers and
 * become the REST 409's `error` and extra body fields.
 */
export class FailedPreconditionError extends DomainError {
  readonly code = 'FAILED_PRECONDITION';
  override readonly reason?: string;
  readonly datos: ErrorData;
  constructor(message: string, options: { reason?: string; datos?: ErrorData } = {}) {
    super(message);
    this.name = 'FailedPreconditionError';
    this.reason = options.reason;
    this.datos = options.datos ?? {};
  }
}

/**
 * A conditional write found another version than the one it was told to
 * expect (AIP-154: ABORTED); nothing was written. REST 412.
 */
export class VersionMismatchError extends DomainError {
  readonly code = 'ABORTED';
  override readonly reason = 'VERSION_MISMATCH';
  constructor(
    /** The stored version, which the client may re-read and retry against; null when the record does not exist. */
    readonly currentVersion: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'VersionMismatchError';
  }

  /** The stored version is not the expected one. */
  static of(currentVersion: number, expectedVersion: number | '*'): VersionMismatchError {
    return new VersionMismatchError(currentVersion, `la versión actual es ${currentVersion}, no ${expectedVersion}`);
  }
}

/**
 * A request with an idempotency key arrived while the first request with
 * that key is still executing (ABORTED); retry shortly to get its result. REST 409.
 */
export class IdempotencyKeyInUseError extends DomainError {
  readonly code = 'ABORTED';
  override readonly reason = 'IDEMPOTENCY_KEY_IN_USE';
  constructor() {
    super('otra petición con la misma clave de idempotencia se está ejecutando; reintente en unos instantes');
    this.name = 'IdempotencyKeyInUseError';
  }
}

/**
 * An idempotency key already used for a different request (method, target or
 * body): refused, never applied to the new one. REST 422.
 */
export class IdempotencyKeyReusedError extends InvalidArgumentError {
  override readonly reason = 'IDEMPOTENCY_KEY_REUSED';
  constructor(campo: string) {
    super([{ campo, mensaje: 'ya se usó con una petición distinta; use una clave nueva para cada operación' }]);
    this.name = 'IdempotencyKeyReusedError';
  }
}

/** A dependency (database, broker) cannot be reached; the caller may retry. */
export class UnavailableError extends DomainError {
  readonly code = 'UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnavailableError';
  }
}

/**
 * One request's data is too large for a limit on its way (a statement past
 * the database's max_allowed_packet): about this request's size, not the
 * service's health, so a breaker must not count it. Retrying the same
 * request fails the same way.
 */
export class ResourceExhaustedError extends DomainError {
  readonly code = 'RESOURCE_EXHAUSTED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ResourceExhaustedError';
  }
}
