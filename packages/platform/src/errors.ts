/** The closed set of domain errors, mapped once per transport. Messages are safe to show a client: never a driver message. */

/** `campo` is the public (camelCase) field name. */
export interface FieldViolation {
  campo: string;
  mensaje: string;
}

export abstract class DomainError extends Error {
  abstract readonly code: 'INVALID_ARGUMENT' | 'NOT_FOUND' | 'ALREADY_EXISTS' | 'FAILED_PRECONDITION' | 'ABORTED' | 'RESOURCE_EXHAUSTED' | 'UNAVAILABLE';
  /** Stable cause within the code (google.rpc.ErrorInfo `reason`): gRPC trailer, REST `error`. */
  readonly reason?: string;
}

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
  /** `reason` tells apart what is missing when a call names several things. */
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

export type ErrorData = Record<string, number | string | null>;

/** A rule, not the request's form, refuses it; `datos` are the figures a client acts on (REST 409 body fields). */
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

/** AIP-154: nothing was written. REST 412. */
export class VersionMismatchError extends DomainError {
  readonly code = 'ABORTED';
  override readonly reason = 'VERSION_MISMATCH';
  constructor(
    /** null when the record does not exist. */
    readonly currentVersion: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'VersionMismatchError';
  }

  static of(currentVersion: number, expectedVersion: number | '*'): VersionMismatchError {
    return new VersionMismatchError(currentVersion, `la versión actual es ${currentVersion}, no ${expectedVersion}`);
  }
}

/** The first request with the key is still executing; a retry gets its result. REST 409. */
export class IdempotencyKeyInUseError extends DomainError {
  readonly code = 'ABORTED';
  override readonly reason = 'IDEMPOTENCY_KEY_IN_USE';
  constructor() {
    super('otra petición con la misma clave de idempotencia se está ejecutando; reintente en unos instantes');
    this.name = 'IdempotencyKeyInUseError';
  }
}

/** A key reused for a different request is refused, never applied to it. REST 422. */
export class IdempotencyKeyReusedError extends InvalidArgumentError {
  override readonly reason = 'IDEMPOTENCY_KEY_REUSED';
  constructor(campo: string) {
    super([{ campo, mensaje: 'ya se usó con una petición distinta; use una clave nueva para cada operación' }]);
    this.name = 'IdempotencyKeyReusedError';
  }
}

/** The caller may retry. */
export class UnavailableError extends DomainError {
  readonly code = 'UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnavailableError';
  }
}

/** About one request's size (past max_allowed_packet), not the service's health: breakers must not count it. */
export class ResourceExhaustedError extends DomainError {
  readonly code = 'RESOURCE_EXHAUSTED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ResourceExhaustedError';
  }
}
