/**
 * The two mappings of the BFF, table-driven: gRPC status (or an open
 * breaker) to the closed set of errors, and that set to HTTP; and the error
 * middleware's answer to anything outside the set.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import express from 'express';
import {
  AlreadyExistsError,
  FailedPreconditionError,
  FIELD_VIOLATIONS_KEY,
  InvalidArgumentError,
  NotFoundError,
  UnavailableError,
  type Logger,
} from '@inventario/platform';
import { toDomainError } from '../src/downstream/grpc-errors';
import { createErrorMiddleware, httpFailureOf } from '../src/http/error-middleware';
import {
  bodyReadFailure,
  RequestBodyError,
  RouteNotFoundError,
  TooManyRequestsError,
  UnauthenticatedError,
} from '../src/http/http-errors';
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
    metadata.set(
      FIELD_VIOLATIONS_KEY,
      Buffer.from(JSON.stringify([{ campo: 'precio', mensaje: 'no puede ser negativo' }])),
    );
    const err = toDomainError(grpcError(status.INVALID_ARGUMENT, 'x', metadata), context);
    expect((err as InvalidArgumentError).violations).toEqual([{ campo: 'precio', mensaje: 'no puede ser negativo' }]);
  });

  test('an open breaker is ServicioNoDisponibleError with the reset time as Retry-After', () => {
    const open = Object.assign(new Error('Breaker is open'), { code: 'EOPENBREAKER' });
    const err = toDomainError(open, context);
    expect(err).toBeInstanceOf(ServicioNoDisponibleError);
    expect((err as ServicioNoDisponibleError).retryAfterSeconds).toBe(7);
  });

  describe('a code outside the contract', () => {
    const logged: Record<string, unknown>[] = [];
    const logger = {
      error: (obj: Record<string, unknown>) => logged.push(obj),
      warn: () => undefined,
    } as unknown as Logger;
    let server: Server;
    let baseUrl: string;

    beforeAll(async () => {
      // The real error middleware behind a route that fails as a downstream call would.
      const app = express();
      app.get('/fallo/:code', (req) => {
        throw toDomainError(
          grpcError(Number(req.params.code), 'ER_SECRET: Access denied for user root@10.0.0.7'),
          context,
        );
      });
      app.use(createErrorMiddleware(logger));
      server = createServer(app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    test.each([status.INTERNAL, status.UNKNOWN, status.UNIMPLEMENTED, status.RESOURCE_EXHAUSTED])(
      'code %d answers 500 with only a log id: the internal text is logged under that id, never sent',
      async (code) => {
        logged.length = 0;
        const res = await fetch(`${baseUrl}/fallo/${code}`);
        const text = await res.text();
        expect(res.status).toBe(500);
        expect(JSON.parse(text)).toEqual({
          error: 'INTERNAL_ERROR',
          mensaje: expect.stringMatching(/^Error interno \(id de registro [0-9a-f-]{36}\)$/),
        });
        expect(text).not.toContain('ER_SECRET');
        expect(text).not.toContain('10.0.0.7');
        expect(text).not.toMatch(/\bat \S+ \(/);
        expect(logged).toHaveLength(1);
        expect(text).toContain(logged[0]!.logId as string);
        expect(String((logged[0]!.err as Error).message)).toContain('ER_SECRET');
      },
    );
  });
});

describe('httpFailureOf', () => {
  test.each([
    ['InvalidArgumentError', 400, 'VALIDATION_ERROR', InvalidArgumentError.field('nombre', 'es obligatorio')],
    ['NotFoundError', 404, 'NOT_FOUND', new NotFoundError('no existe')],
    ['RouteNotFoundError', 404, 'NOT_FOUND', new RouteNotFoundError('GET', '/x')],
    ['AlreadyExistsError', 409, 'ALREADY_EXISTS', new AlreadyExistsError('ya existe')],
    ['BodegaConProductosError', 409, 'BODEGA_CON_PRODUCTOS', new BodegaConProductosError(4, [])],
    ['FailedPreconditionError', 409, 'FAILED_PRECONDITION', new FailedPreconditionError('no')],
    ['ServicioNoDisponibleError', 503, 'SERVICE_UNAVAILABLE', new ServicioNoDisponibleError('bodega-svc', 3)],
    ['UnavailableError', 503, 'SERVICE_UNAVAILABLE', new UnavailableError('caído')],
    ['DeadlineExceededError', 504, 'GATEWAY_TIMEOUT', new DeadlineExceededError('bodega-svc')],
    ['UnauthenticatedError', 401, 'UNAUTHORIZED', new UnauthenticatedError('no')],
    ['TooManyRequestsError', 429, 'TOO_MANY_REQUESTS', new TooManyRequestsError(30)],
    ['RequestBodyError 415', 415, 'UNSUPPORTED_MEDIA_TYPE', new RequestBodyError(415, 'UNSUPPORTED_MEDIA_TYPE', 'no')],
    [
      "body-parser's entity.too.large",
      413,
      'PAYLOAD_TOO_LARGE',
      Object.assign(new Error('too large'), { type: 'entity.too.large', status: 413 }),
    ],
    [
      "body-parser's entity.parse.failed",
      400,
      'MALFORMED_JSON',
      Object.assign(new Error('bad'), { type: 'entity.parse.failed', status: 400 }),
    ],
    [
      "body-parser's charset.unsupported",
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      Object.assign(new Error('latin9'), { type: 'charset.unsupported', status: 415 }),
    ],
    [
      "body-parser's encoding.unsupported",
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      Object.assign(new Error('zstd'), { type: 'encoding.unsupported', status: 415 }),
    ],
    [
      "the router's undecodable path",
      400,
      'BAD_REQUEST',
      Object.assign(new URIError("Failed to decode param '%zz'"), { status: 400, expose: true }),
    ],
    [
      'any other exposed client error',
      416,
      'BAD_REQUEST',
      Object.assign(new Error('Range Not Satisfiable'), { status: 416, expose: true }),
    ],
  ])('%s is %d %s', (_name, httpStatus, code, err) => {
    const failure = httpFailureOf(err);
    expect(failure?.status).toBe(httpStatus);
    expect(failure?.body.error).toBe(code);
    expect(typeof failure?.body.mensaje).toBe('string');
  });

  test.each([
    [
      'a stock rule',
      new FailedPreconditionError('stock insuficiente del producto 2 en la bodega 1: hay 3, se piden 5', {
        reason: 'STOCK_INSUFICIENTE',
      }),
    ],
    [
      'a capacity rule',
      new FailedPreconditionError(
        'la bodega 1 no tiene capacidad: capacidad 10, ocupación 9, se piden 5 unidades más',
        { reason: 'CAPACIDAD_EXCEDIDA' },
      ),
    ],
    ["a service's not-found", new NotFoundError('no existe la bodega 4')],
    ['a taken name', new AlreadyExistsError('ya existe una bodega llamada "Norte"')],
  ])('%s: mensaje is a sentence with a capital first letter, its words unchanged', (_name, err) => {
    const mensaje = httpFailureOf(err)?.body.mensaje ?? '';
    expect(mensaje.charAt(0)).toBe(err.message.charAt(0).toUpperCase());
    expect(mensaje.slice(1)).toBe(err.message.slice(1));
  });

  test('Retry-After and WWW-Authenticate come with their statuses', () => {
    expect(httpFailureOf(new ServicioNoDisponibleError('bodega-svc', 3))?.headers).toEqual({ 'Retry-After': '3' });
    expect(httpFailureOf(new TooManyRequestsError(30))?.headers).toEqual({ 'Retry-After': '30' });
    expect(httpFailureOf(new UnauthenticatedError('no'))?.headers?.['WWW-Authenticate']).toMatch(
      /^Basic realm="inventario"/,
    );
  });

  test('validation errors list their violations in detalles', () => {
    const err = new InvalidArgumentError([
      { campo: 'nombre', mensaje: 'es obligatorio' },
      { campo: 'precio', mensaje: 'no puede ser negativo' },
    ]);
    expect(httpFailureOf(err)?.body.detalles).toEqual(err.violations);
  });

  test('the safe-delete conflict carries the products, the id as a string and how many products there are', () => {
    const body = httpFailureOf(new BodegaConProductosError(12, [], 340))?.body;
    expect(body).toEqual({
      error: 'BODEGA_CON_PRODUCTOS',
      mensaje: expect.stringContaining('340 producto(s)'),
      productos: [],
      bodegaId: '12',
      totalProductos: 340,
    });
  });

  test('anything else is left to the 500 path, a 5xx or unexposed status included', () => {
    expect(httpFailureOf(new TypeError('x is undefined'))).toBeUndefined();
    expect(httpFailureOf('a string')).toBeUndefined();
    expect(httpFailureOf(Object.assign(new Error('boom'), { status: 502, expose: false }))).toBeUndefined();
    expect(httpFailureOf(Object.assign(new Error('secret'), { status: 400, expose: false }))).toBeUndefined();
  });

  test("a library's client error never echoes the library's text", () => {
    const failure = httpFailureOf(
      Object.assign(new URIError("Failed to decode param '%zz'"), { status: 400, expose: true }),
    );
    expect(failure?.body.mensaje).not.toContain('Failed');
    expect(failure?.body.mensaje).toContain('%');
  });
});

describe('bodyReadFailure', () => {
  test.each([
    [
      "zlib's Z_DATA_ERROR (gzip that is not gzip)",
      400,
      'MALFORMED_JSON',
      Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR', status: 400, expose: true }),
    ],
    [
      'a brotli failure',
      400,
      'MALFORMED_JSON',
      Object.assign(new Error('Decompression failed'), {
        code: 'ERR__ERROR_FORMAT_PADDING_2',
        status: 400,
        expose: true,
      }),
    ],
    [
      "body-parser's entity.too.large",
      413,
      'PAYLOAD_TOO_LARGE',
      Object.assign(new Error('too large'), { type: 'entity.too.large', status: 413 }),
    ],
  ])('%s is %d %s', (_name, httpStatus, code, err) => {
    const failure = bodyReadFailure(err);
    expect(failure).toBeInstanceOf(RequestBodyError);
    expect([(failure as RequestBodyError).status, (failure as RequestBodyError).error]).toEqual([httpStatus, code]);
  });

  test("a failure that is not the client's (a 5xx, no status) is passed on unchanged, for the 500 path", () => {
    const bug = new TypeError('x is undefined');
    expect(bodyReadFailure(bug)).toBe(bug);
    const serverSide = Object.assign(new Error('stream.not.readable'), { status: 500 });
    expect(bodyReadFailure(serverSide)).toBe(serverSide);
  });
});
