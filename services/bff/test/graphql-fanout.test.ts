/**
 * Issue 16, item 1: one GraphQL request must not take the gateway down.
 * `Bodega.productos` and `Producto.bodega` form a cycle, so before the fix
 * `{ bodega(id) { productos { bodega { productos ... } } } }` multiplied the
 * result by a warehouse's size per level (20 products: 4.4 MB; 200: the heap).
 * Against the real services, a warehouse of 200 products, and the BFF:
 * - that query and worse variants (aliases, GET, deeper, a fragment, variables,
 *   a mutation's result) are refused before execution: ValidationError, no data;
 * - the original clients' queries, without `first`, still return complete lists, longer
 *   than the estimate's default size;
 * - `first`/`after` page in id order, per warehouse in `Bodega.productos`;
 * - a document that passes the estimate but resolves more nodes than
 *   GRAPHQL_MAX_NODES is stopped while executing: one error, no data.
 */
import { startBareBff, type BareBff } from './support/bare-bff';
import { startTestBackend, type TestBackend } from './support/stack';
import { graphql, graphqlData, type GraphqlTarget } from './graphql-support/graphql-client';
import { GET_QUERY_LIMITS, QUERY_LIMITS } from '../src/graphql/limits';

const EN_BODEGA = 200;
const CAP = 300;

let backend: TestBackend;
let bff: BareBff;
let capped: BareBff;
let bodegaId: string;
let otraId: string;
/** Every product id, ascending. */
let todos: string[];

const ESTIMATE_ERROR = {
  message:
    `La consulta supera el tamaño estimado máximo de ${QUERY_LIMITS.maxEstimatedNodes} nodos: ` +
    `pida menos elementos con first (una lista sin first cuenta como ${QUERY_LIMITS.defaultListSize})`,
  locations: [{ line: 1, column: 1 }],
  extensions: { classification: 'ValidationError' },
};

/** The issue's query, exactly, for warehouse `id`. */
const issueQuery = (id: string) =>
  `{ bodega(id:"${id}") { productos { bodega { productos { bodega { productos { bodega { productos { id nombre } } } } } } } } }`;

/** The issue's selection below `bodega(id)`. */
const FANOUT = 'productos { bodega { productos { bodega { productos { bodega { productos { id nombre } } } } } } }';

const cursor = (id: string) => Buffer.from(id, 'utf8').toString('base64url');

async function post(target: GraphqlTarget, path: string, body: unknown) {
  const res = await target.request('POST', path, { body });
  expect(res.status).toBe(201);
  return String(res.body.id);
}

/** Runs `work` over `items`, `concurrency` at a time. */
async function eachLimited<T>(items: T[], concurrency: number, work: (item: T) => Promise<unknown>) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

beforeAll(async () => {
  backend = await startTestBackend('gqlfan');
  const addresses = { PRODUCTO_SVC_ADDR: backend.productoSvcAddr, BODEGA_SVC_ADDR: backend.bodegaSvcAddr };
  bff = await startBareBff(addresses);
  capped = await startBareBff({ ...addresses, GRAPHQL_MAX_NODES: String(CAP) });

  bodegaId = await post(bff, '/api/bodegas', { nombre: 'Central', ubicacion: 'Madrid', capacidad: 10_000 });
  otraId = await post(bff, '/api/bodegas', { nombre: 'Norte', ubicacion: 'Bilbao', capacidad: 10 });
  const productos = [
    ...Array.from({ length: EN_BODEGA }, (_, i) => ({ nombre: `Central ${i}`, bodegaId: Number(bodegaId) })),
    ...Array.from({ length: 3 }, (_, i) => ({ nombre: `Norte ${i}`, bodegaId: Number(otraId) })),
    ...Array.from({ length: 2 }, (_, i) => ({ nombre: `Suelto ${i}` })),
  ];
  // Four at a time: the entries all land in one warehouse, and its setup is not what this file measures.
  await eachLimited(productos, 4, (p) => post(bff, '/api/productos', { ...p, precio: 1.5, cantidadEnStock: 1 }));
  const rest = await bff.request('GET', '/api/productos');
  todos = (rest.body as { id: number }[]).map((p) => String(p.id));
  expect(todos).toHaveLength(productos.length);
}, 120_000);

afterAll(async () => {
  await capped?.close();
  await bff?.close();
  await backend?.close();
});

describe('the Bodega.productos / Producto.bodega fan-out is refused before execution', () => {
  it(`the issue's query against a warehouse of ${EN_BODEGA} products: ValidationError, no data`, async () => {
    const response = await graphql(bff, issueQuery(bodegaId));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ errors: [ESTIMATE_ERROR] });
  });

  it('its GET form (GET /api/graphql?query=...) likewise, under the tighter GET bound (issue 21, item 1)', async () => {
    const response = await bff.request('GET', `/api/graphql?query=${encodeURIComponent(issueQuery(bodegaId))}`, {
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ errors: [{ ...ESTIMATE_ERROR, message: GET_QUERY_LIMITS.mensaje }] });
  });

  const getQuery = (query: string) =>
    bff.request('GET', `/api/graphql?query=${encodeURIComponent(query)}`, { headers: { accept: 'application/json' } });

  it.each([
    ['a full list', '{ productos { id } }'],
    [
      'a first given as a variable (counted as 1000) with a nested object',
      'query ($n: Int) { productos(first: $n) { id bodega { id } } }',
    ],
    ['a page of warehouses each with its full product list', '{ bodegas(first: 2) { productos { id } } }'],
  ])('over GET, %s is refused before any read: ValidationError, no data', async (_case, query) => {
    const response = await getQuery(query);
    expect(response.body).toEqual({ errors: [{ ...ESTIMATE_ERROR, message: GET_QUERY_LIMITS.mensaje }] });
  });

  it('over GET, cheap documents run: a product by id, a page with a literal first', async () => {
    const response = await getQuery(`{ producto(id: "${todos[0]}") { id } productos(first: 3) { id bodega { id } } }`);
    expect(response.body).toEqual({
      data: {
        producto: { id: todos[0] },
        productos: todos.slice(0, 3).map((id) => ({ id, bodega: { id: bodegaId } })),
      },
    });
  });

  // Every row has its variables (jest passes a shorter row's missing argument as a done callback).
  // More shapes (inline fragments, literal firsts, fragment blow-up) in graphql-result-estimate.unit.test.ts.
  const variants: [string, () => string, Record<string, unknown>][] = [
    // 6: the most that stay within the document cost bound, so only the estimate refuses them.
    [
      '6 aliases of it',
      () => `{ ${Array.from({ length: 6 }, (_, i) => `a${i}: bodega(id: "${bodegaId}") { ${FANOUT} }`).join(' ')} }`,
      {},
    ],
    [
      'deeper, to the depth limit (10 levels)',
      () => `{ bodega(id: "${bodegaId}") { ${FANOUT.replace('{ id nombre }', '{ id bodega { id } }')} } }`,
      {},
    ],
    [
      'from the root list, 3 lists deep',
      () => '{ bodegas { productos { bodega { productos { bodega { productos { id } } } } } } }',
      {},
    ],
    [
      'its levels in a fragment',
      () =>
        `{ bodega(id: "${bodegaId}") { ...P } } fragment P on Bodega { productos { bodega { productos { bodega { productos { id } } } } } }`,
      {},
    ],
    [
      'first as a variable at every level (counted as 1000 each)',
      () =>
        `query ($n: Int) { bodega(id: "${bodegaId}") { productos(first: $n) { bodega { productos(first: $n) { id } } } } }`,
      { n: 2 },
    ],
    [
      "through a mutation's result",
      () =>
        'mutation { crearProducto(input: {nombre: "X", precio: 1, cantidad: 1}) ' +
        '{ producto { bodega { productos { bodega { productos { bodega { productos { id } } } } } } } } }',
      {},
    ],
  ];

  it.each(variants)('%s: ValidationError, no data', async (_case, query, variables) => {
    const response = await graphql(bff, query(), { variables });
    expect(response.status).toBe(200);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toEqual([{ ...ESTIMATE_ERROR, locations: expect.any(Array) }]);
  });

  it('one list level more (5 lists, 11 levels) is refused by both the depth limit and the estimate', async () => {
    const response = await graphql(bff, `{ bodega(id: "${bodegaId}") { productos { bodega { ${FANOUT} } } } }`);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        ESTIMATE_ERROR,
        expect.objectContaining({ message: expect.stringContaining('profundidad máxima') }),
      ]),
    );
  });

  it('the refused mutation wrote nothing', async () => {
    const data = await graphqlData<{ productos: unknown[] }>(bff, '{ productos { id } }');
    expect(data.productos).toHaveLength(todos.length);
  });

  it('a literal first outside 0..1000 is a ValidationError naming first, before execution', async () => {
    const response = await graphql(bff, '{ productos(first: 1001) { id } }');
    expect(response.body).toEqual({
      errors: [
        {
          message: 'first: debe estar entre 0 y 1000',
          locations: [{ line: 1, column: 13 }],
          extensions: { classification: 'ValidationError' },
        },
      ],
    });
  });
});

describe("the original clients' queries, without first, still return complete lists", () => {
  it('{ productos { id nombre } } answers every product, in id order', async () => {
    const data = await graphqlData<{ productos: { id: string; nombre: string }[] }>(bff, '{ productos { id nombre } }');
    expect(data.productos.map((p) => p.id)).toEqual(todos);
  });

  it(`{ bodegas { productos { id } } } answers all ${EN_BODEGA} products of a warehouse, more than the estimate's ${QUERY_LIMITS.defaultListSize}`, async () => {
    const data = await graphqlData<{ bodegas: { id: string; productos: { id: string }[] }[] }>(
      bff,
      '{ bodegas { id productos { id } } }',
    );
    const central = data.bodegas.find((b) => b.id === bodegaId);
    expect(central?.productos).toHaveLength(EN_BODEGA);
    expect(data.bodegas.find((b) => b.id === otraId)?.productos).toHaveLength(3);
  });

  it('a warehouse, its products and their warehouse (two levels of the cycle) answer in full', async () => {
    const data = await graphqlData<{ bodega: { productos: { bodega: { id: string } }[] } }>(
      bff,
      `{ bodega(id: "${bodegaId}") { nombre productos { id nombre precio cantidad bodega { id nombre } } } }`,
    );
    expect(data.bodega.productos).toHaveLength(EN_BODEGA);
    expect(new Set(data.bodega.productos.map((p) => p.bodega.id))).toEqual(new Set([bodegaId]));
  });
});

describe('first and after page in id order', () => {
  type Page = { productos: { id: string }[] };

  it('productos(first, after) walks the whole list, no row repeated or skipped', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const data: Page = await graphqlData<Page>(
        bff,
        'query ($after: String) { productos(first: 37, after: $after) { id } }',
        {
          variables: { after },
        },
      );
      expect(data.productos.length).toBeLessThanOrEqual(37);
      seen.push(...data.productos.map((p) => p.id));
      if (data.productos.length < 37) break;
      after = cursor(data.productos.at(-1)!.id);
    }
    expect(seen).toEqual(todos);
  });

  it('Bodega.productos(first, after) walks one warehouse', async () => {
    const central: string[] = [];
    let after: string | null = null;
    for (;;) {
      const data: { bodega: Page } = await graphqlData<{ bodega: Page }>(
        bff,
        'query ($id: ID!, $after: String) { bodega(id: $id) { productos(first: 64, after: $after) { id } } }',
        { variables: { id: bodegaId, after } },
      );
      central.push(...data.bodega.productos.map((p) => p.id));
      if (data.bodega.productos.length < 64) break;
      after = cursor(data.bodega.productos.at(-1)!.id);
    }
    expect(central).toHaveLength(EN_BODEGA);
    expect(central).toEqual([...central].sort((a, b) => Number(a) - Number(b)));
  });

  it("Bodega.productos(first) is a page of each warehouse's own products, not of all of them", async () => {
    const data = await graphqlData<{ bodegas: { id: string; productos: { id: string; bodegaId: string }[] }[] }>(
      bff,
      '{ bodegas { id productos(first: 2) { id bodegaId } } }',
    );
    for (const bodega of data.bodegas) {
      expect(bodega.productos).toHaveLength(2);
      expect(bodega.productos.every((p) => p.bodegaId === bodega.id)).toBe(true);
    }
    const norte = data.bodegas.find((b) => b.id === otraId)!;
    const after = await graphqlData<{ bodegas: { id: string; productos: { id: string }[] }[] }>(
      bff,
      `{ bodegas { id productos(first: 2, after: "${cursor(norte.productos[1]!.id)}") { id } } }`,
    );
    // Norte has 3 products: one left after its second.
    expect(after.bodegas.find((b) => b.id === otraId)!.productos).toHaveLength(1);
  });

  it('bodegas(first, after), first: 0, and a cursor written by btoa (standard base64, padded)', async () => {
    const [uno] = (await graphqlData<{ bodegas: { id: string }[] }>(bff, '{ bodegas(first: 1) { id } }')).bodegas;
    expect(uno!.id).toBe(bodegaId);
    const siguiente = await graphqlData<{ bodegas: { id: string }[] }>(
      bff,
      `{ bodegas(first: 5, after: "${cursor(uno!.id)}") { id } }`,
    );
    expect(siguiente.bodegas.map((b) => b.id)).toEqual([otraId]);
    expect(await graphqlData(bff, '{ productos(first: 0) { id } bodegas(first: 0) { id } }')).toEqual({
      productos: [],
      bodegas: [],
    });
    const padded = Buffer.from(todos[0]!, 'utf8').toString('base64');
    const data = await graphqlData<Page>(bff, `{ productos(first: 1, after: "${padded}") { id } }`);
    expect(data.productos.map((p) => p.id)).toEqual([todos[1]]);
  });

  it.each([
    ['an after that is not a cursor', '{ productos(after: "no es un cursor") { id } }', {}, 'after'],
    ['an after that names id 0', `{ productos(after: "${cursor('0')}") { id } }`, {}, 'after'],
    ['a first variable outside 0..1000', 'query ($n: Int) { productos(first: $n) { id } }', { n: 5000 }, 'first'],
  ])('%s is a ValidationError naming the argument, at the field', async (_case, query, variables, argumento) => {
    const response = await graphql(bff, query, { variables });
    expect(response.status).toBe(200);
    expect(response.body.data).toBeNull();
    expect(response.body.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(new RegExp(`^${argumento}: `)),
        path: ['productos'],
        extensions: { classification: 'ValidationError' },
      }),
    ]);
  });
});

describe(`the node cap (GRAPHQL_MAX_NODES=${CAP}) holds while executing`, () => {
  it(`a document within the estimate that resolves more than ${CAP} nodes is stopped: one ValidationError, no data`, async () => {
    // Estimated 1 + 100 + 100 = 201 nodes; resolves 1 + 200 products + their 200 warehouses.
    const response = await graphql(capped, `{ bodega(id: "${bodegaId}") { productos { id bodega { id } } } }`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: null,
      errors: [
        {
          message: `La consulta supera el máximo de ${CAP} nodos de resultado: pida menos elementos con first y after`,
          extensions: { classification: 'ValidationError' },
        },
      ],
    });
  });

  it('so does a full list longer than the cap, while its pages answer', async () => {
    const lista = await graphql(
      capped,
      `
        {
          a: productos {
            id
          }
          b: productos {
            id
          }
        }
      `,
    );
    expect(lista.body).toEqual({
      data: null,
      errors: [expect.objectContaining({ extensions: { classification: 'ValidationError' } })],
    });
    const pagina = await graphqlData<{ productos: unknown[] }>(capped, '{ productos(first: 150) { id } }');
    expect(pagina.productos).toHaveLength(150);
  });

  it('a result within the cap answers in full', async () => {
    const data = await graphqlData<{ productos: unknown[] }>(capped, '{ productos { id } }');
    expect(data.productos).toHaveLength(todos.length);
  });
});
