import { buildSchema, execute, parse } from 'graphql';
import { parse as parseLossless } from 'lossless-json';
import { argumentNumberText, type ExactVariables } from '../src/graphql/number-text';
import { typeDefs } from '../src/graphql/schema';

/**
 * Which text a resolver reads for `input.precio`: the literal's in the
 * document, or the variable's as the client wrote it in the JSON body, or a
 * variable's default in the document; never the double graphql-js coerced.
 */
async function precioTextOf(
  document: string,
  variablesJson?: string,
  { exact = true } = {},
): Promise<string | undefined> {
  const schema = buildSchema(typeDefs);
  let seen: string | undefined = 'not resolved';
  const mutation = schema.getMutationType()!.getFields();
  for (const field of [mutation.crearProducto!, mutation.actualizarProducto!]) {
    field.resolve = (_source, _args, context: { exactVariables: ExactVariables | undefined }, info) => {
      seen = argumentNumberText(info, context.exactVariables, ['input', 'precio']);
      return { success: true };
    };
  }
  const result = await execute({
    schema,
    document: parse(document),
    variableValues: variablesJson === undefined ? undefined : (JSON.parse(variablesJson) as Record<string, unknown>),
    contextValue: {
      exactVariables: exact
        ? ((variablesJson === undefined ? {} : parseLossless(variablesJson)) as ExactVariables)
        : undefined,
    },
  });
  expect(result.errors).toBeUndefined();
  return seen;
}

const CREAR = (input: string, variables = '') => `mutation ${variables} { crearProducto(input: ${input}) { success } }`;

describe('the number text of an argument', () => {
  it.each([
    [
      'a Float literal',
      CREAR('{nombre: "x", precio: 19.999999999999999999, cantidad: 1}'),
      undefined,
      '19.999999999999999999',
    ],
    ['an Int literal', CREAR('{nombre: "x", precio: 20, cantidad: 1}'), undefined, '20'],
    ['an exponent literal', CREAR('{nombre: "x", precio: 1e2, cantidad: 1}'), undefined, '1e2'],
    [
      'a whole input variable',
      CREAR('$input', '($input: ProductoInput!)'),
      '{"input": {"nombre": "x", "precio": 19.90, "cantidad": 1}}',
      '19.90',
    ],
    ['a Float variable', CREAR('{nombre: "x", precio: $p, cantidad: 1}', '($p: Float!)'), '{"p": 20.001}', '20.001'],
    [
      'a variable left out, by its default',
      CREAR('{nombre: "x", precio: $p, cantidad: 1}', '($p: Float = 0.100)'),
      '{}',
      '0.100',
    ],
    [
      'an input variable left out, by the default literal',
      CREAR('$input', '($input: ProductoInput = {nombre: "x", precio: 1.50, cantidad: 1})'),
      undefined,
      '1.50',
    ],
  ])('%s', async (_case, document, variables, text) => {
    expect(await precioTextOf(document, variables)).toBe(text);
  });

  it('a variable given null is no text, not its default', async () => {
    const document = 'mutation ($p: Float = 1.25) { actualizarProducto(input: {id: "1", precio: $p}) { success } }';
    expect(await precioTextOf(document, '{"p": null}')).toBeUndefined();
  });

  it('an update without precio has no text', async () => {
    expect(
      await precioTextOf('mutation { actualizarProducto(input: {id: "1", cantidad: 2}) { success } }'),
    ).toBeUndefined();
  });

  it('without the exact variables, a variable has no text (never a guess from its default)', async () => {
    const document = CREAR('{nombre: "x", precio: $p, cantidad: 1}', '($p: Float = 1.25)');
    expect(await precioTextOf(document, '{"p": 19.999999999999999999}', { exact: false })).toBeUndefined();
  });
});
