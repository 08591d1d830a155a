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
    | 'UNAVAILABLE';
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
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

export class AlreadyExistsError extends DomainError {
  readonly code = 'ALREADY_EXISTS';
  constructor(message: string) {
    super(message);
    this.name = 'AlreadyExistsError';
  }
}

export class FailedPreconditionError extends DomainError {
  readonly code = 'FAILED_PRECONDITION';
  constructor(message: string) {
    super(message);
    this.name = 'FailedPreconditionError';
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
