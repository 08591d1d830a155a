import { buildSchema, getIntrospectionQuery, GraphQLError, specifiedRules } from 'graphql';
import { createDocumentCache } from '../src/graphql/document-cache';
import { limitRules, QUERY_LIMITS } from '../src/graphql/limits';
import { tooManyMutationsMessage } from '../src/graphql/mutation-count';
import { typeDefs } from '../src/graphql/schema';

const schema = buildSchema(typeDefs);
const rules = [...specifiedRules, ...limitRules()];

function validationMessages(query: string): string[] {
  const cache = createDocumentCache();
  return cache.validate(schema, cache.parse(query), rules).map((err) => err.message);
}

/**
 * `{ bodegas(first: 1) { productos(first: 1) { bodega { productos(first: 1) ... } } } }` nested `levels`
 * deep (scalars at the bottom); every list has `first: 1`, so only the depth limit applies.
 */
function nestedQuery(levels: number): string {
  let selection = 'id';
  for (let level = levels - 1; level >= 1; level--) {
    const field = level === 1 ? 'bodegas(first: 1)' : level % 2 === 0 ? 'productos(first: 1)' : 'bodega';
    selection = `${field} { ${selection} }`;
  }
  return `{ ${selection} }`;
}

describe('document cache', () => {
  it('parses a query text once and validates its document once', () => {
    const cache = createDocumentCache();
    const query = '{ productos { id nombre } }';
    const first = cache.parse(query);
    expect(cache.parse(query)).toBe(first);
    const errors = cache.validate(schema, first, rules);
    expect(cache.validate(schema, first, rules)).toBe(errors);
  });

  it('keeps no more documents than its bound, and does not cache texts over the length bound', () => {
    const cache = createDocumentCache({ maxEntries: 2, maxQueryLength: 40, maxTokens: 1000 });
    const a = cache.parse('{ health }');
    cache.parse('{ productos { id } }');
    cache.parse('{ bodegas { id } }');
    expect(cache.parse('{ health }')).not.toBe(a);

    const long = `{ productos { id nombre descripcion precio cantidad } }`;
    expect(long.length).toBeGreaterThan(40);
    expect(cache.parse(long)).not.toBe(cache.parse(long));
  });

  it('drops the least recently used document when full', () => {
    const cache = createDocumentCache({ maxEntries: 2, maxQueryLength: 100, maxTokens: 1000 });
    const a = cache.parse('{ health }');
    const b = cache.parse('{ productos { id } }');
    expect(cache.parse('{ health }')).toBe(a); // now the most recent
    cache.parse('{ bodegas { id } }');
    expect(cache.parse('{ health }')).toBe(a);
    expect(cache.parse('{ productos { id } }')).not.toBe(b);
  });

  it('classifies a syntax error InvalidSyntax, with its location', () => {
    const cache = createDocumentCache();
    let thrown: unknown;
    try {
      cache.parse('{ productos { id }');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(GraphQLError);
    expect((thrown as GraphQLError).extensions.classification).toBe('InvalidSyntax');
    expect((thrown as GraphQLError).locations).toEqual([{ line: 1, column: 19 }]);
  });

  it('refuses a document with more tokens than its bound as a syntax error', () => {
    const cache = createDocumentCache({ maxEntries: 10, maxQueryLength: 100_000, maxTokens: 50 });
    const query = `{ ${Array.from({ length: 60 }, () => 'health').join(' ')} }`;
    expect(() => cache.parse(query)).toThrow(/tokens/);
  });

  it('classifies every validation error ValidationError, with its locations', () => {
    const cache = createDocumentCache();
    const [error] = cache.validate(schema, cache.parse('{\n  productos { precioo }\n}'), rules);
    expect(error!.message).toContain('Cannot query field "precioo" on type "Producto"');
    expect(error!.extensions.classification).toBe('ValidationError');
    expect(error!.locations).toEqual([{ line: 2, column: 15 }]);
  });
});

describe('query limits', () => {
  it(`accepts a query ${QUERY_LIMITS.maxDepth} levels deep and rejects one level more`, () => {
    expect(validationMessages(nestedQuery(QUERY_LIMITS.maxDepth))).toEqual([]);
    expect(validationMessages(nestedQuery(QUERY_LIMITS.maxDepth + 1))).toEqual([
      `La consulta supera la profundidad máxima de ${QUERY_LIMITS.maxDepth} niveles`,
    ]);
  });

  it(`accepts ${QUERY_LIMITS.maxAliases} aliases and rejects one more`, () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: health`).join(' ')} }`;
    expect(validationMessages(aliases(QUERY_LIMITS.maxAliases))).toEqual([]);
    expect(validationMessages(aliases(QUERY_LIMITS.maxAliases + 1))).toEqual([
      `La consulta supera el máximo de ${QUERY_LIMITS.maxAliases} alias`,
    ]);
  });

  describe(`at most ${QUERY_LIMITS.maxMutations} writes per mutation operation`, () => {
    const write = (alias: string) => `${alias}: eliminarProducto(id: "${alias.length}") { success }`;
    const writes = (n: number) => Array.from({ length: n }, (_, i) => write(`w${'x'.repeat(i)}`));
    const tooMany = tooManyMutationsMessage(QUERY_LIMITS.maxMutations);

    it(`accepts ${QUERY_LIMITS.maxMutations} aliased writes and refuses one more`, () => {
      expect(validationMessages(`mutation { ${writes(QUERY_LIMITS.maxMutations).join(' ')} }`)).toEqual([]);
      expect(validationMessages(`mutation { ${writes(QUERY_LIMITS.maxMutations + 1).join(' ')} }`)).toEqual([tooMany]);
    });

    it('counts the writes of fragments and inline fragments at the root', () => {
      const [a, b, c, d, e, f] = writes(6);
      const document = `mutation { ${a} ...Dos ... on Mutation { ${d} ${e} } ...Dos ... { ${f} } } fragment Dos on Mutation { ${b} ${c} }`;
      expect(validationMessages(document)).toEqual([tooMany]);
    });

    it('counts a write repeated under one response name once (graphql-js runs it once), and not __typename', () => {
      const [a, b, c, d, e] = writes(5);
      expect(validationMessages(`mutation { ${a} ${a} ${b} ${c} ${d} ${e} __typename t: __typename }`)).toEqual([]);
    });

    it('leaves queries alone', () => {
      const fields = Array.from({ length: QUERY_LIMITS.maxMutations + 1 }, (_, i) => `h${i}: health`).join(' ');
      expect(validationMessages(`{ ${fields} }`)).toEqual([]);
    });
  });

  it(`accepts every field of every type at each of ${QUERY_LIMITS.maxDepth} levels (lists paginated, as the result estimate requires)`, () => {
    const fields = 'id nombre descripcion precio cantidad fechaCreacion fechaActualizacion bodegaId';
    const level = (inner: string) =>
      `productos(first: 5) { ${fields} bodega { id nombre ubicacion capacidad fechaCreacion ${inner} } }`;
    const widest = `{ bodegas(first: 5) { id nombre ${level(level(level(level(''))))} } }`;
    expect(validationMessages(widest)).toEqual([]);
  });

  it('rejects a query padded past the cost bound within the depth and alias limits', () => {
    const padded = `{ productos { ${Array.from({ length: 1000 }, () => 'id').join(' ')} } }`;
    // (graphql-js also gives up comparing that many fields: "Validation aborted.")
    expect(validationMessages(padded)).toContain(`La consulta supera el coste máximo de ${QUERY_LIMITS.maxCost}`);
  });

  it('lets the introspection query GraphiQL sends through', () => {
    expect(validationMessages(getIntrospectionQuery())).toEqual([]);
  });

  it('accepts a realistic query with every field of every type', () => {
    const query = `query Todo {
      productos { id nombre descripcion precio cantidad fechaCreacion fechaActualizacion bodegaId bodega { id nombre ubicacion capacidad } }
      bodegas { id nombre ubicacion capacidad fechaCreacion fechaActualizacion productos { id nombre precio cantidad } }
      health
    }`;
    expect(validationMessages(query)).toEqual([]);
  });
});
