import { GraphQLError, Kind, type ASTVisitor, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';

/**
 * The cost of a document's selections, whatever the sizes of its lists
 * (those are the result estimate's, result-estimate.ts): a scalar field costs
 * 1, an object field 2 plus 1.5 times the cost of its selections, a fragment
 * the cost of its selections; introspection (`__schema`, `__type`) costs 0.
 * It bounds padding (the same field selected hundreds of times), which no
 * depth or result bound sees. This is graphql-armor's cost formula without
 * its multiplication by a literal `first`, which would refuse ordinary pages
 * (`productos(first: 300) { id nombre precio }` costs 1,950 there).
 */
function createCoster(context: ValidationContext) {
  const fragments = new Map<string, number>();
  const visiting = new Set<string>();

  function fragmentCost(name: string): number {
    const known = fragments.get(name);
    if (known !== undefined) return known;
    const fragment = context.getFragment(name);
    // An unknown fragment or a cycle is reported by graphql-js's own rules.
    if (!fragment || visiting.has(name)) return 0;
    visiting.add(name);
    const cost = selectionCost(fragment.selectionSet);
    visiting.delete(name);
    fragments.set(name, cost);
    return cost;
  }

  function selectionCost(selectionSet: SelectionSetNode): number {
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === '__schema' || selection.name.value === '__type') continue;
        cost += selection.selectionSet ? 2 + 1.5 * selectionCost(selection.selectionSet) : 1;
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        cost += fragmentCost(selection.name.value);
      } else {
        cost += selectionCost(selection.selectionSet);
      }
    }
    return cost;
  }

  return { selectionCost };
}

/** Refuses, before execution, an operation whose document cost exceeds `maxCost` (classification ValidationError). */
export function documentCostRule(maxCost: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const coster = createCoster(context);
    return {
      OperationDefinition(node) {
        if (coster.selectionCost(node.selectionSet) > maxCost) {
          context.reportError(new GraphQLError(`La consulta supera el coste máximo de ${maxCost}`, { nodes: node }));
        }
      },
    };
  };
}
