import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { VersionMismatchError, type DomainError, type ErrorData, type FieldViolation } from '../errors';

/** Trailing metadata: an INVALID_ARGUMENT's violations as JSON `[{campo, mensaje}]`, so the BFF names every field. */
export const FIELD_VIOLATIONS_KEY = 'inventario-field-violations-bin';
export const ERROR_REASON_KEY = 'inventario-error-reason';
export const CURRENT_VERSION_KEY = 'inventario-current-version';
export const ERROR_DATA_KEY = 'inventario-error-data-bin';

const CODES: Record<DomainError['code'], status> = {
  INVALID_ARGUMENT: status.INVALID_ARGUMENT,
  NOT_FOUND: status.NOT_FOUND,
  ALREADY_EXISTS: status.ALREADY_EXISTS,
  FAILED_PRECONDITION: status.FAILED_PRECONDITION,
  ABORTED: status.ABORTED,
  RESOURCE_EXHAUSTED: status.RESOURCE_EXHAUSTED,
  UNAVAILABLE: status.UNAVAILABLE,
  UNAUTHENTICATED: status.UNAUTHENTICATED,
  PERMISSION_DENIED: status.PERMISSION_DENIED,
};

/** The services' one mapping of domain errors to gRPC status. */
export function domainErrorToStatus(err: DomainError): Partial<ServiceError> {
  const metadata = new Metadata();
  // An INVALID_ARGUMENT's bad fields, a NOT_FOUND's missing records.
  const violations = (err as { violations?: FieldViolation[] }).violations;
  if (violations && violations.length > 0) metadata.set(FIELD_VIOLATIONS_KEY, Buffer.from(JSON.stringify(violations)));
  if (err.reason !== undefined) metadata.set(ERROR_REASON_KEY, err.reason);
  if (err instanceof VersionMismatchError) metadata.set(CURRENT_VERSION_KEY, String(err.currentVersion));
  // A FailedPreconditionError's figures, a PermissionDeniedError's permission and warehouse.
  const datos = (err as { datos?: ErrorData }).datos;
  if (datos && Object.keys(datos).length > 0) {
    metadata.set(ERROR_DATA_KEY, Buffer.from(JSON.stringify(datos)));
  }
  return { code: CODES[err.code], details: err.message, metadata };
}

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
      typeof v === 'object' &&
      v !== null &&
      typeof (v as FieldViolation).campo === 'string' &&
      typeof (v as FieldViolation).mensaje === 'string',
  );
}

export function errorReasonOf(err: { metadata?: Metadata }): string | undefined {
  const raw = err.metadata?.get(ERROR_REASON_KEY)[0];
  return typeof raw === 'string' ? raw : undefined;
}

/** Only number, string and null values survive. */
export function errorDataOf(err: { metadata?: Metadata }): ErrorData {
  const raw = err.metadata?.get(ERROR_DATA_KEY)[0];
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : raw);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  const out: ErrorData = {};
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (value === null || typeof value === 'number' || typeof value === 'string') out[key] = value;
  }
  return out;
}

export function currentVersionOf(err: { metadata?: Metadata }): number | undefined {
  const raw = err.metadata?.get(CURRENT_VERSION_KEY)[0];
  return typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : undefined;
}

export function grpcCodeName(code: number): string {
  return status[code] ?? String(code);
}
