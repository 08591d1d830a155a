/**
 * Domain errors map to gRPC status once; INVALID_ARGUMENT carries its field
 * violations in trailing metadata, which survive the trip over the wire.
 */
import { Metadata, status } from '@grpc/grpc-js';
import {
  AlreadyExistsError,
  FailedPreconditionError,
  FIELD_VIOLATIONS_KEY,
  fieldViolationsOf,
  InvalidArgumentError,
  errorDataOf,
  errorReasonOf,
  NotFoundError,
  PermissionDeniedError,
  UnauthenticatedError,
  UnavailableError,
  type DomainError,
  type FieldViolation,
} from '@inventario/platform';
import { domainErrorToStatus } from '../src/grpc/status';

/** What the client sees: metadata serialised to HTTP/2 headers and read back. */
function overTheWire(metadata: Metadata): Metadata {
  return Metadata.fromHttp2Headers(metadata.toHttp2Headers() as Parameters<typeof Metadata.fromHttp2Headers>[0]);
}

describe('domainErrorToStatus', () => {
  it('sends a refused permission with reason FORBIDDEN and the permission and warehouse as data (the 403 body)', () => {
    const failure = domainErrorToStatus(
      new PermissionDeniedError('no puede', { permiso: 'existencias:mover', bodegaId: 3 }),
    );
    const metadata = overTheWire(failure.metadata!);
    expect(errorReasonOf({ metadata })).toBe('FORBIDDEN');
    expect(errorDataOf({ metadata })).toEqual({ permiso: 'existencias:mover', bodegaId: 3 });
  });

  it.each<[string, DomainError, status]>([
    ['InvalidArgumentError', InvalidArgumentError.field('nombre', 'es obligatorio'), status.INVALID_ARGUMENT],
    ['NotFoundError', new NotFoundError('producto 7 no existe'), status.NOT_FOUND],
    ['AlreadyExistsError', new AlreadyExistsError('la bodega Central ya existe'), status.ALREADY_EXISTS],
    ['FailedPreconditionError', new FailedPreconditionError('la bodega tiene productos'), status.FAILED_PRECONDITION],
    ['UnavailableError', new UnavailableError('database unavailable'), status.UNAVAILABLE],
    ['UnauthenticatedError', new UnauthenticatedError(), status.UNAUTHENTICATED],
    ['PermissionDeniedError', new PermissionDeniedError('falta un permiso'), status.PERMISSION_DENIED],
  ])('maps %s to its status code with the message as details', (_name, err, code) => {
    const result = domainErrorToStatus(err);
    expect(result.code).toBe(code);
    expect(result.details).toBe(err.message);
  });

  it.each<[string, DomainError]>([
    ['NotFoundError', new NotFoundError('x')],
    ['AlreadyExistsError', new AlreadyExistsError('x')],
    ['FailedPreconditionError', new FailedPreconditionError('x')],
    ['UnavailableError', new UnavailableError('x', { cause: new Error('ECONNREFUSED') })],
  ])('attaches no field violations to %s', (_name, err) => {
    const result = domainErrorToStatus(err);
    expect(result.metadata?.get(FIELD_VIOLATIONS_KEY)).toEqual([]);
    expect(fieldViolationsOf(result)).toEqual([]);
  });
});

describe('field violations round trip', () => {
  it.each<[string, FieldViolation[]]>([
    ['one field', [{ campo: 'nombre', mensaje: 'es obligatorio' }]],
    [
      'several fields, in order',
      [
        { campo: 'precio', mensaje: 'debe ser >= 0' },
        { campo: 'cantidadEnStock', mensaje: 'debe ser un entero' },
        { campo: 'bodegaId', mensaje: 'la bodega 9 no existe' },
      ],
    ],
    ['non-ASCII text', [{ campo: 'descripción', mensaje: 'máximo 255 caracteres: «ñandú»' }]],
  ])('carries %s to the client unchanged', (_name, violations) => {
    const err = new InvalidArgumentError(violations);
    const result = domainErrorToStatus(err);
    expect(fieldViolationsOf(result)).toEqual(violations);
    expect(fieldViolationsOf({ metadata: overTheWire(result.metadata!) })).toEqual(violations);
    expect(result.details).toBe(violations.map((v) => `${v.campo}: ${v.mensaje}`).join('; '));
  });

  it('reads no violations from an error without metadata', () => {
    expect(fieldViolationsOf({})).toEqual([]);
    expect(fieldViolationsOf({ metadata: new Metadata() })).toEqual([]);
  });

  it('reads no violations from metadata that is not JSON', () => {
    const metadata = new Metadata();
    metadata.set(FIELD_VIOLATIONS_KEY, Buffer.from('not json'));
    expect(fieldViolationsOf({ metadata })).toEqual([]);
  });
});
