/** Database URLs: `mysql://user:password@host:port/database`, credentials URL-encoded. */
import { describeMysqlUrl, parseMysqlUrl } from '@inventario/platform';

describe('parseMysqlUrl', () => {
  it.each([
    ['mysql://root@127.0.0.1:3306/inventario_producto', { host: '127.0.0.1', port: 3306, user: 'root', password: '', database: 'inventario_producto' }],
    ['mysql://app:p%40ss%3Aw%2Frd@db.example:3307/inv', { host: 'db.example', port: 3307, user: 'app', password: 'p@ss:w/rd', database: 'inv' }],
    ['mysql://us%20er:%20@db/inv', { host: 'db', port: 3306, user: 'us er', password: ' ', database: 'inv' }],
    ['mysql://db/inv', { host: 'db', port: 3306, user: 'root', password: '', database: 'inv' }],
    ['mysql:///inv', { host: '127.0.0.1', port: 3306, user: 'root', password: '', database: 'inv' }],
    ['mysql://app:x@db/inv?ssl=true', { host: 'db', port: 3306, user: 'app', password: 'x', database: 'inv' }],
  ])('reads %s', (url, expected) => {
    expect(parseMysqlUrl(url)).toEqual(expected);
  });

  it.each([
    ['postgres://app@db/inv', 'must start with mysql://'],
    ['mysql://app@db', 'database name'],
    ['mysql://app@db/', 'database name'],
    ['mysql://app@db/bad-name', 'database name'],
    ['mysql://app@db/inv%3Bdrop', 'database name'],
    ['mysql://app@db/inv/extra', 'database name'],
    ['mysql://app@db/inv%60', 'database name'],
    ['not a url', 'not a valid URL'],
    ['mysql://app:s3cret@db:99999/inv', 'not a valid URL'],
    ['mysql://app:s3%cret@db/inv', 'password holds a malformed %-escape'],
  ])('refuses %s', (url, message) => {
    expect(() => parseMysqlUrl(url)).toThrow(message);
  });

  it.each(['mysql://app:s3cret@db:99999/inv', 'mysql://app:s3%cret@db/inv', 'mysql://app:s3cret@[db/inv'])('an error about %s carries no copy of it', (url) => {
    let thrown: unknown;
    try {
      parseMysqlUrl(url);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(
      JSON.stringify({ ...(thrown as object), message: (thrown as Error).message, stack: (thrown as Error).stack, cause: String((thrown as Error).cause) }),
    ).not.toContain('s3cret');
  });
});

describe('describeMysqlUrl', () => {
  it('names where a URL points without its credentials', () => {
    const described = describeMysqlUrl('mysql://app:s3cret@db.example:3307/inv');
    expect(described).toBe('mysql://db.example:3307/inv');
    expect(described).not.toContain('s3cret');
    expect(described).not.toContain('app');
  });
});
