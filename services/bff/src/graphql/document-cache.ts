import { GraphQLError, parse as graphqlParse, validate as graphqlValidate, type DocumentNode, type ParseOptions, type Source } from 'graphql';
import { LRUCache } from 'lru-cache';
import { CLASSIFICATION, withClassification } from './errors';

export interface DocumentCacheOptions {
  /** Distinct query texts kept. */
  maxEntries: number;
  /** Longer query texts are parsed every time: the cache holds at most maxEntries × this many characters. */
  maxQueryLength: number;
  /** The parser gives up beyond this many tokens (graphql-js `maxTokens`), before any depth or cost rule runs. */
  maxTokens: number;
}

/** graphql-http's `parse` and `validate` hooks. */
export interface DocumentCache {
  parse: typeof graphqlParse;
  validate: typeof graphqlValidate;
}

export const DEFAULT_DOCUMENT_CACHE: DocumentCacheOptions = { maxEntries: 500, maxQueryLength: 16_384, maxTokens: 5_000 };

/**
 * Parses and validates each distinct query text once: hot queries skip both
 * on later requests. A document is cached by its text (LRU, bounded in
 * entries and in text length); its validation errors by the document object,
 * so they go when the document does. Syntax errors are classified
 * InvalidSyntax and never cached; validation errors are classified
 * ValidationError.
 *
 * One cache serves one schema and one rule set (those of its handler): the
 * cached validation result is only valid for them.
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
      const errors = graphqlValidate(schema, document, rules, validationOptions, typeInfo).map((err) => withClassification(err, CLASSIFICATION.validation));
      validations.set(document, errors);
      return errors;
    },
  };
}
