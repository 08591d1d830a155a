import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql';
import { documentCostRule } from './document-cost';
import { maxMutationsRule } from './mutation-count';
import { resultEstimateRule, type ResultEstimateLimits } from './result-estimate';

/**
 * Bounds on what one operation may ask for (docs/contract.md §4.6).
 * `Bodega.productos` and `Producto.bodega` make the schema cyclic, so
 * without a depth bound one request could fan out without end; and since depth
 * alone lets every list level multiply the result by the list's size, the
 * result estimate counts list sizes (result-estimate.ts). Introspection
 * (`__schema`) is exempt, so GraphiQL keeps working. What execution itself may
 * build is bounded again while it runs (execution-limits.ts).
 */
export interface QueryLimits extends ResultEstimateLimits {
  /** Nested selection levels. */
  maxDepth: number;
  /** The document's cost (document-cost.ts): objects 2, scalars 1, ×1.5 per level, whatever the lists' sizes (it bounds padding). */
  maxCost: number;
  /** Aliased fields, which could otherwise repeat an expensive field many times in one operation. */
  maxAliases: number;
  /** Top-level fields of a mutation operation, aliases included: the writes one request may carry (mutation-count.ts). */
  maxMutations: number;
}

/**
 * Generous for every sensible query of this schema, tight for abuse: a
 * warehouse's products and their warehouse are 4 levels; every field of
 * every type at each of 10 levels costs about 770, so only padding (the same
 * field selected hundreds of times) reaches the cost bound.
 *
 * The result estimate: a list without `first` counts 100 items, and 200,000
 * nodes pass. Every query of the original clients passes: two nested lists without
 * `first` (`{ bodegas { productos { id bodega { nombre } } } }`) are 20,100,
 * and still 101,000 with the outer `first` a variable (counted 1,000).
 * Three nested lists (only the `Bodega.productos` / `Producto.bodega` cycle
 * nests them) are at least 1,000,000 and are refused: a client asks for them
 * with a small literal `first`. The query, four nested lists, is
 * about 10^8.
 *
 * Five writes per request: more than any action of the original clients needs
 * (a warehouse and a few products), few enough that one request cannot turn
 * into a bulk load through aliases.
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
      (context: ValidationContext | null, error: GraphQLError) => context?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, ''))),
    ],
  };
}

/** graphql-armor's depth and alias rules, the document cost, the result estimate and the mutation count, appended to graphql-js's specified rules. */
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
