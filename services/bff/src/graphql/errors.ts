import { randomUUID } from 'node:crypto';
import { DomainError, type Logger } from '@inventario/platform';
import { GraphQLError } from 'graphql';
import type { FormatError } from 'graphql-http';
import { DeadlineExceededError, ServicioNoDisponibleError } from '../inventario/errors';

/**
 * `extensions.classification` of every GraphQL error we answer. The first
 * three are the original clients' (docs/contract.md §4.5); the rest follow the same style
 * (Spring for GraphQL's ErrorType names, which the old service used) for
 * failures the original clients do not name.
 */
export const CLASSIFICATION = {
  /** The document does not parse. */
  invalidSyntax: 'InvalidSyntax',
  /** The document does not validate, exceeds a limit, or its variables or arguments are invalid. */
  validation: 'ValidationError',
  /** A bug or an unexpected failure; the message carries only a log id. */
  internal: 'INTERNAL_ERROR',
  /** The HTTP request itself is malformed (no query, body not JSON, ...). */
  badRequest: 'BAD_REQUEST',
  /** The operation is turned off (inicializarBaseDatos without ENABLE_INIT=true). */
  forbidden: 'FORBIDDEN',
  notFound: 'NOT_FOUND',
  conflict: 'CONFLICT',
  /** A downstream service is down or its circuit is open; retrying later may succeed. */
  unavailable: 'UNAVAILABLE',
  /** A downstream service did not answer within its deadline. */
  deadlineExceeded: 'DEADLINE_EXCEEDED',
} as const;

export type Classification = (typeof CLASSIFICATION)[keyof typeof CLASSIFICATION];

const BY_DOMAIN_CODE: Readonly<Record<DomainError['code'], Classification>> = {
  INVALID_ARGUMENT: CLASSIFICATION.validation,
  NOT_FOUND: CLASSIFICATION.notFound,
  ALREADY_EXISTS: CLASSIFICATION.conflict,
  FAILED_PRECONDITION: CLASSIFICATION.conflict,
  // A version mismatch or an idempotency key in use: the request conflicts with another write.
  ABORTED: CLASSIFICATION.conflict,
  UNAVAILABLE: CLASSIFICATION.unavailable,
  // A service's RESOURCE_EXHAUSTED reaches the BFF as a plain failure (toDomainError); listed for completeness.
  RESOURCE_EXHAUSTED: CLASSIFICATION.internal,
};

/** The same error with `classification` (and any `extra`) added to its extensions. */
export function withClassification(err: GraphQLError, classification: Classification, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(err.message, {
    nodes: err.nodes,
    source: err.source,
    positions: err.positions,
    path: err.path,
    originalError: err.originalError,
    extensions: { ...err.extensions, ...extra, classification },
  });
}

/**
 * Spanish texts for graphql-http's request errors (its messages of
 * graphql-http 1.23; an unknown one passes through unchanged).
 */
export const REQUEST_ERROR_TEXT: Readonly<Record<string, string>> = {
  'Missing body': 'Falta el cuerpo de la petición: envíe un objeto JSON {query, variables, operationName}',
  'Unparsable JSON body': 'El cuerpo de la petición no es JSON válido',
  'JSON body must be an object': 'El cuerpo JSON debe ser un objeto {query, variables, operationName}',
  'Missing query': 'Falta el parámetro query con el documento GraphQL',
  'Invalid query': 'El parámetro query debe ser un texto',
  'Invalid variables': 'El parámetro variables debe ser un objeto JSON',
  'Invalid operationName': 'El parámetro operationName debe ser un texto',
  'Invalid extensions': 'El parámetro extensions debe ser un objeto JSON',
  'Unparsable URL': 'Los parámetros de la URL no son válidos (variables y extensions deben ser JSON)',
};

function classificationOf(original: Error): { classification: Classification; extra?: Record<string, unknown> } | undefined {
  if (original instanceof ServicioNoDisponibleError) {
    return { classification: CLASSIFICATION.unavailable, extra: { retryAfterSeconds: original.retryAfterSeconds } };
  }
  if (original instanceof DomainError) return { classification: BY_DOMAIN_CODE[original.code] };
  if (original instanceof DeadlineExceededError) return { classification: CLASSIFICATION.deadlineExceeded };
  return undefined;
}

/**
 * graphql-http's `formatError`: every error of every response passes here
 * once. Errors already classified (syntax, validation and limits, our own)
 * keep their text. Errors without a path were raised before execution
 * (variable values that do not coerce, an unknown operationName):
 * ValidationError. A resolver's domain error keeps its message, which is safe
 * by contract, and gets the classification of its code. Anything else is unexpected: it is
 * logged with a fresh log id and the client sees only that id, never the
 * internal text or a stack.
 */
export function createErrorFormatter(logger: Logger): FormatError {
  return (err) => {
    if (!(err instanceof GraphQLError)) {
      // graphql-http's request errors, should one arrive as a plain Error (request-params.ts
      // throws them as GraphQLErrors already): safe, fixed texts.
      return new GraphQLError(REQUEST_ERROR_TEXT[err.message] ?? err.message, {
        extensions: { classification: CLASSIFICATION.badRequest },
      });
    }
    if (typeof err.extensions.classification === 'string') return err;
    // Every error of the execution itself is located at a field (has a path).
    if (err.path === undefined) return withClassification(err, CLASSIFICATION.validation);
    const original = err.originalError;
    const known = original && classificationOf(original);
    if (known) return withClassification(err, known.classification, known.extra);
    const logId = randomUUID();
    logger.error({ err: original ?? err, logId, path: err.path?.join('.') }, 'GraphQL operation failed unexpectedly');
    return new GraphQLError(`Error interno (id de registro ${logId})`, {
      nodes: err.nodes,
      source: err.source,
      positions: err.positions,
      path: err.path,
      extensions: { classification: CLASSIFICATION.internal, logId },
    });
  };
}
