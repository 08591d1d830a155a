import {
  AlreadyExistsError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  UnavailableError,
  type Logger,
} from '@inventario/platform';
import { GraphQLError, parse, Source } from 'graphql';
import { DeadlineExceededError, ServicioNoDisponibleError } from '../src/inventario/errors';
import { createErrorFormatter, CLASSIFICATION } from '../src/graphql/errors';

/** A logger that records what is logged at error level. */
function recordingLogger() {
  const errors: { obj: Record<string, unknown>; msg: string }[] = [];
  const logger = {
    error: (obj: Record<string, unknown>, msg: string) => errors.push({ obj, msg }),
  } as unknown as Logger;
  return { logger, errors };
}

/** The error graphql-js makes of a resolver's throw: located at a field, with the original error. */
function resolverError(original: Error): GraphQLError {
  return new GraphQLError(original.message, { path: ['producto'], originalError: original });
}

/** The error as the client receives it. */
interface ErrorJson {
  message: string;
  locations?: { line: number; column: number }[];
  path?: (string | number)[];
  extensions: Record<string, unknown>;
}

function json(err: Error): ErrorJson {
  return JSON.parse(JSON.stringify(err)) as ErrorJson;
}

describe('GraphQL error formatting', () => {
  it.each([
    [
      'InvalidArgumentError',
      InvalidArgumentError.field('id', 'debe ser un entero positivo'),
      'ValidationError',
      'id: debe ser un entero positivo',
    ],
    ['NotFoundError', new NotFoundError('Producto 9 no encontrado'), 'NOT_FOUND', 'Producto 9 no encontrado'],
    [
      'AlreadyExistsError',
      new AlreadyExistsError('Ya existe una bodega con ese nombre'),
      'CONFLICT',
      'Ya existe una bodega con ese nombre',
    ],
    ['FailedPreconditionError', new FailedPreconditionError('No se puede'), 'CONFLICT', 'No se puede'],
    [
      'UnavailableError',
      new UnavailableError('La base de datos no responde'),
      'UNAVAILABLE',
      'La base de datos no responde',
    ],
    [
      'DeadlineExceededError',
      new DeadlineExceededError('producto-svc'),
      'DEADLINE_EXCEEDED',
      'El servicio producto-svc no respondió a tiempo',
    ],
  ])('a resolver %s keeps its message and is classified %s', (_name, original, classification, message) => {
    const { logger, errors } = recordingLogger();
    const formatted = json(createErrorFormatter(logger)(resolverError(original)));
    expect(formatted).toMatchObject({ message, path: ['producto'], extensions: { classification } });
    expect(errors).toEqual([]);
  });

  it('an open breaker is UNAVAILABLE and says when to retry', () => {
    const { logger } = recordingLogger();
    const formatted = json(
      createErrorFormatter(logger)(resolverError(new ServicioNoDisponibleError('bodega-svc', 10))),
    );
    expect(formatted.extensions).toEqual({ classification: 'UNAVAILABLE', retryAfterSeconds: 10 });
    expect(formatted.message).toContain('bodega-svc');
  });

  it('an unexpected failure shows only a log id, and the real error is logged under that id', () => {
    const { logger, errors } = recordingLogger();
    const secret = new Error('ER_ACCESS_DENIED_ERROR: Access denied for user root@10.0.0.7');
    const formatted = json(createErrorFormatter(logger)(resolverError(secret)));

    expect(formatted.extensions.classification).toBe(CLASSIFICATION.internal);
    expect(formatted.message).toMatch(/^Error interno \(id de registro [0-9a-f-]{36}\)$/);
    expect(JSON.stringify(formatted)).not.toContain('ER_ACCESS_DENIED');
    expect(JSON.stringify(formatted)).not.toContain('stack');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.obj.err).toBe(secret);
    expect(formatted.message).toContain(errors[0]!.obj.logId as string);
  });

  it('an error raised during execution without an original error (a bug such as a null for a non-null field) is internal', () => {
    const { logger, errors } = recordingLogger();
    const err = new GraphQLError('Cannot return null for non-nullable field Query.productos.', { path: ['productos'] });
    expect(json(createErrorFormatter(logger)(err)).extensions.classification).toBe('INTERNAL_ERROR');
    expect(errors).toHaveLength(1);
  });

  it('an error raised before execution (a variable value that does not coerce) is a ValidationError with its locations', () => {
    const { logger } = recordingLogger();
    const document = parse('query ($id: ID!) { producto(id: $id) { id } }');
    const operation = document.definitions[0]!;
    const variable = 'variableDefinitions' in operation ? operation.variableDefinitions![0] : undefined;
    const err = new GraphQLError('Variable "$id" of non-null type "ID!" must not be null.', { nodes: variable });
    expect(json(createErrorFormatter(logger)(err))).toMatchObject({
      locations: [{ line: 1, column: 8 }],
      extensions: { classification: 'ValidationError' },
    });

    const coercion = new GraphQLError('Variable "$id" got invalid value []; ID cannot represent value: []', {
      nodes: variable,
      originalError: new GraphQLError('ID cannot represent value: []'),
    });
    expect(json(createErrorFormatter(logger)(coercion)).extensions).toEqual({ classification: 'ValidationError' });
  });

  it('an error already classified (syntax, validation, our own) passes unchanged', () => {
    const { logger } = recordingLogger();
    const err = new GraphQLError('Syntax Error: Expected Name, found <EOF>.', {
      source: new Source('{'),
      positions: [1],
      extensions: { classification: 'InvalidSyntax' },
    });
    expect(createErrorFormatter(logger)(err)).toBe(err);
  });

  it.each([
    ['Missing query', 'Falta el parámetro query con el documento GraphQL'],
    ['Unparsable JSON body', 'El cuerpo de la petición no es JSON válido'],
    ['Invalid variables', 'El parámetro variables debe ser un objeto JSON'],
    ['Something graphql-http may add later', 'Something graphql-http may add later'],
  ])('the request error "%s" reads "%s", classified BAD_REQUEST', (message, expected) => {
    const { logger } = recordingLogger();
    expect(json(createErrorFormatter(logger)(new Error(message)))).toEqual({
      message: expected,
      extensions: { classification: 'BAD_REQUEST' },
    });
  });
});
