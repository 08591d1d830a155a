import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

/**
 * Bounds padding (the same field selected hundreds of times), which no depth or result bound sees.
 * graphql-armor's cost formula without its multiplication by a literal `first`, which would refuse
 * ordinary pages (`productos(first: 300) { id nombre precio }` costs 1,950 there).
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
