import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql';
import { documentCostRule } from './document-cost';
import { maxMutationsRule } from './mutation-count';
import { resultEstimateRule, type ResultEstimateLimits } from './result-estimate';

/**
 * Bounds on what one operation may ask for (docs/contract.md §4.6). The schema is cyclic
 * (`Bodega.productos` / `Producto.bodega`), and depth alone lets each list level multiply the
 * result, so list sizes are estimated too. Introspection is exempt, so GraphiQL keeps working.
 */
export interface QueryLimits extends ResultEstimateLimits {
  maxDepth: number;
  maxCost: number;
  /** Aliases could otherwise repeat an expensive field many times in one operation. */
  maxAliases: number;
  maxMutations: number;
}

/**
 * Generous for every sensible query, tight for abuse: every field of every type at each of 10
 * levels costs about 770, so only padding reaches the cost bound. Every query of the original
 * clients passes the estimate (two nested lists without `first` are 20,100 nodes); three nested
 * lists are at least 1,000,000 and need a small literal `first`. Five writes cover any action of
 * the original clients without letting aliases turn a request into a bulk load.
 */
export const QUERY_LIMITS: QueryLimits = {
  maxDepth: 10,
  maxCost: 1000,
  maxAliases: 15,
  maxMutations: 5,
  defaultListSize: 100,
  maxEstimatedNodes: 200_000,
};

/**
 * GET runs only cheap documents (docs/contract.md §4.1): a link or a page that a browser holding the
 * Basic credentials loads can send one, so it must not start a full list. Every list needs a
 * `first` (a list without one counts as the node cap) and the estimate is at most 1,000 nodes.
 */
export const GET_QUERY_LIMITS: QueryLimits = {
  ...QUERY_LIMITS,
  defaultListSize: 100_000,
  maxEstimatedNodes: 1_000,
  mensaje:
    'Por GET solo se admiten consultas pequeñas (a lo sumo 1000 nodos estimados, cada lista con first): ' +
    'envíe las demás por POST',
};

/**
 * A limit as an ordinary validation error (ValidationError, before execution); graphql-armor would throw out of
 * validate.
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

export function limitRules(limits: QueryLimits = QUERY_LIMITS): ValidationRule[] {
  return [
    maxDepthRule({
      n: limits.maxDepth,
      ...reportAsValidationError(`La consulta supera la profundidad máxima de ${limits.maxDepth} niveles`),
    }),
    maxAliasesRule({
      n: limits.maxAliases,
      ...reportAsValidationError(`La consulta supera el máximo de ${limits.maxAliases} alias`),
    }),
    documentCostRule(limits.maxCost),
    resultEstimateRule(limits),
    maxMutationsRule(limits.maxMutations),
  ];
}
