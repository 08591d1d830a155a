/**
 * The validation rules that bound a document before execution (issue 16,
 * item 1): the result estimate counts list sizes (`first`, or 100 without
 * it), and the document cost no longer multiplies by `first`. Pure: the
 * schema's SDL and graphql-js's validate, no services.
 */
import { buildSchema, specifiedRules } from 'graphql';
import { createDocumentCache } from '../src/graphql/document-cache';
import { limitRules, QUERY_LIMITS } from '../src/graphql/limits';
import { MAX_FIRST } from '../src/graphql/pagination';
import { typeDefs } from '../src/graphql/schema';

const schema = buildSchema(typeDefs);
const rules = [...specifiedRules, ...limitRules()];

function validationMessages(query: string): string[] {
  const cache = createDocumentCache();
  return cache.validate(schema, cache.parse(query), rules).map((err) => err.message);
}

const ESTIMATE = `La consulta supera el tamaño estimado máximo de ${QUERY_LIMITS.maxEstimatedNodes} nodos: pida menos elementos con first (una lista sin first cuenta como ${QUERY_LIMITS.defaultListSize})`;

/** The selection below `bodega(id)`: four nested lists. */
const FANOUT = 'productos { bodega { productos { bodega { productos { bodega { productos { id nombre } } } } } } }';

describe('the result estimate', () => {
  it.each([
    [
      'the issue query',
      '{ bodega(id:"B") { productos { bodega { productos { bodega { productos { bodega { productos { id nombre } } } } } } } } }',
    ],
    [
      '6 aliases of it (within every other limit)',
      `{ ${Array.from({ length: 6 }, (_, i) => `a${i}: bodega(id: "${i}") { ${FANOUT} }`).join(' ')} }`,
    ],
    [
      'three nested lists from the root',
      '{ bodegas { productos { bodega { productos { bodega { productos { id } } } } } } }',
    ],
    [
      'three nested lists through a fragment',
      '{ bodega(id: "1") { ...P } } fragment P on Bodega { productos { bodega { productos { bodega { productos { id } } } } } }',
    ],
    [
      'three nested lists through inline fragments',
      '{ bodegas { ... on Bodega { productos { bodega { ... { productos { bodega { productos { id } } } } } } } } }',
    ],
    [
      'first as a variable, counted as the largest first',
      'query ($n: Int) { bodegas(first: $n) { productos(first: $n) { id } } }',
    ],
    ['literal firsts that multiply past the bound', '{ bodegas(first: 1000) { productos(first: 201) { id } } }'],
    [
      "three nested lists in a mutation's result",
      'mutation { crearBodega(input: {nombre: "X", ubicacion: "Y"}) { bodega { productos { bodega { productos { bodega { productos { id } } } } } } } }',
    ],
    [
      'three nested lists through the stock relations',
      '{ productos { existencias { bodega { existencias { producto { existencias { cantidad } } } } } } }',
    ],
    [
      'literal firsts of existencias that multiply past the bound',
      '{ bodegas(first: 1000) { existencias(first: 201) { cantidad } } }',
    ],
    [
      "a ledger page's lines, counted by the page's first",
      '{ movimientos(first: 1000) { movimientos { producto { existencias(first: 199) { cantidad } } } } }',
    ],
    [
      "a ledger page's lines through a fragment",
      '{ movimientos(first: 1000) { ...L } } fragment L on MovimientosPagina { movimientos { bodega { existencias(first: 199) { cantidad } } } }',
    ],
  ])('refuses %s, and only for its estimate', (_case, query) => {
    expect(validationMessages(query)).toEqual([ESTIMATE]);
  });

  it.each([
    ['{ productos { id nombre } }'],
    ['{ bodegas { productos { id } } }'],
    ['{ bodegas { id nombre productos { id nombre precio cantidad bodega { id nombre } } } }'],
    ['{ productos { id nombre bodega { id nombre productos { id nombre } } } }'],
    ['query ($n: Int) { bodegas(first: $n) { productos { id } } }'],
    ['{ bodegas(first: 1000) { productos(first: 199) { id } } }'],
    [`{ bodega(id: "1") { ${FANOUT.replace(/productos/g, 'productos(first: 10)')} } }`],
    [
      `{ productos(first: ${MAX_FIRST}) { id nombre descripcion precio cantidad fechaCreacion fechaActualizacion bodegaId } }`,
    ],
    ['{ bodegas { ocupacion existencias { cantidad producto { nombre } } } }'],
    ['{ productos { existencias { cantidad bodega { nombre } } } }'],
    ['{ bodegas(first: 1000) { existencias(first: 199) { cantidad } } }'],
    ['{ movimientos(first: 1000) { movimientos { id bodega { nombre } producto { nombre } } siguienteCursor } }'],
    ['{ operacion(id: "1") { movimientos { producto { existencias { cantidad } } } } }'],
  ])("accepts the original clients' queries and paginated ones: %s", (query) => {
    expect(validationMessages(query)).toEqual([]);
  });

  it('counts nodes: 1 per object and per list item, lists by first or 100', () => {
    // 100 warehouses + 100 × 100 products = 10,100; at the bound's edge, first decides.
    const justUnder = `{ bodegas(first: 1000) { productos(first: 199) { id } } }`; // 1,000 + 199,000
    const justOver = `{ bodegas(first: 1000) { productos(first: 200) { id } } }`; // 1,000 + 200,000
    expect(validationMessages(justUnder)).toEqual([]);
    expect(validationMessages(justOver)).toEqual([ESTIMATE]);
  });

  it("counts a ledger page's lines by the page's first: the page, then each line and what it selects", () => {
    // 1 page + 1,000 × (1 line + 1 product + 197 levels) = 199,001; with 198 levels, 200,001.
    const justUnder =
      '{ movimientos(first: 1000) { movimientos { producto { existencias(first: 197) { cantidad } } } } }';
    const justOver =
      '{ movimientos(first: 1000) { movimientos { producto { existencias(first: 198) { cantidad } } } } }';
    expect(validationMessages(justUnder)).toEqual([]);
    expect(validationMessages(justOver)).toEqual([ESTIMATE]);
    // Without first, a page counts as 100 lines, which is what it holds.
    expect(
      validationMessages('{ movimientos { movimientos { producto { existencias(first: 1000) { cantidad } } } } }'),
    ).toEqual([]);
  });

  it.each([
    ['-1', '{ productos(first: -1) { id } }'],
    ['1001', '{ bodegas(first: 1001) { id } }'],
    ['1001 in Bodega.productos', '{ bodegas(first: 1) { productos(first: 1001) { id } } }'],
    ['1001 in Bodega.existencias', '{ bodegas(first: 1) { existencias(first: 1001) { cantidad } } }'],
    ['1001 in movimientos', '{ movimientos(first: 1001) { siguienteCursor } }'],
  ])('refuses a literal first of %s, naming first', (_case, query) => {
    expect(validationMessages(query)).toEqual([`first: debe estar entre 0 y ${MAX_FIRST}`]);
  });

  it('stays linear in the document when fragments spread fragments twice over', () => {
    // 2^40 paths through the fragments: unless each fragment is estimated once, this never ends.
    const fragments = Array.from(
      { length: 40 },
      (_, i) => `fragment F${i} on Producto { id ...F${i + 1} ...F${i + 1} }`,
    ).join(' ');
    const query = `{ productos(first: 1) { ...F0 } } ${fragments} fragment F40 on Producto { nombre }`;
    expect(validationMessages(query)).not.toContain(ESTIMATE);
  });
});

describe('the document cost', () => {
  it('does not multiply by first: an ordinary page costs what the same query without first costs', () => {
    // graphql-armor's cost multiplied by a literal first: this was 1,950 against a bound of 1,000.
    expect(validationMessages('{ productos(first: 300) { id nombre precio } }')).toEqual([]);
    expect(
      validationMessages(`{ productos(first: ${MAX_FIRST}) { id nombre precio cantidad bodega { id nombre } } }`),
    ).toEqual([]);
  });

  it('still refuses padding', () => {
    const padded = `{ productos(first: 1) { ${Array.from({ length: 700 }, () => 'id').join(' ')} } }`;
    expect(validationMessages(padded)).toContain(`La consulta supera el coste máximo de ${QUERY_LIMITS.maxCost}`);
  });
});
