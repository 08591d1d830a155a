import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import type { DomainError, FieldViolation } from '../errors';

/**
 * Trailing metadata key carrying the field violations of an INVALID_ARGUMENT
 * as JSON `[{campo, mensaje}]`, so the BFF can name every offending field.
 */
export const FIELD_VIOLATIONS_KEY = 'inventario-field-violations-bin';

const CODES: Record<DomainError['code'], status> = {
  INVALID_ARGUMENT: status.INVALID_ARGUMENT,
  NOT_FOUND: status.NOT_FOUND,
  ALREADY_EXISTS: status.ALREADY_EXISTS,
  FAILED_PRECONDITION: status.FAILED_PRECONDITION,
  UNAVAILABLE: status.UNAVAILABLE,
};

/** The gRPC status of a domain error: the one mapping of the services. */
export function domainErrorToStatus(err: DomainError): Partial<ServiceError> {
  const metadata = new Metadata();
  if ('violations' in err) {
    metadata.set(FIELD_VIOLATIONS_KEY, Buffer.from(JSON.stringify((err as { violations: FieldViolation[] }).violations)));
  }
  return { code: CODES[err.code], details: err.message, metadata };
}

/** Reads the field violations of a gRPC error, if it carries any. */
export function fieldViolationsOf(err: { metadata?: Metadata }): FieldViolation[] {
  const raw = err.metadata?.get(FIELD_VIOLATIONS_KEY)[0];
  if (!raw) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : raw);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter(
    (v): v is FieldViolation =>
      typeof v === 'object' && v !== null && typeof (v as FieldViolation).campo === 'string' && typeof (v as FieldViolation).mensaje === 'string',
  );
}

/** `OK`, `NOT_FOUND`... (grpc-js's status enum maps numbers back to names). */
export function grpcCodeName(code: number): string {
  return status[code] ?? String(code);
}
