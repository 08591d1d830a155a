import {
  GraphQLError,
  parse as graphqlParse,
  validate as graphqlValidate,
  type DocumentNode,
  type ParseOptions,
  type Source,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { CLASSIFICATION, withClassification } from './errors';

export interface DocumentCacheOptions {
  maxEntries: number;
  /** Longer query texts are parsed every time: the cache holds at most maxEntries × this many characters. */
  maxQueryLength: number;
  /** The parser gives up beyond this many tokens, before any depth or cost rule runs. */
  maxTokens: number;
}

export interface DocumentCache {
  parse: typeof graphqlParse;
  validate: typeof graphqlValidate;
}

export const DEFAULT_DOCUMENT_CACHE: DocumentCacheOptions = {
  maxEntries: 500,
  maxQueryLength: 16_384,
  maxTokens: 5_000,
};

/**
 * Parses and validates each distinct query text once. Validation errors are kept by document, so
 * they go when the document does; syntax errors are never cached. One cache serves one schema and
 * one rule set: the cached validation is only valid for them.
 */
export function createDocumentCache(options: DocumentCacheOptions = DEFAULT_DOCUMENT_CACHE): DocumentCache {
  const documents = new LRUCache<string, DocumentNode>({ max: options.maxEntries });
  const validations = new WeakMap<DocumentNode, readonly GraphQLError[]>();

  const parseOnce = (source: string | Source, parseOptions?: ParseOptions): DocumentNode => {
    try {
      return graphqlParse(source, { maxTokens: options.maxTokens, ...parseOptions });
    } catch (err) {
      if (err instanceof GraphQLError) throw withClassification(err, CLASSIFICATION.invalidSyntax);
      throw err;
    }
  };

  return {
    parse(source, parseOptions) {
      if (typeof source !== 'string' || parseOptions !== undefined || source.length > options.maxQueryLength) {
        return parseOnce(source, parseOptions);
      }
      const cached = documents.get(source);
      if (cached) return cached;
      const document = parseOnce(source);
      documents.set(source, document);
      return document;
    },
    validate(schema, document, rules, validationOptions, typeInfo) {
      const cached = validations.get(document);
      if (cached) return cached;
      const errors = graphqlValidate(schema, document, rules, validationOptions, typeInfo).map((err) =>
        withClassification(err, CLASSIFICATION.validation),
      );
      validations.set(document, errors);
      return errors;
    },
  };
}
