/**
 * The two mappings of the BFF, table-driven: gRPC status (or an open
 * breaker) to the closed set of errors, and that set to HTTP.
 */
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import {
  AlreadyExistsError,
  FailedPreconditionError,
  FIELD_VIOLATIONS_KEY,
  InvalidArgumentError,
  NotFoundError,
  UnavailableError,
} from '@inventario/platform';
import { toDomainError } from '../src/downstream/grpc-errors';
import { httpFailureOf } from '../src/http/error-middleware';
import { RequestBodyError, RouteNotFoundError, TooManyRequestsError, UnauthenticatedError } from '../src/http/http-errors';
import { BodegaConProductosError, DeadlineExceededError, ServicioNoDisponibleError } from '../src/inventario/errors';

function grpcError(code: status, details = 'detalle', metadata = new Metadata()): ServiceError {
  return Object.assign(new Error(details), { code, details, metadata });
}

const context = { servicio: 'producto-svc', retryAfterSeconds: 7 };

describe('toDomainError', () => {
  test.each([
    [status.NOT_FOUND, NotFoundError],
    [status.ALREADY_EXISTS, AlreadyExistsError],
    [status.FAILED_PRECONDITION, FailedPreconditionError],
    [status.INVALID_ARGUMENT, InvalidArgumentError],
    [status.UNAVAILABLE, ServicioNoDisponibleError],
    [status.DEADLINE_EXCEEDED, DeadlineExceededError],
  ])('gRPC code %d becomes %p', (code, type) => {
    expect(toDomainError(grpcError(code), context)).toBeInstanceOf(type);
  });

  test('INVALID_ARGUMENT carries the violations of the trailing metadata', () => {
    const metadata = new Metadata();
    metadata.set(FIELD_VIOLATIONS_KEY, Buffer.from(JSON.stringify([{ campo: 'precio', mensaje: 'no puede ser negativo' }])));
    const err = toDomainError(grpcError(status.INVALID_ARGUMENT, 'x', metadata), context);
    expect((err as InvalidArgumentError).violations).toEqual([{ campo: 'precio', mensaje: 'no puede ser negativo' }]);
  });

  test('an open breaker is ServicioNoDisponibleError with the reset time as Retry-After', () => {
    const open = Object.assign(new Error('Breaker is open'), { code: 'EOPENBREAKER' });
    const err = toDomainError(open, context);
    expect(err).toBeInstanceOf(ServicioNoDisponibleError);
    expect((err as ServicioNoDisponibleError).retryAfterSeconds).toBe(7);
  });

  test.each([status.INTERNAL, status.UNKNOWN, status.UNIMPLEMENTED, status.RESOURCE_EXHAUSTED])(
    'code %d is outside the contract: a plain Error (a 500)',
    (code) => {
      const err = toDomainError(grpcError(code, 'ER_SECRET'), context);
      expect(httpFailureOf(err)).toBeUndefined();
    },
  );
});

describe('httpFailureOf', () => {
  test.each([
    ['InvalidArgumentError', InvalidArgumentError.field('nombre', 'es obligatorio'), 400, 'VALIDATION_ERROR'],
    ['NotFoundError', new NotFoundError('no existe'), 404, 'NOT_FOUND'],
    ['RouteNotFoundError', new RouteNotFoundError('GET', '/x'), 404, 'NOT_FOUND'],
    ['AlreadyExistsError', new AlreadyExistsError('ya existe'), 409, 'ALREADY_EXISTS'],
    ['BodegaConProductosError', new BodegaConProductosError(4, []), 409, 'BODEGA_CON_PRODUCTOS'],
    ['FailedPreconditionError', new FailedPreconditionError('no'), 409, 'FAILED_PRECONDITION'],
    ['ServicioNoDisponibleError', new ServicioNoDisponibleError('bodega-svc', 3), 503, 'SERVICE_UNAVAILABLE'],
    ['UnavailableError', new UnavailableError('caído'), 503, 'SERVICE_UNAVAILABLE'],
    ['DeadlineExceededError', new DeadlineExceededError('bodega-svc'), 504, 'GATEWAY_TIMEOUT'],
    ['UnauthenticatedError', new UnauthenticatedError('no'), 401, 'UNAUTHORIZED'],
    ['TooManyRequestsError', new TooManyRequestsError(30), 429, 'TOO_MANY_REQUESTS'],
    ['RequestBodyError 415', new RequestBodyError(415, 'UNSUPPORTED_MEDIA_TYPE', 'no'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ["body-parser's entity.too.large", Object.assign(new Error('too large'), { type: 'entity.too.large', status: 413 }), 413, 'PAYLOAD_TOO_LARGE'],
    ["body-parser's entity.parse.failed", Object.assign(new Error('bad'), { type: 'entity.parse.failed', status: 400 }), 400, 'MALFORMED_JSON'],
    ["body-parser's charset.unsupported", Object.assign(new Error('latin9'), { type: 'charset.unsupported', status: 415 }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('%s is %d %s', (_name, err, httpStatus, code) => {
    const failure = httpFailureOf(err);
    expect(failure?.status).toBe(httpStatus);
    expect(failure?.body.error).toBe(code);
    expect(typeof failure?.body.mensaje).toBe('string');
  });

  test('Retry-After and WWW-Authenticate come with their statuses', () => {
    expect(httpFailureOf(new ServicioNoDisponibleError('bodega-svc', 3))?.headers).toEqual({ 'Retry-After': '3' });
    expect(httpFailureOf(new TooManyRequestsError(30))?.headers).toEqual({ 'Retry-After': '30' });
    expect(httpFailureOf(new UnauthenticatedError('no'))?.headers?.['WWW-Authenticate']).toMatch(/^Basic realm="inventario"/);
  });

  test('validation errors list their violations in detalles', () => {
    const err = new InvalidArgumentError([
      { campo: 'nombre', mensaje: 'es obligatorio' },
      { campo: 'precio', mensaje: 'no puede ser negativo' },
    ]);
    expect(httpFailureOf(err)?.body.detalles).toEqual(err.violations);
  });

  test('the safe-delete conflict carries the products and the id as a string', () => {
    const body = httpFailureOf(new BodegaConProductosError(12, []))?.body;
    expect(body).toEqual({ error: 'BODEGA_CON_PRODUCTOS', mensaje: expect.any(String), productos: [], bodegaId: '12' });
  });

  test('anything else is left to the 500 path', () => {
    expect(httpFailureOf(new TypeError('x is undefined'))).toBeUndefined();
    expect(httpFailureOf('a string')).toBeUndefined();
  });
});
