/** Database URLs: `mysql://user:password@host:port/database`, credentials URL-encoded. */
import { describeMysqlUrl, parseMysqlHosts, parseMysqlUrl } from '@inventario/platform';

describe('parseMysqlUrl', () => {
  it.each([
    [
      'mysql://root@127.0.0.1:3306/inventario_producto',
      { host: '127.0.0.1', port: 3306, user: 'root', password: '', database: 'inventario_producto' },
    ],
    [
      'mysql://app:p%40ss%3Aw%2Frd@db.example:3307/inv',
      { host: 'db.example', port: 3307, user: 'app', password: 'p@ss:w/rd', database: 'inv' },
    ],
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

  it.each(['mysql://app:s3cret@db:99999/inv', 'mysql://app:s3%cret@db/inv', 'mysql://app:s3cret@[db/inv'])(
    'an error about %s carries no copy of it',
    (url) => {
      let thrown: unknown;
      try {
        parseMysqlUrl(url);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(Error);
      expect(
        JSON.stringify({
          ...(thrown as object),
          message: (thrown as Error).message,
          stack: (thrown as Error).stack,
          cause: String((thrown as Error).cause),
        }),
      ).not.toContain('s3cret');
    },
  );
});

describe('describeMysqlUrl', () => {
  it('names where a URL points without its credentials', () => {
    const described = describeMysqlUrl('mysql://app:s3cret@db.example:3307/inv');
    expect(described).toBe('mysql://db.example:3307/inv');
    expect(described).not.toContain('s3cret');
    expect(described).not.toContain('app');
  });
});

describe('several hosts (failover: a Galera cluster, a primary and its standby)', () => {
  it('reads the host list in order, 3306 where no port is given; the rest of the URL as for one host, the first host as its host', () => {
    const url = 'mysql://app:p%40ss@db-0.galera:3306,db-1.galera:3307,db-2.galera,[::1]:3310/inv';
    expect(parseMysqlHosts(url)).toEqual([
      { host: 'db-0.galera', port: 3306 },
      { host: 'db-1.galera', port: 3307 },
      { host: 'db-2.galera', port: 3306 },
      { host: '[::1]', port: 3310 },
    ]);
    expect(parseMysqlUrl(url)).toEqual({
      host: 'db-0.galera',
      port: 3306,
      user: 'app',
      password: 'p@ss',
      database: 'inv',
    });
    expect(parseMysqlHosts('mysql://root@127.0.0.1:3306/inv')).toEqual([{ host: '127.0.0.1', port: 3306 }]);
  });

  it.each([
    ['mysql://app:s3cret@db-0,db-1:99999/inv', 'host 2 is not host[:port]'],
    ['mysql://app:s3cret@db-0,,db-2/inv', 'host 2 is not host[:port]'],
    ['mysql://app:s3cret@db-0:x,db-1/inv', 'not a valid URL'],
  ])('refuses %s without echoing it', (url, message) => {
    let thrown: unknown;
    try {
      parseMysqlUrl(url);
      parseMysqlHosts(url);
    } catch (err) {
      thrown = err;
    }
    expect((thrown as Error).message).toContain(message);
    expect((thrown as Error).message).not.toContain('s3cret');
  });

  it('names every host, without credentials, when described', () => {
    expect(describeMysqlUrl('mysql://app:s3cret@db-0:3306,db-1:3307/inv')).toBe('mysql://db-0:3306,db-1:3307/inv');
  });
});
