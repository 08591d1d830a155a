import { Kind, type GraphQLResolveInfo, type ValueNode } from 'graphql';
import { isLosslessNumber } from 'lossless-json';

/**
 * The number text a client wrote for an argument, so a price is judged as written (REST's rule,
 * json-number.ts), never as the double graphql-js coerced: `19.999999999999999999` is 20 as a
 * double. A literal keeps its text in the document; a variable's is in the exact variables.
 */

/** Every number a LosslessNumber holding its text. */
export type ExactVariables = Readonly<Record<string, unknown>>;

function textInJson(value: unknown, path: readonly string[]): string | undefined {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current) || !Object.hasOwn(current, key))
      return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return isLosslessNumber(current) ? current.value : undefined;
}

function textInNode(
  node: ValueNode,
  path: readonly string[],
  info: GraphQLResolveInfo,
  variables: ExactVariables | undefined,
): string | undefined {
  let current = node;
  for (let depth = 0; ; depth += 1) {
    if (current.kind === Kind.VARIABLE) return textOfVariable(current.name.value, path.slice(depth), info, variables);
    if (depth === path.length)
      return current.kind === Kind.INT || current.kind === Kind.FLOAT ? current.value : undefined;
    if (current.kind !== Kind.OBJECT) return undefined;
    const field = current.fields.find((f) => f.name.value === path[depth]);
    if (!field) return undefined;
    current = field.value;
  }
}

function textOfVariable(
  name: string,
  path: readonly string[],
  info: GraphQLResolveInfo,
  variables: ExactVariables | undefined,
): string | undefined {
  // Without them nothing is known of what the client wrote, not even whether it left the variable out.
  if (!variables) return undefined;
  if (Object.hasOwn(variables, name)) return textInJson(variables[name], path);
  const definition = info.operation.variableDefinitions?.find((d) => d.variable.name.value === name);
  return definition?.defaultValue && textInNode(definition.defaultValue, path, info, variables);
}

/**
 * `['input', 'precio']`: the `precio` of the `input` argument, whether the input, the price or neither is a variable.
 */
export function argumentNumberText(
  info: GraphQLResolveInfo,
  variables: ExactVariables | undefined,
  [argument, ...path]: readonly [string, ...string[]],
): string | undefined {
  // Fields merged under one response name have equal arguments (graphql-js validates that).
  const node = info.fieldNodes[0]?.arguments?.find((a) => a.name.value === argument)?.value;
  return node && textInNode(node, path, info, variables);
}
