import { QUERY_LIMITS } from '../src/graphql/limits';
import { tooManyMutationsMessage } from '../src/graphql/mutation-count';
import { startTestStack, type StackResponse, type TestStack } from './support/stack';
import { uniqueNombre } from '@inventario/testkit';

/**
 * What one GraphQL mutation request may carry, against the whole back end:
 *
 * - a price is judged as the client wrote it, in the document or in the JSON
 *   variables, by REST's rule: each text gets the answer REST gives the same
 *   text in the same test (refused with REST's message naming `precio`,
 *   nothing written; or accepted and stored as REST stores it), never the
 *   answer for the double graphql-js reads (`19.999999999999999999` is 20);
 *   and so is the stock (`cantidad`), which REST reads exactly too;
 * - at most QUERY_LIMITS.maxMutations writes, aliases included: one more is
 *   refused before anything runs.
 */
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('gqlwrite');
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

/** The price as written in a REST answer's raw JSON (the parsed body would hold a double). */
function precioText(response: StackResponse): string | undefined {
  return /"precio":([^,}]+)/.exec(response.text)?.[1];
}

/** A GraphQL request with a raw JSON body, so a variable's number text reaches the BFF exactly as written. */
function graphqlRaw(query: string, variablesJson?: string): Promise<StackResponse> {
  const variables = variablesJson === undefined ? '' : `, "variables": ${variablesJson}`;
  return stack.request('POST', '/api/graphql', {
    rawBody: `{"query": ${JSON.stringify(query)}${variables}}`,
    headers: { accept: 'application/json' },
  });
}

async function productoIds(): Promise<number[]> {
  const response = await stack.request('GET', '/api/productos');
  expect(response.status).toBe(200);
  return (response.body as { id: number }[]).map((p) => p.id);
}

async function crearRest(precio = '1'): Promise<StackResponse> {
  return stack.request('POST', '/api/productos', {
    rawBody: `{"nombre":"${uniqueNombre('Precio REST')}","precio":${precio},"cantidadEnStock":1}`,
  });
}

/** What GraphQL must answer, given REST's answer to the same price text. */
function expectedFrom(rest: StackResponse): { success: false; error: string } | { success: true; precio: string } {
  if (rest.status === 400) {
    expect(rest.body.detalles).toEqual([{ campo: 'precio', mensaje: expect.any(String) }]);
    return { success: false, error: `precio: ${rest.body.detalles[0].mensaje}` };
  }
  expect(rest.status).toBeLessThan(300);
  return { success: true, precio: precioText(rest)! };
}

const PRODUCTO_SELECTION = 'success error producto { id }';

/** A create request in each form a price can take: a literal, inside an input variable, a Float variable. */
function crearForms(precio: string): Record<string, () => Promise<StackResponse>> {
  const nombre = () => uniqueNombre('Precio GQL');
  return {
    literal: () =>
      graphqlRaw(
        `mutation { crearProducto(input: {nombre: "${nombre()}", precio: ${precio}, cantidad: 1}) { ${PRODUCTO_SELECTION} } }`,
      ),
    'input variable': () =>
      graphqlRaw(
        `mutation C($input: ProductoInput!) { crearProducto(input: $input) { ${PRODUCTO_SELECTION} } }`,
        `{"input": {"nombre": "${nombre()}", "precio": ${precio}, "cantidad": 1}}`,
      ),
    'Float variable': () =>
      graphqlRaw(
        `mutation C($p: Float!) { crearProducto(input: {nombre: "${nombre()}", precio: $p, cantidad: 1}) { ${PRODUCTO_SELECTION} } }`,
        `{"p": ${precio}}`,
      ),
  };
}

function actualizarForms(id: number, precio: string): Record<string, () => Promise<StackResponse>> {
  return {
    literal: () =>
      graphqlRaw(`mutation { actualizarProducto(input: {id: "${id}", precio: ${precio}}) { ${PRODUCTO_SELECTION} } }`),
    'input variable': () =>
      graphqlRaw(
        `mutation U($input: ProductoUpdateInput!) { actualizarProducto(input: $input) { ${PRODUCTO_SELECTION} } }`,
        `{"input": {"id": "${id}", "precio": ${precio}}}`,
      ),
    'Float variable': () =>
      graphqlRaw(
        `mutation U($p: Float) { actualizarProducto(input: {id: "${id}", precio: $p}) { ${PRODUCTO_SELECTION} } }`,
        `{"p": ${precio}}`,
      ),
  };
}

/**
 * The price texts of the issue: `19.999999999999999999` is 20 as a double
 * and `20.001` has 3 decimals (both refused by REST); `1e2` is 100 in
 * exponent form, `0.1` has no exact double and `19.90` a trailing zero (all
 * three accepted by REST, exactly).
 */
const PRECIOS = ['19.999999999999999999', '20.001', '1e2', '0.1', '19.90'];

describe('GraphQL precio is judged as written, by the REST rule', () => {
  it.each(PRECIOS)(
    'crearProducto with precio %s answers as POST /api/productos does, in every form',
    async (precio) => {
      const expected = expectedFrom(await crearRest(precio));
      const idsBefore = await productoIds();
      const eventsBefore = (await stack.settledEvents()).length;

      const created: string[] = [];
      for (const [form, send] of Object.entries(crearForms(precio))) {
        const response = await send();
        expect({ form, status: response.status, errors: response.body.errors }).toEqual({
          form,
          status: 200,
          errors: undefined,
        });
        const answer = response.body.data.crearProducto as { producto: { id: string } | null };
        if (expected.success) {
          expect({ form, ...answer }).toEqual({
            form,
            success: true,
            error: null,
            producto: { id: expect.any(String) },
          });
          created.push(answer.producto!.id);
        } else {
          expect({ form, ...answer }).toEqual({ form, success: false, error: expected.error, producto: null });
        }
      }

      if (expected.success) {
        for (const id of created)
          expect(precioText(await stack.request('GET', `/api/productos/${id}`))).toBe(expected.precio);
      } else {
        expect(await productoIds()).toEqual(idsBefore);
        expect(await stack.settledEvents()).toHaveLength(eventsBefore);
      }
    },
  );

  it.each(PRECIOS)(
    'actualizarProducto with precio %s answers as PUT /api/productos/{id} does, in every form',
    async (precio) => {
      const restTarget = await crearRest('5.55');
      const rest = await stack.request('PUT', `/api/productos/${restTarget.body.id}`, {
        rawBody: `{"precio":${precio}}`,
      });
      const expected = expectedFrom(rest);
      const target = (await crearRest('5.55')).body as { id: number };
      const before = await stack.request('GET', `/api/productos/${target.id}`);
      const eventsBefore = (await stack.settledEvents()).length;

      for (const [form, send] of Object.entries(actualizarForms(target.id, precio))) {
        const answer = (await send()).body.data.actualizarProducto;
        expect({ form, ...answer }).toEqual(
          expected.success
            ? { form, success: true, error: null, producto: { id: String(target.id) } }
            : { form, success: false, error: expected.error, producto: null },
        );
      }

      const after = await stack.request('GET', `/api/productos/${target.id}`);
      if (expected.success) {
        expect(precioText(after)).toBe(expected.precio);
      } else {
        expect(precioText(after)).toBe('5.55');
        expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
        expect(await stack.settledEvents()).toHaveLength(eventsBefore);
      }
    },
  );

  it('a stock written 19.999999999999999999 in the variables is no whole number, as REST says, and nothing is written', async () => {
    const rest = await stack.request('POST', '/api/productos', {
      rawBody: `{"nombre":"${uniqueNombre('Stock REST')}","precio":1,"cantidadEnStock":19.999999999999999999}`,
    });
    expect(rest.status).toBe(400);
    expect(rest.body.detalles).toEqual([{ campo: 'cantidadEnStock', mensaje: expect.any(String) }]);
    const idsBefore = await productoIds();

    const response = await graphqlRaw(
      `mutation C($input: ProductoInput!) { crearProducto(input: $input) { ${PRODUCTO_SELECTION} } }`,
      `{"input": {"nombre": "${uniqueNombre('Stock GQL')}", "precio": 1, "cantidad": 19.999999999999999999}}`,
    );
    expect(response.body.data.crearProducto).toEqual({
      success: false,
      error: `cantidad: ${rest.body.detalles[0].mensaje}`,
      producto: null,
    });
    expect(await productoIds()).toEqual(idsBefore);
  });

  it("a variable's default price is judged by its text in the document", async () => {
    const response = await graphqlRaw(
      `mutation C($p: Float = 19.999999999999999999) { crearProducto(input: {nombre: "${uniqueNombre('Defecto')}", precio: $p, cantidad: 1}) { ${PRODUCTO_SELECTION} } }`,
      '{}',
    );
    expect(response.body.data.crearProducto).toEqual({
      success: false,
      error: 'precio: admite como máximo 2 decimales',
      producto: null,
    });
  });
});

describe(`a GraphQL request carries at most ${QUERY_LIMITS.maxMutations} writes`, () => {
  const aliased = (n: number) =>
    `mutation { ${Array.from({ length: n }, (_, i) => `w${i}: crearProducto(input: {nombre: "${uniqueNombre(`Alias ${i}`)}", precio: 1, cantidad: 1}) { success }`).join(' ')} }`;

  it(`${QUERY_LIMITS.maxMutations + 1} aliased mutations are refused before any runs: ValidationError, no data, nothing written`, async () => {
    const idsBefore = await productoIds();
    const eventsBefore = (await stack.settledEvents()).length;

    const response = await graphqlRaw(aliased(QUERY_LIMITS.maxMutations + 1));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      errors: [
        {
          message: tooManyMutationsMessage(QUERY_LIMITS.maxMutations),
          locations: expect.any(Array),
          extensions: { classification: 'ValidationError' },
        },
      ],
    });
    expect(await productoIds()).toEqual(idsBefore);
    expect(await stack.settledEvents()).toHaveLength(eventsBefore);
  });

  it(`${QUERY_LIMITS.maxMutations} aliased mutations all run`, async () => {
    const idsBefore = await productoIds();
    const response = await graphqlRaw(aliased(QUERY_LIMITS.maxMutations));
    expect(response.body.errors).toBeUndefined();
    expect(Object.values(response.body.data as Record<string, unknown>)).toEqual(
      Array.from({ length: QUERY_LIMITS.maxMutations }, () => ({ success: true })),
    );
    expect(await productoIds()).toHaveLength(idsBefore.length + QUERY_LIMITS.maxMutations);
  });
});
