import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql';

/**
 * Bounds on what one operation may ask for (ARCHITECTURE §3: "query depth
 * and cost are bounded"). `Bodega.productos` and `Producto.bodega` make the
 * schema cyclic, so without a depth bound one request could fan out without
 * end. Introspection (`__schema`) is exempt, so GraphiQL keeps working.
 */
export interface QueryLimits {
  /** Nested selection levels. */
  maxDepth: number;
  /** graphql-armor's cost: objects 2, scalars 1, ×1.5 per level. */
  maxCost: number;
  /** Aliased fields, which could otherwise repeat an expensive field many times in one operation. */
  maxAliases: number;
}

/**
 * Generous for every sensible query of this schema, tight for abuse: a
 * warehouse's products and their warehouse are 4 levels; every field of
 * every type at each of 10 levels costs about 770, so only padding (the same
 * field selected hundreds of times) reaches the cost bound.
 */
export const QUERY_LIMITS: QueryLimits = { maxDepth: 10, maxCost: 1000, maxAliases: 15 };

/**
 * Reports a limit as an ordinary validation error, so the document is
 * rejected before execution with classification ValidationError. (By
 * default graphql-armor throws out of validate, with a "Syntax Error:"
 * prefix.)
 */
function reportAsValidationError(mensaje: string) {
  return {
    propagateOnRejection: false,
    exposeLimits: false,
    errorMessage: mensaje,
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) =>
        context?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, ''))),
    ],
  };
}

/** graphql-armor's depth, cost and alias rules, appended to graphql-js's specified rules. */
export function limitRules(limits: QueryLimits = QUERY_LIMITS): ValidationRule[] {
  return [
    maxDepthRule({
      n: limits.maxDepth,
      ...reportAsValidationError(`La consulta supera la profundidad máxima de ${limits.maxDepth} niveles`),
    }),
    costLimitRule({
      maxCost: limits.maxCost,
      ...reportAsValidationError(`La consulta supera el coste máximo de ${limits.maxCost}`),
    }),
    maxAliasesRule({
      n: limits.maxAliases,
      ...reportAsValidationError(`La consulta supera el máximo de ${limits.maxAliases} alias`),
    }),
  ];
}
