import {
  GraphQLError,
  Kind,
  OperationTypeNode,
  type ASTVisitor,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

/**
 * The writes of a mutation operation: the distinct response names of its root selections, through
 * fragments, `__typename` aside (graphql-js runs fields sharing a name once). Aliases could repeat
 * a write up to the alias limit, so writes are bounded on their own; `@skip`/`@include` are
 * ignored, which can only overcount.
 */
function rootResponseNames(
  context: ValidationContext,
  selectionSet: SelectionSetNode,
  names: Set<string>,
  visited: Set<string>,
): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value !== '__typename') names.add(selection.alias?.value ?? selection.name.value);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      rootResponseNames(context, selection.selectionSet, names, visited);
    } else if (!visited.has(selection.name.value)) {
      visited.add(selection.name.value);
      // An unknown fragment is reported by graphql-js's own rules.
      const fragment = context.getFragment(selection.name.value);
      if (fragment) rootResponseNames(context, fragment.selectionSet, names, visited);
    }
  }
}

export function tooManyMutationsMessage(maxMutations: number): string {
  return (
    `La operación supera el máximo de ${maxMutations} mutaciones por petición (alias incluidos): envíe las ` +
    `demás en otras peticiones`
  );
}

/**
 * Refuses, before execution, a mutation operation with more than `maxMutations` writes (classification ValidationError,
 * nothing written).
 */
export function maxMutationsRule(maxMutations: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      if (node.operation !== OperationTypeNode.MUTATION) return;
      const names = new Set<string>();
      rootResponseNames(context, node.selectionSet, names, new Set());
      if (names.size > maxMutations)
        context.reportError(new GraphQLError(tooManyMutationsMessage(maxMutations), { nodes: node }));
    },
  });
}
