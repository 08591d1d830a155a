import {
  isObjectType,
  isScalarType,
  type GraphQLFieldResolver,
  type GraphQLScalarType,
  type GraphQLSchema,
} from 'graphql';
import type { GraphqlContext } from './context';

/** A field resolver of this schema (sources and arguments are typed by each resolver). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type FieldResolver = GraphQLFieldResolver<any, GraphqlContext, any>;

/** The behaviour of a custom scalar. */
export type ScalarBehaviour = Pick<GraphQLScalarType, 'serialize' | 'parseValue' | 'parseLiteral'>;

/**
 * Resolvers by type name: a map of field resolvers for an object type, or a
 * scalar's behaviour for a custom scalar. Fields without a resolver use
 * graphql-js's default (the source property of the same name).
 */
export type Resolvers = Record<string, Record<string, FieldResolver> | ScalarBehaviour>;

function isScalarBehaviour(value: Resolvers[string]): value is ScalarBehaviour {
  return typeof value.serialize === 'function' && typeof value.parseValue === 'function';
}

/**
 * Binds `resolvers` to the schema built from SDL (what graphql-tools'
 * makeExecutableSchema does, without the dependency). A resolver naming a
 * type or field the SDL does not declare is a programming error and throws
 * at start-up, so a typo cannot silently leave a field on the default
 * resolver.
 */
export function bindResolvers(schema: GraphQLSchema, resolvers: Resolvers): GraphQLSchema {
  for (const [typeName, typeResolvers] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (isScalarType(type) && isScalarBehaviour(typeResolvers)) {
      type.serialize = typeResolvers.serialize;
      type.parseValue = typeResolvers.parseValue;
      type.parseLiteral = typeResolvers.parseLiteral;
      continue;
    }
    if (!isObjectType(type) || isScalarBehaviour(typeResolvers)) {
      throw new Error(`resolvers: ${typeName} is not an object type of the schema`);
    }
    const fields = type.getFields();
    for (const [fieldName, resolve] of Object.entries(typeResolvers)) {
      const field = fields[fieldName];
      if (!field) throw new Error(`resolvers: ${typeName}.${fieldName} is not a field of the schema`);
      field.resolve = resolve;
    }
  }
  return schema;
}
