/**
 * The closed set of domain errors, mapped once per transport. Messages are safe to show a client: never a driver
 * message.
 */

/** `campo` is the public (camelCase) field name. */
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
    | 'UNAVAILABLE'
    | 'UNAUTHENTICATED'
    | 'PERMISSION_DENIED';
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
  /**
   * The request's fields whose record does not exist, each with its message (the REST 404's
   * `detalles`, docs/contract.md §10.2); empty when the error names no field.
   */
  readonly violations: FieldViolation[];
  /** `reason` tells apart what is missing when a call names several things. */
  constructor(message: string, options: { reason?: string; violations?: FieldViolation[] } = {}) {
    super(message);
    this.name = 'NotFoundError';
    this.reason = options.reason;
    this.violations = options.violations ?? [];
  }

  /** A 404 naming `violations` (at least one), its message theirs joined. */
  static campos(violations: FieldViolation[], reason?: string): NotFoundError {
    const text = violations.map((v) => v.mensaje).join('; ');
    return new NotFoundError(text.charAt(0).toUpperCase() + text.slice(1), { reason, violations });
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

/**
 * The caller may retry. Reason DEPENDENCIA_NO_DISPONIBLE: not this service but one it asks (named
 * in `datos.servicio`) could not answer, so a breaker in front of this service must not count it.
 */
export class UnavailableError extends DomainError {
  readonly code = 'UNAVAILABLE';
  override readonly reason?: string;
  readonly datos: ErrorData;
  constructor(message: string, options?: { cause?: unknown; reason?: string; datos?: ErrorData }) {
    super(message, options);
    this.name = 'UnavailableError';
    this.reason = options?.reason;
    this.datos = options?.datos ?? {};
  }
}

/** The reason of an UnavailableError about a service the one answering depends on. */
export const DEPENDENCIA_NO_DISPONIBLE = 'DEPENDENCIA_NO_DISPONIBLE';

/**
 * About one request's cost, not the service's health: breakers must not count it. Reasons: none
 * (past max_allowed_packet), STATEMENT_TIMEOUT (a statement the database stopped at its time limit,
 * DB_STATEMENT_TIMEOUT_MS; its transaction rolled back).
 */
export class ResourceExhaustedError extends DomainError {
  readonly code = 'RESOURCE_EXHAUSTED';
  override readonly reason?: string;
  constructor(message: string, options?: { cause?: unknown; reason?: string }) {
    super(message, options);
    this.name = 'ResourceExhaustedError';
    this.reason = options?.reason;
  }
}

/**
 * A write that waited too long for rows other writes held (a lock-wait timeout, or a deadlock
 * victim past its retries): it rolled back, and the same request may succeed a moment later.
 * About this request's contention, not the service's health. REST 409 + Retry-After.
 */
export class LockConflictError extends DomainError {
  readonly code = 'ABORTED';
  override readonly reason = 'LOCK_CONFLICT';
  constructor(options?: { cause?: unknown }) {
    super(
      'la operación esperó demasiado a otras escrituras de los mismos registros y no se aplicó; ' +
        'reintente en unos instantes',
      options,
    );
    this.name = 'LockConflictError';
  }
}

/** No valid credential or principal: the message never says which part failed (no user-existence oracle). */
export class UnauthenticatedError extends DomainError {
  readonly code = 'UNAUTHENTICATED';
  constructor(message = 'credenciales no válidas') {
    super(message);
    this.name = 'UnauthenticatedError';
  }
}

/** An authenticated caller lacks a permission; `datos` name it (`permiso`, `bodegaId`), the REST 403 body. */
export class PermissionDeniedError extends DomainError {
  readonly code = 'PERMISSION_DENIED';
  override readonly reason = 'FORBIDDEN';
  constructor(
    message: string,
    readonly datos: ErrorData = {},
  ) {
    super(message);
    this.name = 'PermissionDeniedError';
  }
}
