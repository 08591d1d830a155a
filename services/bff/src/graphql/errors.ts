import { randomUUID } from 'node:crypto';
import { DomainError, type Logger } from '@inventario/platform';
import { GraphQLError } from 'graphql';
import type { FormatError } from 'graphql-http';
import { DeadlineExceededError, ServicioNoDisponibleError } from '../inventario/errors';

/**
 * `extensions.classification` of every GraphQL error we answer (docs/contract.md §4.5): the first
 * three are the original clients'; the rest follow their style for failures those do not name.
 */
export const CLASSIFICATION = {
  invalidSyntax: 'InvalidSyntax',
  validation: 'ValidationError',
  internal: 'INTERNAL_ERROR',
  badRequest: 'BAD_REQUEST',
  forbidden: 'FORBIDDEN',
  notFound: 'NOT_FOUND',
  conflict: 'CONFLICT',
  unavailable: 'UNAVAILABLE',
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
  // identidad-svc's refusals (issue 26); the services the BFF calls today never answer them.
  UNAUTHENTICATED: CLASSIFICATION.forbidden,
  PERMISSION_DENIED: CLASSIFICATION.forbidden,
};

export function withClassification(
  err: GraphQLError,
  classification: Classification,
  extra: Record<string, unknown> = {},
): GraphQLError {
  return new GraphQLError(err.message, {
    nodes: err.nodes,
    source: err.source,
    positions: err.positions,
    path: err.path,
    originalError: err.originalError,
    extensions: { ...err.extensions, ...extra, classification },
  });
}

/** Spanish texts for graphql-http 1.23's request errors; an unknown one passes through unchanged. */
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

function classificationOf(
  original: Error,
): { classification: Classification; extra?: Record<string, unknown> } | undefined {
  if (original instanceof ServicioNoDisponibleError) {
    return { classification: CLASSIFICATION.unavailable, extra: { retryAfterSeconds: original.retryAfterSeconds } };
  }
  if (original instanceof DomainError) return { classification: BY_DOMAIN_CODE[original.code] };
  if (original instanceof DeadlineExceededError) return { classification: CLASSIFICATION.deadlineExceeded };
  return undefined;
}

/**
 * Every error of every response passes here once. Errors without a path were raised before
 * execution (ValidationError); a domain error's message is safe by contract; anything else is
 * logged under a fresh id, the only thing the client sees of it.
 */
export function createErrorFormatter(logger: Logger): FormatError {
  return (err) => {
    if (!(err instanceof GraphQLError)) {
      // graphql-http's request errors: safe, fixed texts.
      return new GraphQLError(REQUEST_ERROR_TEXT[err.message] ?? err.message, {
        extensions: { classification: CLASSIFICATION.badRequest },
      });
    }
    if (typeof err.extensions.classification === 'string') return err;
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
