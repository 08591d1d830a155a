import { graphql } from 'graphql';
import { dateTimeScalar } from '../src/graphql/resolvers';
import { createInventarioSchema } from '../src/graphql/schema';

/** Binding resolvers to the SDL: a misnamed resolver is refused at start-up, and DateTime keeps the public form. */
describe('the executable GraphQL schema', () => {
  it('refuses a resolver for a field the SDL does not declare', () => {
    expect(() => createInventarioSchema({ Query: { productoz: () => null } })).toThrow(/productoz/);
  });

  it('refuses resolvers for a type the SDL does not declare', () => {
    expect(() => createInventarioSchema({ Almacen: { id: () => 1 } })).toThrow(/Almacen/);
  });

  it('binds a field resolver and the DateTime scalar', async () => {
    const fecha = new Date(Date.UTC(2026, 10, 22, 14, 3, 7));
    const schema = createInventarioSchema({
      DateTime: dateTimeScalar,
      Query: { producto: () => ({ id: 7, nombre: 'Tornillo', precio: 0.25, cantidad: 3, fechaCreacion: fecha }) },
    });
    const result = await graphql({ schema, source: '{ producto(id: "7") { id nombre fechaCreacion } }' });
    expect(result).toEqual({
      data: { producto: { id: '7', nombre: 'Tornillo', fechaCreacion: '2026-11-22T14:03:07' } },
    });
  });

  it.each(['2026-11-22', '2026-11-22T14:03:07Z', '2026-13-40T99:00:00', 7])('DateTime refuses %p as input', (value) => {
    expect(() => dateTimeScalar.parseValue(value)).toThrow('DateTime');
  });
});
