import {
  getNullableType,
  GraphQLError,
  isCompositeType,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  type ASTVisitor,
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { MAX_FIRST, PAGINATION_MENSAJES } from './pagination';

/**
 * The result size estimated before execution, in result nodes: objects and list items (scalars are
 * bounded by the document's cost). A list counts its subtree once per item: a literal `first`,
 * MAX_FIRST for a variable (validation is cached per document, so its value is unknown), else
 * `defaultListSize` (real lists may be longer: the node cap bounds those). Fields selected twice
 * count twice and `@skip`/`@include` are ignored: an overestimate, never an underestimate.
 */
export interface ResultEstimateLimits {
  defaultListSize: number;
  maxEstimatedNodes: number;
  /** The refusal's text; default: the size and what a list without `first` counts as. */
  mensaje?: string;
}

function firstOf(node: FieldNode): number | 'variable' | undefined {
  const argument = node.arguments?.find((a) => a.name.value === 'first');
  if (!argument) return undefined;
  if (argument.value.kind === Kind.VARIABLE) return 'variable';
  if (argument.value.kind !== Kind.INT) return undefined;
  return Math.min(Math.max(Number(argument.value.value), 0), MAX_FIRST);
}

function isPaginated(field: GraphQLField<unknown, unknown>): boolean {
  return field.args.some((arg) => arg.name === 'first');
}

function createEstimator(context: ValidationContext, limits: ResultEstimateLimits) {
  const fragments = new Map<string, number>();
  const visiting = new Set<string>();

  function sizeOf(node: FieldNode): number {
    const first = firstOf(node);
    return first === 'variable' ? MAX_FIRST : (first ?? limits.defaultListSize);
  }

  /** `pageSize`: what a paginated field answering a page object (`movimientos`) gives that page's lists. */
  function fieldNodes(node: FieldNode, parent: GraphQLCompositeType, pageSize?: number): number {
    if (node.name.value.startsWith('__')) return 0;
    if (!isObjectType(parent) && !isInterfaceType(parent)) return 0;
    const field = parent.getFields()[node.name.value];
    if (!field) return 0; // reported by graphql-js's FieldsOnCorrectType
    let type = getNullableType(field.type);
    const isList = isListType(type);
    while (isListType(type)) type = getNullableType(type.ofType);
    const paginated = isPaginated(field);
    const ofPage = paginated && !isList ? sizeOf(node) : undefined;
    const subtree =
      isCompositeType(type) && node.selectionSet ? 1 + selectionNodes(node.selectionSet, type, ofPage) : 1;
    if (!isList) return isCompositeType(type) ? subtree : 0;
    const size = paginated ? sizeOf(node) : (pageSize ?? limits.defaultListSize);
    return size * subtree;
  }

  function fragmentNodes(name: string, pageSize?: number): number {
    const memo = `${name}/${pageSize ?? ''}`;
    const known = fragments.get(memo);
    if (known !== undefined) return known;
    const fragment = context.getFragment(name);
    // An unknown fragment or a cycle is reported by graphql-js's own rules.
    if (!fragment || visiting.has(name)) return 0;
    const type = context.getSchema().getType(fragment.typeCondition.name.value);
    if (!type || !isCompositeType(type)) return 0;
    visiting.add(name);
    const nodes = selectionNodes(fragment.selectionSet, type, pageSize);
    visiting.delete(name);
    // Memoized: fragments spreading fragments twice over cannot make this exponential.
    fragments.set(memo, nodes);
    return nodes;
  }

  function selectionNodes(selectionSet: SelectionSetNode, parent: GraphQLCompositeType, pageSize?: number): number {
    let nodes = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        nodes += fieldNodes(selection, parent, pageSize);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        nodes += fragmentNodes(selection.name.value, pageSize);
      } else {
        const condition = selection.typeCondition && context.getSchema().getType(selection.typeCondition.name.value);
        nodes += selectionNodes(
          selection.selectionSet,
          condition && isCompositeType(condition) ? condition : parent,
          pageSize,
        );
      }
    }
    return nodes;
  }

  return { selectionNodes };
}

/** Also a literal `first` outside 0..MAX_FIRST (a variable's value is checked by the resolver). */
export function resultEstimateRule(limits: ResultEstimateLimits): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const estimator = createEstimator(context, limits);
    return {
      Field(node) {
        const field = context.getFieldDef();
        const argument = node.arguments?.find((a) => a.name.value === 'first');
        if (!field || !isPaginated(field) || argument?.value.kind !== Kind.INT) return;
        const first = Number(argument.value.value);
        if (first < 0 || first > MAX_FIRST) {
          context.reportError(new GraphQLError(`first: ${PAGINATION_MENSAJES.first}`, { nodes: argument }));
        }
      },
      OperationDefinition(node) {
        const root = context.getSchema().getRootType(node.operation);
        if (!root) return;
        const estimate = estimator.selectionNodes(node.selectionSet, root);
        if (estimate > limits.maxEstimatedNodes) {
          const mensaje =
            limits.mensaje ??
            `La consulta supera el tamaño estimado máximo de ${limits.maxEstimatedNodes} nodos: ` +
              `pida menos elementos con first (una lista sin first cuenta como ${limits.defaultListSize})`;
          context.reportError(new GraphQLError(mensaje, { nodes: node }));
        }
      },
    };
  };
}
