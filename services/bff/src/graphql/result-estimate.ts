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
 * How big an operation's result may get, estimated before execution.
 *
 * The unit is the result node: every object and every list item counts 1
 * (scalars count 0: how many of them an object carries is bounded by the
 * document, which the cost and token limits bound). A list field counts its
 * subtree once per item: `first` items when it has a literal `first`,
 * MAX_FIRST when `first` is a variable (its value is not known while a
 * document is validated, and validation is cached per document), and
 * `defaultListSize` without `first`; a paginated field that answers a page
 * object (`movimientos(first): MovimientosPagina`) gives that size to the
 * lists of the page. So `{ bodegas { productos { id } } }`
 * is 100 + 100 × 100 = 10,100, while the cycle `Bodega.productos` /
 * `Producto.bodega` multiplies by 100 per list level (the query, four
 * levels, about 10^8). Fields selected twice (in two fragments, say) count
 * twice; `@skip`/`@include` are ignored: an overestimate, never an
 * underestimate, for lists of known size. Introspection is not counted.
 */
export interface ResultEstimateLimits {
  /** Items a list without `first` is assumed to hold (the full lists of the original clients; real lists may be longer: the node cap bounds those). */
  defaultListSize: number;
  /** Operations whose estimate exceeds this are refused. */
  maxEstimatedNodes: number;
}

/** The size `first` gives a list field, or undefined when the field has no literal in range nor a variable. */
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

/** Estimated result nodes of the operations of one document (see ResultEstimateLimits). */
function createEstimator(context: ValidationContext, limits: ResultEstimateLimits) {
  const fragments = new Map<string, number>();
  const visiting = new Set<string>();

  /** The items a paginated field asks for: its `first`, MAX_FIRST for a variable, the default without. */
  function sizeOf(node: FieldNode): number {
    const first = firstOf(node);
    return first === 'variable' ? MAX_FIRST : (first ?? limits.defaultListSize);
  }

  /**
   * `pageSize` is the size a paginated field that answers a page object
   * (`movimientos: MovimientosPagina`) gives the lists of that object,
   * which take no `first` of their own.
   */
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
    const subtree = isCompositeType(type) && node.selectionSet ? 1 + selectionNodes(node.selectionSet, type, ofPage) : 1;
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
        nodes += selectionNodes(selection.selectionSet, condition && isCompositeType(condition) ? condition : parent, pageSize);
      }
    }
    return nodes;
  }

  return { selectionNodes };
}

/**
 * Refuses, before execution, an operation whose estimated result exceeds
 * `maxEstimatedNodes`, and a literal `first` outside 0..MAX_FIRST (a
 * variable's value is checked by the resolver). Both are ordinary
 * validation errors: classification ValidationError, no data.
 */
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
          context.reportError(
            new GraphQLError(
              `La consulta supera el tamaño estimado máximo de ${limits.maxEstimatedNodes} nodos: ` +
                `pida menos elementos con first (una lista sin first cuenta como ${limits.defaultListSize})`,
              { nodes: node },
            ),
          );
        }
      },
    };
  };
}
