/** validateFields runs every check and names every offending field at once. */
import { InvalidArgumentError, NotFoundError, validateFields } from '@inventario/platform';
import { violationsOf } from '@inventario/testkit';

const bad = (campo: string) => (): never => {
  throw InvalidArgumentError.field(campo, 'no es válido');
};

describe('validateFields', () => {
  it('returns the result of every check under its key', () => {
    expect(validateFields({ pageSize: () => 10, afterId: () => null, ids: () => [1, 2] })).toEqual({
      pageSize: 10,
      afterId: null,
      ids: [1, 2],
    });
  });

  it('collects the violations of every failing check, in key order', () => {
    expect(
      violationsOf(() => validateFields({ pageSize: bad('pageSize'), skip: () => 0, pageToken: bad('pageToken') })),
    ).toEqual([
      { campo: 'pageSize', mensaje: 'no es válido' },
      { campo: 'pageToken', mensaje: 'no es válido' },
    ]);
  });

  it('lets any other error through unchanged', () => {
    const notFound = new NotFoundError('no existe');
    expect(() =>
      validateFields({
        a: () => {
          throw notFound;
        },
      }),
    ).toThrow(notFound);
  });
});
