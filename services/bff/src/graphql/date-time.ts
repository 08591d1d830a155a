import { formatLocalUtc } from '@inventario/platform';
import { GraphQLError, Kind, type ValueNode } from 'graphql';
import type { ScalarBehaviour } from './bind-resolvers';

/** `YYYY-MM-DDTHH:mm:ss`: the public timestamp form (UTC, no zone), as in the REST API. */
const LOCAL_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

function parse(value: unknown): string {
  if (typeof value === 'string' && LOCAL_UTC.test(value) && !Number.isNaN(Date.parse(`${value}Z`))) return value;
  throw new GraphQLError('DateTime debe tener la forma YYYY-MM-DDTHH:mm:ss (UTC, sin zona)');
}

/**
 * The `DateTime` scalar: the same text the REST API returns
 * (`2026-11-22T14:03:07`, always UTC). Output only in this schema; the input
 * side accepts the same form so the scalar is complete.
 */
export const dateTimeScalar: ScalarBehaviour = {
  serialize(value: unknown): string {
    if (value instanceof Date) return formatLocalUtc(value);
    return parse(value);
  },
  parseValue: parse,
  parseLiteral(node: ValueNode): string {
    if (node.kind !== Kind.STRING) throw new GraphQLError('DateTime debe ser un texto', { nodes: node });
    return parse(node.value);
  },
};
